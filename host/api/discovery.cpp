#include "api/discovery.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "api/resources.h"

namespace scoria::api {

namespace {

using nlohmann::json;

json version_document() {
  // The Kubernetes API version whose conventions this server follows.
  return {{"major", "1"},
          {"minor", "32"},
          {"gitVersion", "v1.32.0+scoria"},
          {"gitCommit", ""},
          {"gitTreeState", "clean"},
          {"buildDate", "1970-01-01T00:00:00Z"},
          {"goVersion", "none (scoria is C++)"},
          {"compiler", "scoria"},
          {"platform", "linux/amd64"}};
}

json group_list() {
  // Each group once, its versions in the table's order; the first is the
  // preferred one (scheduling.k8s.io: v1, as kube-apiserver prefers it).
  json groups = json::array();
  std::vector<std::string_view> names;
  std::set<std::string> seen;
  for (const Resource& r : resources()) {
    if (r.group.empty() || !seen.insert(api_version(r)).second) continue;
    const json version = {{"groupVersion", api_version(r)}, {"version", std::string(r.version)}};
    const auto at = std::find(names.begin(), names.end(), r.group);
    if (at != names.end()) {
      groups[static_cast<size_t>(at - names.begin())]["versions"].push_back(version);
      continue;
    }
    names.push_back(r.group);
    groups.push_back({{"name", std::string(r.group)},
                      {"versions", json::array({version})},
                      {"preferredVersion", version}});
  }
  // Reviews are asked, never stored: kubectl auth can-i.
  const json reviews = {{"groupVersion", "authorization.k8s.io/v1"}, {"version", "v1"}};
  groups.push_back({{"name", "authorization.k8s.io"},
                    {"versions", json::array({reviews})},
                    {"preferredVersion", reviews}});
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}};
}

json review_list() {
  const json review = {{"name", "selfsubjectaccessreviews"},
                       {"singularName", "selfsubjectaccessreview"},
                       {"namespaced", false},
                       {"kind", "SelfSubjectAccessReview"},
                       {"verbs", json::array({"create"})},
                       {"storageVersionHash", ""}};
  return {{"kind", "APIResourceList"},
          {"apiVersion", "v1"},
          {"groupVersion", "authorization.k8s.io/v1"},
          {"resources", json::array({review})}};
}

json resource_list(std::string_view group, std::string_view version) {
  if (group == "authorization.k8s.io" && version == "v1") return review_list();
  json list = json::array();
  bool any = false;
  for (const Resource& r : resources()) {
    if (r.group != group || r.version != version) continue;
    any = true;
    json verbs = json::array();
    for (std::string_view v : resource_verbs()) verbs.push_back(std::string(v));
    json entry = {{"name", std::string(r.plural)},
                  {"singularName", std::string(r.singular)},
                  {"namespaced", r.namespaced},
                  {"kind", std::string(r.kind)},
                  {"verbs", verbs},
                  {"storageVersionHash", ""}};
    if (!r.short_names.empty()) {
      json names = json::array();
      for (std::string_view n : r.short_names) names.push_back(std::string(n));
      entry["shortNames"] = names;
    }
    if (r.group == "scheduling.volcano.sh") entry["categories"] = json::array({"all"});
    if (r.kind == "Pod" || r.kind == "Node") entry["categories"] = json::array({"all"});
    list.push_back(std::move(entry));
    for (std::string_view sub : r.subresources) {
      json sub_verbs = json::array();
      for (std::string_view v : subresource_verbs(sub)) sub_verbs.push_back(std::string(v));
      std::string kind(r.kind);
      if (sub == "binding") kind = "Binding";
      if (sub == "eviction") kind = "Eviction";
      json sub_entry = {{"name", std::string(r.plural) + "/" + std::string(sub)},
                        {"singularName", ""},
                        {"namespaced", r.namespaced},
                        {"kind", kind},
                        {"verbs", sub_verbs}};
      // An Eviction is policy/v1's, not its pod's group: kubectl drain
      // evicts only where discovery says so, and deletes otherwise.
      if (sub == "eviction") {
        sub_entry["group"] = "policy";
        sub_entry["version"] = "v1";
      }
      list.push_back(std::move(sub_entry));
    }
  }
  if (!any) return nullptr;
  const std::string gv =
      group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version);
  return {
      {"kind", "APIResourceList"}, {"apiVersion", "v1"}, {"groupVersion", gv}, {"resources", list}};
}

}  // namespace

std::optional<json> discovery_document(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  if (path == "/version") return version_document();
  if (path == "/api") {
    return json{{"kind", "APIVersions"},
                {"versions", json::array({"v1"})},
                {"serverAddressByClientCIDRs",
                 json::array({{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", ""}}})}};
  }
  if (path == "/apis") return group_list();
  if (path == "/api/v1") return resource_list("", "v1");
  if (path.starts_with("/apis/")) {
    const std::string_view rest = path.substr(6);
    const size_t slash = rest.find('/');
    if (slash == std::string_view::npos) {
      // /apis/{group}: the group alone. The list is bound first: a range
      // over a member of a temporary would outlive the temporary.
      const json groups = group_list();
      for (const json& g : groups["groups"])
        if (g["name"] == rest) {
          json out = g;
          out["kind"] = "APIGroup";
          out["apiVersion"] = "v1";
          return out;
        }
      return std::nullopt;
    }
    const std::string_view group = rest.substr(0, slash);
    const std::string_view version = rest.substr(slash + 1);
    if (version.find('/') != std::string_view::npos) return std::nullopt;
    json list = resource_list(group, version);
    if (list.is_null()) return std::nullopt;
    return list;
  }
  return std::nullopt;
}

}  // namespace scoria::api
