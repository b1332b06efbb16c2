// A Volcano batch.volcano.sh/v1alpha1 Job, expanded as Volcano's job
// controller (with its admission webhook's defaults and checks) expands it,
// as far as scheduling goes: one PodGroup named after the job, and one Pod
// per replica of each task, named JOB-TASK-INDEX (DESIGN.md section 4).
//
// The PodGroup: minMember is spec.minAvailable (by default the sum of the
// tasks' minAvailable), minTaskMember each task's minAvailable (by default
// its replicas), the job's queue ("default"), priorityClassName, and
// minResources as the controller's calcPGMinResources sums them (tasks by
// their PriorityClass value, highest first; ties in the job's order, where
// Go's sort leaves them unordered). Each Pod: the task's template, the
// job's schedulerName ("volcano") and priorityClassName where the template
// names none, and the labels and annotations the controller sets
// (volcano.sh/job-name, volcano.sh/task-spec, volcano.sh/task-index,
// scheduling.k8s.io/group-name, ...). A task's partitionPolicy (Volcano
// HEAD) gives its pods volcano.sh/partition-id (index / partitionSize) and
// the PodGroup a subGroupPolicy entry for the task, with the task's
// minAvailable defaulting to minPartitions x partitionSize; the Job's
// networkTopology becomes the PodGroup's. Policies, plugins (ssh, svc, env),
// volumes and retries belong to the controller's running of the job, not
// to where its pods go, and are not read.
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "decode/field_reader.h"

namespace scoria::decode {

inline constexpr std::string_view kVolcanoJobApiVersion = "batch.volcano.sh/v1alpha1";

/// Whether `object` is a Volcano Job (kind Job of batch.volcano.sh).
bool is_volcano_job(const Node& object);
bool is_volcano_job(const Json& object);

/// The PodGroup then the Pods of the Job `job` (at `root` of what `r`
/// reads), as objects in the Kubernetes shape. `priority_of` gives a
/// PriorityClass's value (0 if unknown), for the order minResources is
/// summed in. Throws through `r`, naming the field and the fix, for a Job
/// Volcano's admission refuses.
std::vector<Json> expand_volcano_job(const FieldReader& r, const Node& job, const FieldPath& root,
                                     const std::function<int32_t(const std::string&)>& priority_of);
std::vector<Json> expand_volcano_job(const FieldReader& r, const Json& job, const FieldPath& root,
                                     const std::function<int32_t(const std::string&)>& priority_of);

}  // namespace scoria::decode
