// Volcano's job controller's account of a batch.volcano.sh Job, for the
// local store: its pods counted by phase and by task, and its state moved
// as the controller's pending and running states move it
// (pkg/controllers/job/state): Pending until running + succeeded + failed
// reach minAvailable, then Running; from Running, Completed once minSuccess
// pods succeeded, or once every pod has finished with enough of them
// succeeded (each task's explicit minAvailable, minSuccess, minAvailable),
// else Failed. Lifecycle policies (restarts, aborts) are not run.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "model/objects.h"

namespace scoria::serve {

/// The status of the Job `job` (as stored, with its status so far) whose
/// PodGroup asks for `min_available` pods and holds `pods`; `now` (RFC 3339)
/// stamps a change of state.
nlohmann::json job_status(const nlohmann::json& job, int32_t min_available,
                          std::span<const model::Pod* const> pods, const std::string& now);

}  // namespace scoria::serve
