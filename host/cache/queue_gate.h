// Volcano's queue-admission gate on a pod's JSON: added as Volcano's
// webhook adds it to a pod that opts in, removed as its scheduler removes
// it once the queue has room. Shared by the local API's admission, the
// local store's writes and `simulate`, so each changes a pod the same way.
#pragma once

#include <nlohmann/json.hpp>

namespace scoria::cache {

/// Adds the gate to spec.schedulingGates unless it is there; false if the
/// pod already had it (Volcano's patch is idempotent too).
bool add_queue_gate(nlohmann::json& pod);

/// Removes the gate from spec.schedulingGates, and the list when nothing
/// is left in it; false if the pod did not have it.
bool remove_queue_gate(nlohmann::json& pod);

}  // namespace scoria::cache
