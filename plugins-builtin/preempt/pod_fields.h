// Fields of a Pod that the preempt action needs and ABI 1.0 has no typed
// accessor for, read from the Pod's JSON (host_api.task_object_json).
#ifndef SCORIA_PLUGINS_PREEMPT_POD_FIELDS_H
#define SCORIA_PLUGINS_PREEMPT_POD_FIELDS_H

#include <string>
#include <string_view>

namespace preempt {

struct PreemptorFields {
  std::string nominated_node;     // status.nominatedNodeName; empty if unset
  bool scheduling_gated = false;  // spec.schedulingGates is not empty
};

// Reads the preemptor's fields. Malformed JSON reads as all unset.
PreemptorFields read_preemptor_fields(std::string_view pod_json);

// True when the Pod is being deleted because the scheduler preempted it:
// metadata.deletionTimestamp is set and its DisruptionTarget condition is
// True with reason PreemptionByScheduler.
bool terminating_by_preemption(std::string_view pod_json);

}  // namespace preempt

#endif  // SCORIA_PLUGINS_PREEMPT_POD_FIELDS_H
