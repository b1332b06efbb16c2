// The OpenAPI documents kubectl and client libraries read: v3's index
// (/openapi/v3) and one document per group-version (/openapi/v3/api/v1,
// /openapi/v3/apis/<group>/<version>), and v2's single document
// (/openapi/v2, JSON). Each holds, per resource, its paths (whose PATCH
// carries the resource's group-version-kind and the fieldValidation
// parameter, which tells kubectl the server validates fields itself) and
// the schema of every kind served, made from the field schema
// (openapi_schema.h): what `kubectl explain` and clients' validation read.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

namespace scoria::api {

/// The document for `path` (/openapi/v2, /openapi/v3 or
/// /openapi/v3/{api/v1 | apis/g/v}), or nullopt.
std::optional<nlohmann::json> openapi_document(std::string_view path);

/// Whether an Accept header takes the JSON /openapi/v2 is written in
/// (kubectl asks for protobuf alone, and falls back when refused with 406).
bool accepts_openapi_json(std::string_view accept);

}  // namespace scoria::api
