// What the preempt action reads of a Pod beyond the typed accessors, from the
// Pod's JSON (host_api.task_object_json).
#ifndef SCORIA_PLUGINS_PREEMPT_POD_FIELDS_H
#define SCORIA_PLUGINS_PREEMPT_POD_FIELDS_H

#include <string>
#include <string_view>

namespace preempt {

// True when the Pod is being deleted because the scheduler preempted it:
// metadata.deletionTimestamp is set and its DisruptionTarget condition is
// True with reason PreemptionByScheduler.
bool terminating_by_preemption(std::string_view pod_json);

}  // namespace preempt

#endif  // SCORIA_PLUGINS_PREEMPT_POD_FIELDS_H
