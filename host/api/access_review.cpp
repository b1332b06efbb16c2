#include "api/access_review.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "api/resources.h"
#include "api/status.h"

namespace scoria::api {

namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 3> kReads{"get", "list", "watch"};

bool is_read(std::string_view verb) {
  return std::find(kReads.begin(), kReads.end(), verb) != kReads.end();
}

// The verbs a resource or one of its subresources is served with, as
// discovery lists them.
std::span<const std::string_view> verbs_of(std::string_view subresource) {
  return subresource.empty() ? resource_verbs() : subresource_verbs(subresource);
}

struct Answer {
  bool allowed = false;
  std::string reason;
};

Answer writes_need_token(bool may_write) {
  if (may_write) return {true, ""};
  return {false, "writes need the bearer token of scoria serve (Authorization: Bearer TOKEN)"};
}

Answer resource_answer(const json& a, bool may_write) {
  const std::string verb = a.value("verb", "");
  const std::string group = a.value("group", "");
  const std::string plural = a.value("resource", "");
  const std::string subresource = a.value("subresource", "");
  if (verb.empty()) return {false, "no verb asked about"};
  if (plural == "*") {
    // Every resource: what holds for all of them.
    if (is_read(verb)) return {true, ""};
    const auto all = resource_verbs();
    if (verb == "*" || std::find(all.begin(), all.end(), verb) != all.end())
      return writes_need_token(may_write);
    return {false, "this server does not serve the verb \"" + verb + "\""};
  }
  // The review itself is a create that anyone may make.
  if (group == "authorization.k8s.io" && plural == "selfsubjectaccessreviews" &&
      subresource.empty()) {
    if (verb == "create") return {true, ""};
    return {false, "selfsubjectaccessreviews are only created"};
  }
  const Resource* found = nullptr;
  for (const Resource& r : resources())
    if (r.group == group && r.plural == plural &&
        (a.value("version", "").empty() || r.version == a.value("version", "")))
      found = &r;
  const std::string named = group.empty() ? plural : plural + "." + group;
  if (found == nullptr) return {false, "this server does not serve " + named};
  if (!subresource.empty() && !api::has_subresource(*found, subresource))
    return {false, "this server does not serve " + named + "/" + subresource};
  const std::span<const std::string_view> verbs = verbs_of(subresource);
  if (verb == "*") {
    const bool writes =
        std::any_of(verbs.begin(), verbs.end(), [](std::string_view v) { return !is_read(v); });
    return writes ? writes_need_token(may_write) : Answer{true, ""};
  }
  if (std::find(verbs.begin(), verbs.end(), verb) == verbs.end()) {
    return {false, "this server does not serve the verb \"" + verb + "\" on " + named +
                       (subresource.empty() ? "" : "/" + subresource)};
  }
  return is_read(verb) ? Answer{true, ""} : writes_need_token(may_write);
}

// The paths outside resources that serve answers, all read with GET.
Answer path_answer(const json& a) {
  const std::string verb = a.value("verb", "");
  const std::string path = a.value("path", "");
  const bool served = path == "/version" || path == "/api" || path == "/apis" ||
                      path == "/healthz" || path == "/readyz" || path == "/metrics" ||
                      path.starts_with("/api/") || path.starts_with("/apis/") ||
                      path == "/openapi/v2" || path == "/openapi/v3" ||
                      path.starts_with("/openapi/v3/");
  if (!served) return {false, "this server does not serve the path " + path};
  if (verb != "get") return {false, "the path " + path + " is only read (get)"};
  return {true, ""};
}

}  // namespace

json review_access(json review, bool may_write) {
  if (!review.is_object()) throw bad_request("the request body must hold exactly one object");
  const json spec = review.value("spec", json::object());
  const json resource = spec.is_object() ? spec.value("resourceAttributes", json()) : json();
  const json path = spec.is_object() ? spec.value("nonResourceAttributes", json()) : json();
  if (resource.is_object() == path.is_object()) {
    throw invalid("authorization.k8s.io", "SelfSubjectAccessReview", "",
                  {{"FieldValueInvalid",
                    "exactly one of nonResourceAttributes or resourceAttributes must be specified",
                    "spec.resourceAttributes"}});
  }
  const Answer a = resource.is_object() ? resource_answer(resource, may_write) : path_answer(path);
  json status = {{"allowed", a.allowed}};
  if (!a.reason.empty()) status["reason"] = a.reason;
  review["status"] = status;
  review["apiVersion"] = "authorization.k8s.io/v1";
  review["kind"] = "SelfSubjectAccessReview";
  if (!review.contains("metadata") || !review["metadata"].is_object())
    review["metadata"] = json::object();
  return review;
}

}  // namespace scoria::api
