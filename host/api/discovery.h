// The discovery documents clients read before anything else: /version,
// /api, /apis, /api/v1 and /apis/{group}/{version}, built from the resource
// table. Clients that ask for aggregated discovery get these plain forms
// and fall back to them, as they do against older API servers.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

namespace scoria::api {

/// The document for `path`, or nullopt when it is not a discovery path.
std::optional<nlohmann::json> discovery_document(std::string_view path);

}  // namespace scoria::api
