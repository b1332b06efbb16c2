// What the API refuses at create time because a real cluster's admission
// would: Kubernetes' Priority admission refuses a pod naming a
// PriorityClass that does not exist and a second globalDefault
// PriorityClass, and Volcano's PodGroup webhook refuses
// a PodGroup whose queue does not exist or is not open. Everything else that
// names a missing object is stored and waits (the scheduler writes why on
// its PodGroup), as in a cluster: a pod naming a PodGroup not created yet,
// a PodGroup or Queue deleted while still named.
#pragma once

#include <nlohmann/json.hpp>

#include "api/resources.h"
#include "store/object_store.h"

namespace scoria::serve {

/// Throws api::ApiError (403 Forbidden, the message a cluster gives) when
/// `object`, about to be created as `r`, would be refused by admission.
void admit_create(const api::Resource& r, const nlohmann::json& object, store::ObjectStore& store);

/// What a pod being created is given before it is stored: Volcano's pod
/// webhook, with `queue_admission_gates` (SchedulingGatesQueueAdmission),
/// adds the queue-allocation gate (once) to a pod annotated
/// scheduling.volcano.sh/queue-allocation-gate: "true"; then, as
/// kube-apiserver's pod strategy, a pod with scheduling gates and no
/// PodScheduled condition gets PodScheduled=False, reason SchedulingGated.
void prepare_pod(nlohmann::json& pod, bool queue_admission_gates);

}  // namespace scoria::serve
