#include "api/openapi.h"

#include <string>

#include "api/resources.h"

namespace scoria::api {

namespace {

using nlohmann::json;

std::string gv_path(const Resource& r) {
  return r.group.empty() ? "api/v1" : "apis/" + std::string(r.group) + "/" + std::string(r.version);
}

json operation(const Resource& r) {
  const json param = {{"name", "fieldValidation"},
                      {"in", "query"},
                      {"description", "Strict, Warn or Ignore"},
                      {"schema", {{"type", "string"}, {"uniqueItems", true}}}};
  return {{"x-kubernetes-group-version-kind",
           {{"group", std::string(r.group)},
            {"version", std::string(r.version)},
            {"kind", std::string(r.kind)}}},
          {"parameters", json::array({param})},
          {"responses", {{"200", {{"description", "OK"}}}}}};
}

}  // namespace

std::optional<json> openapi_document(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  if (path == "/openapi/v3") {
    json paths = json::object();
    for (const Resource& r : resources())
      paths[gv_path(r)] = {{"serverRelativeURL", "/openapi/v3/" + gv_path(r)}};
    return json{{"paths", paths}};
  }
  if (!path.starts_with("/openapi/v3/")) return std::nullopt;
  const std::string_view gv = path.substr(12);
  json paths = json::object();
  for (const Resource& r : resources()) {
    if (gv_path(r) != gv) continue;
    const std::string base = "/" + gv_path(r) + "/" +
                             (r.namespaced ? std::string("namespaces/{namespace}/") : "") +
                             std::string(r.plural) + "/{name}";
    paths[base] = {{"patch", operation(r)}};
  }
  if (paths.empty()) return std::nullopt;
  return json{{"openapi", "3.0.0"},
              {"info", {{"title", "Scoria"}, {"version", "v1.32.0+scoria"}}},
              {"paths", paths},
              {"components", {{"schemas", json::object()}}}};
}

}  // namespace scoria::api
