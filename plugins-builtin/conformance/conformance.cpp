// The conformance plugin (Volcano's conformance): critical pods are never
// victims. Whatever other plugins permit, preemption and reclaim may not take
// a pod of the kube-system namespace or one whose priority class is
// system-cluster-critical or system-node-critical, and neither may the gang
// actions (on_evictable), whatever the kind of eviction.
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace {

constexpr std::string_view kSystemNamespace = "kube-system";
constexpr std::string_view kClusterCritical = "system-cluster-critical";
constexpr std::string_view kNodeCritical = "system-node-critical";

bool critical(const scoria_task* task) {
  const scoria_task_info ti = scoria::info(task);
  const std::string_view cls = scoria::view(ti.priority_class);
  return scoria::view(ti.namespace_) == kSystemNamespace || cls == kClusterCritical ||
         cls == kNodeCritical;
}

// Permits every candidate that is not critical; the permit makes the tier
// decide, so critical pods stay even if a later tier would allow them.
scoria_vote evictable(void* /*user_data*/, const scoria_task* /*evictor*/,
                      const scoria_task* const* candidates, size_t count, uint8_t* selected) {
  for (size_t i = 0; i < count; ++i) selected[i] = critical(candidates[i]) ? 0 : 1;
  return SCORIA_VOTE_PERMIT;
}

scoria_vote on_evictable(void* user_data, const scoria_eviction_context* /*ctx*/,
                         const scoria_task* const* candidates, size_t count, uint8_t* selected) {
  return evictable(user_data, nullptr, candidates, count, selected);
}

scoria_code on_session_open(void* /*instance*/, scoria_session* /*ssn*/, scoria_hooks* hooks) {
  hooks->on_preemptable = evictable;
  hooks->on_reclaimable = evictable;
  hooks->on_evictable = on_evictable;
  return SCORIA_OK;
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "conformance",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS,  // Volcano's conformance takes no arguments
    .version = "1.0.0",
    .description = "Never evicts kube-system or system-critical pods",
    .on_create = nullptr,
    .on_destroy = nullptr,
    .on_session_open = on_session_open,
    .on_session_close = nullptr,
    .on_execute = nullptr,
    .args = nullptr,
    .arg_count = 0,
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
