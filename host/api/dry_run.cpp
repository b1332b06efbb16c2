#include "api/dry_run.h"

#include <algorithm>
#include <string>
#include <vector>

#include "api/field_validation.h"
#include "api/request_path.h"
#include "api/status.h"

namespace scoria::api {

namespace {

using nlohmann::json;

/// The API server accepts only "All" (apimachinery's ValidateDryRun); any
/// other value refuses the request whole.
bool dry_run_of(const std::vector<std::string>& values, std::string_view options_kind) {
  if (std::all_of(values.begin(), values.end(), [](const std::string& v) { return v == "All"; }))
    return !values.empty();
  std::string listed;
  for (const std::string& each : values) listed += (listed.empty() ? "" : ", ") + go_quote(each);
  throw unsupported_option(options_kind, "dryRun", "[]string{" + listed + "}", "\"All\"");
}

}  // namespace

bool requested_dry_run(std::string_view query, std::string_view options_kind) {
  std::vector<std::string> values = query_params(query, "dryRun");
  std::erase(values, std::string());
  return dry_run_of(values, options_kind);
}

bool requested_dry_run(const json& delete_options) {
  if (!delete_options.is_object()) return false;
  const auto it = delete_options.find("dryRun");
  if (it == delete_options.end() || it->is_null()) return false;
  if (!it->is_array()) throw bad_request("DeleteOptions.dryRun: a list of strings is expected");
  std::vector<std::string> values;
  for (const json& v : *it) {
    if (!v.is_string()) throw bad_request("DeleteOptions.dryRun: a list of strings is expected");
    values.push_back(v.get<std::string>());
  }
  return dry_run_of(values, "DeleteOptions");
}

}  // namespace scoria::api
