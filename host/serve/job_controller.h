// Volcano's job controller, for the local store: a batch.volcano.sh Job
// written through the API is kept as it is (kubectl gets, lists and deletes
// it) and its PodGroup and Pods are created with it, owned by it, as
// decode/volcano_job.h expands them; deleting the Job deletes them, as
// Kubernetes' garbage collector would. Its status is kept after each
// session as the controller keeps it (job_status.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "store/object_store.h"

namespace scoria::serve {

/// The PodGroup and Pods of `job`, their tasks ordered by the stored
/// PriorityClasses' values. Throws FieldError (or InputError) naming the
/// field of a Job Volcano's admission refuses; `origin` names the input.
std::vector<nlohmann::json> job_objects(const nlohmann::json& job, store::ObjectStore& store,
                                        std::string_view origin, int document = 1);

/// What the stored Job `job` owns: its PodGroup and Pods, as (kind, key).
std::vector<std::pair<std::string, std::string>> owned_by_job(const nlohmann::json& job,
                                                              store::ObjectStore& store);

}  // namespace scoria::serve
