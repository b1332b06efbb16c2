// The dryRun option of every write, as the API server reads it: a request
// that names `dryRun=All` (in its query, or in the DeleteOptions a delete or
// an eviction carries) is validated and answered as if it were done, and
// nothing is stored, logged, watched or scheduled.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

namespace scoria::api {

/// Whether the request's query asks for a dry run. Throws ApiError (422, as
/// the API server words it for `options_kind`: CreateOptions,
/// UpdateOptions, PatchOptions or DeleteOptions) for a value but "All".
bool requested_dry_run(std::string_view query, std::string_view options_kind);

/// The same for a DeleteOptions object's `dryRun` list (absent: false).
bool requested_dry_run(const nlohmann::json& delete_options);

}  // namespace scoria::api
