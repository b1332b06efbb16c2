// The cdp plugin (Volcano's cooldown protection): a running pod that sets
// volcano.sh/cooldown-time (label, else annotation; a Go duration such as
// "600s") is not a victim of preemption or reclaim until that long after it
// was bound (its PodScheduled condition's lastTransitionTime), so that an
// elastic job's pods are not evicted again just after they started. Every
// other candidate is left to the other plugins.
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace {

using scoria::api;
using scoria::log_line;

constexpr std::string_view kCooldownKey = "volcano.sh/cooldown-time";

struct Instance {
  int64_t now = 0;  // the session's clock
  // Malformed values already reported, so each is logged once, not every
  // session. Bounded: cleared when it grows large.
  std::set<std::string> reported;
};

// The pod's cooldown, if it sets one that parses; a malformed value is
// reported on the pod and the pod is unprotected, as in Volcano.
std::optional<std::chrono::nanoseconds> cooldown(Instance& self, const scoria_task* task) {
  scoria_str value{};
  if (api().task_label(task, scoria::str(kCooldownKey), &value) != SCORIA_OK &&
      api().task_annotation(task, scoria::str(kCooldownKey), &value) != SCORIA_OK)
    return std::nullopt;
  const std::string_view text = scoria::view(value);
  if (const auto d = scoria::parse_go_duration(text)) return d;
  const std::string uid(scoria::view(scoria::info(task).uid));
  if (self.reported.size() > 10000) self.reported.clear();
  if (self.reported.insert(uid + "\n" + std::string(text)).second)
    log_line(SCORIA_LOG_WARNING, "pod ", uid, ": ", kCooldownKey, "=\"", text,
             "\" is not a duration (write e.g. \"600s\" or \"10m\"); the pod has no cooldown "
             "protection");
  return std::nullopt;
}

// Still cooling down: running, bound, and bound less than its cooldown ago.
bool protected_now(Instance& self, const scoria_task* task) {
  const std::optional<std::chrono::nanoseconds> d = cooldown(self, task);
  if (!d) return false;
  const scoria_task_info ti = scoria::info(task);
  if (ti.status != SCORIA_TASK_RUNNING || ti.scheduled_ms == 0) return false;
  const int64_t until =
      ti.scheduled_ms + std::chrono::duration_cast<std::chrono::milliseconds>(*d).count();
  return until > self.now;
}

scoria_vote filter_victims(void* user_data, const scoria_task* /*evictor*/,
                           const scoria_task* const* candidates, size_t count, uint8_t* selected) {
  auto& self = *static_cast<Instance*>(user_data);
  try {
    for (size_t i = 0; i < count; ++i) {
      if (protected_now(self, candidates[i])) {
        log_line(SCORIA_LOG_V4, "<", scoria::view(scoria::info(candidates[i]).uid),
                 "> is within its cooldown; not a victim");
        continue;
      }
      selected[i] = 1;
    }
  } catch (const std::exception& e) {
    // Fail closed: name no victim rather than half a decision.
    std::fill(selected, selected + count, uint8_t{0});
    scoria::report_error(e.what());
  }
  return SCORIA_VOTE_PERMIT;
}

scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  if (hooks == nullptr || hooks->struct_size < sizeof(scoria_hooks)) return SCORIA_INVALID_ARGUMENT;
  static_cast<Instance*>(instance)->now = scoria::now_ms(ssn);
  hooks->user_data = instance;
  hooks->on_preemptable = filter_victims;
  hooks->on_reclaimable = filter_victims;
  return SCORIA_OK;
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "cdp",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS,  // Volcano's cdp takes no arguments
    .version = "1.0.0",
    .description = "Pods within their volcano.sh/cooldown-time of being bound are not victims",
    .on_create = scoria::create_instance<Instance>,
    .on_destroy = scoria::destroy_instance<Instance>,
    .on_session_open = on_session_open,
    .on_session_close = nullptr,
    .on_execute = nullptr,
    .args = nullptr,
    .arg_count = 0,
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
