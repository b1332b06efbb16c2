// The OpenAPI v3 documents kubectl reads before it writes: the root index
// and, per group-version, one path per resource whose PATCH carries the
// resource's group-version-kind and the fieldValidation parameter. That
// tells kubectl the server validates fields itself (this one decodes every
// write), so it sends the object instead of refusing to go on without a
// schema. The schemas themselves are not published.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

namespace scoria::api {

/// The document for `path` (/openapi/v3 or /openapi/v3/{api/v1 | apis/g/v}),
/// or nullopt.
std::optional<nlohmann::json> openapi_document(std::string_view path);

}  // namespace scoria::api
