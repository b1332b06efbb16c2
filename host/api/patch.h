// The three patch types kubectl and client libraries send:
//   application/merge-patch+json            RFC 7386
//   application/json-patch+json             RFC 6902
//   application/strategic-merge-patch+json  Kubernetes' strategic merge:
//       lists with a merge key (containers by name, conditions by type, ...)
//       merged item by item, and the $patch, $setElementOrder,
//       $deleteFromPrimitiveList and $retainKeys directives that
//       `kubectl apply` writes.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

namespace scoria::api {

enum class PatchType { Merge, Json, StrategicMerge };

/// Whether a Content-Type is server-side apply's (application/apply-patch+yaml),
/// which api/server_side_apply.h answers.
bool is_apply_patch(std::string_view content_type);

/// The patch type of a Content-Type; throws ApiError (415) for another.
PatchType patch_type(std::string_view content_type);

/// `target` with `patch` applied; throws ApiError (400 or 422) when the
/// patch does not apply.
nlohmann::json apply_patch(const nlohmann::json& target, const nlohmann::json& patch,
                           PatchType type);

}  // namespace scoria::api
