// What the preempt action reads of a Pod beyond the typed accessors, from the
// Pod's JSON (host_api.task_object_json).
#ifndef SCORIA_PLUGINS_PREEMPT_POD_FIELDS_H
#define SCORIA_PLUGINS_PREEMPT_POD_FIELDS_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace preempt {

// True when the Pod is being deleted because the scheduler preempted it:
// metadata.deletionTimestamp is set and its DisruptionTarget condition is
// True with reason PreemptionByScheduler.
bool terminating_by_preemption(std::string_view pod_json);

// status.startTime in milliseconds since the epoch; nullopt when the Pod has
// none (not started yet) or it is not an RFC 3339 time (`malformed` set).
std::optional<int64_t> start_time_ms(std::string_view pod_json, bool& malformed);

}  // namespace preempt

#endif  // SCORIA_PLUGINS_PREEMPT_POD_FIELDS_H
