#include "api/status.h"

namespace scoria::api {

namespace {

using nlohmann::json;

json details_of(std::string_view group, std::string_view plural, std::string_view name) {
  json d = {{"name", std::string(name)}, {"kind", std::string(plural)}};
  if (!group.empty()) d["group"] = std::string(group);
  return d;
}

std::string qualified(std::string_view group, std::string_view plural) {
  return group.empty() ? std::string(plural) : std::string(plural) + "." + std::string(group);
}

}  // namespace

json ApiError::status() const {
  json s = {{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", json::object()},
            {"status", "Failure"}, {"message", what()},  {"reason", reason_},
            {"code", code_}};
  if (!details_.is_null()) s["details"] = details_;
  return s;
}

json success_status(const json& details) {
  json s = {{"kind", "Status"},
            {"apiVersion", "v1"},
            {"metadata", json::object()},
            {"status", "Success"}};
  if (!details.is_null()) s["details"] = details;
  return s;
}

ApiError not_found(std::string_view group, std::string_view plural, std::string_view name) {
  return ApiError(404, "NotFound",
                  qualified(group, plural) + " \"" + std::string(name) + "\" not found",
                  details_of(group, plural, name));
}

ApiError already_exists(std::string_view group, std::string_view plural, std::string_view name) {
  return ApiError(409, "AlreadyExists",
                  qualified(group, plural) + " \"" + std::string(name) + "\" already exists",
                  details_of(group, plural, name));
}

ApiError conflict(std::string_view group, std::string_view plural, std::string_view name) {
  return ApiError(409, "Conflict",
                  "Operation cannot be fulfilled on " + qualified(group, plural) + " \"" +
                      std::string(name) +
                      "\": the object has been modified; please apply your changes to the latest "
                      "version and try again",
                  details_of(group, plural, name));
}

ApiError invalid(std::string_view group, std::string_view kind, std::string_view name,
                 std::vector<Cause> causes) {
  std::string message = std::string(kind) + " \"" + std::string(name) + "\" is invalid: ";
  json list = json::array();
  for (size_t i = 0; i < causes.size(); ++i) {
    if (i > 0) message += ", ";
    message += causes[i].field + ": " + causes[i].message;
    list.push_back(
        {{"reason", causes[i].reason}, {"message", causes[i].message}, {"field", causes[i].field}});
  }
  json details = {{"name", std::string(name)}, {"kind", std::string(kind)}, {"causes", list}};
  if (!group.empty()) details["group"] = std::string(group);
  return ApiError(422, "Invalid", message, std::move(details));
}

ApiError bad_request(const std::string& message) { return ApiError(400, "BadRequest", message); }

}  // namespace scoria::api
