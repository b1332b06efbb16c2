// What kube-apiserver lets an update (PUT or PATCH of the main resource)
// change in a pod: its spec is fixed once created, but for container and
// init container images, activeDeadlineSeconds, added tolerations and
// removed scheduling gates (ValidatePodUpdate). A pod is bound through
// pods/binding, never by writing spec.nodeName.
#pragma once

#include <nlohmann/json.hpp>

namespace scoria::api {

/// Throws ApiError 422 (kube-apiserver's words) when `next` changes what
/// an update may not change in the stored pod `previous`.
void check_pod_update(const nlohmann::json& next, const nlohmann::json& previous);

}  // namespace scoria::api
