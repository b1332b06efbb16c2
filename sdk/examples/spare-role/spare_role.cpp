// spare-role: a victim filter. Preemption and reclaim never evict a task of
// the role named by `role` (volcano.sh/task-spec), such as a training job's
// parameter server, whose loss would stop every worker with it. Every other
// candidate is left to the other plugins of the tier.
#include <scoria/scoria.hpp>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>

namespace {

constexpr scoria_arg_spec kArgs[] = {
    scoria::declare_arg(SCORIA_ARG_STRING, "role", "ps", "tasks of this role are never victims"),
};

struct SpareRole {
  explicit SpareRole(const scoria_args* args)
      : role(scoria::arg_string(args, "role").value_or("")) {}
  std::string role;
};

// Marks every candidate but those of the spared role. PERMIT: this plugin
// takes part in the decision (ABSTAIN would leave it to the others).
scoria_vote victims(void* self, const scoria_task* /*preemptor*/,
                    const scoria_task* const* candidates, size_t count, uint8_t* selected) {
  const auto& p = *static_cast<const SpareRole*>(self);
  for (size_t i = 0; i < count; ++i)
    selected[i] = scoria::view(scoria::info(candidates[i]).role) != p.role ? 1 : 0;
  return SCORIA_VOTE_PERMIT;
}

scoria_code on_session_open(void* self, scoria_session* /*ssn*/, scoria_hooks* hooks) {
  hooks->user_data = self;
  hooks->on_preemptable = victims;
  hooks->on_reclaimable = victims;
  return SCORIA_OK;
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "spare-role",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS,
    .version = "1.0.0",
    .description = "Never evicts the tasks of one role (volcano.sh/task-spec)",
    .on_create = scoria::create_instance<SpareRole>,
    .on_destroy = scoria::destroy_instance<SpareRole>,
    .on_session_open = on_session_open,
    .on_session_close = nullptr,
    .on_execute = nullptr,
    .args = kArgs,
    .arg_count = std::size(kArgs),
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
