#include "api/openapi.h"

#include <string>
#include <vector>

#include "api/media_type.h"
#include "api/openapi_schema.h"
#include "api/resources.h"

namespace scoria::api {

namespace {

using nlohmann::json;

std::string gv_path(const Resource& r) {
  return r.group.empty() ? "api/v1" : "apis/" + std::string(r.group) + "/" + std::string(r.version);
}

json gvk_of(const Resource& r) {
  return {{"group", std::string(r.group)},
          {"version", std::string(r.version)},
          {"kind", std::string(r.kind)}};
}

json field_validation_param(OpenApiVersion v) {
  json p = {{"name", "fieldValidation"},
            {"in", "query"},
            {"description", "Strict, Warn or Ignore"},
            {"uniqueItems", true}};
  if (v == OpenApiVersion::kV2)
    p["type"] = "string";
  else
    p["schema"] = {{"type", "string"}, {"uniqueItems", true}};
  return p;
}

/// GET answers the kind; PATCH carries the group-version-kind and the
/// fieldValidation parameter.
json operations(const Resource& r, OpenApiVersion v) {
  json ok = {{"description", "OK"}};
  if (json ref = openapi_kind_ref(r, v); !ref.is_null()) {
    if (v == OpenApiVersion::kV2)
      ok["schema"] = ref;
    else
      ok["content"] = {{"application/json", {{"schema", ref}}}};
  }
  json get = {{"x-kubernetes-group-version-kind", gvk_of(r)},
              {"x-kubernetes-action", "get"},
              {"responses", {{"200", ok}}}};
  json patch = {{"x-kubernetes-group-version-kind", gvk_of(r)},
                {"x-kubernetes-action", "patch"},
                {"parameters", json::array({field_validation_param(v)})},
                {"responses", {{"200", ok}}}};
  return {{"get", std::move(get)}, {"patch", std::move(patch)}};
}

std::string object_path(const Resource& r) {
  return "/" + gv_path(r) + "/" +
         (r.namespaced ? std::string("namespaces/{namespace}/") : std::string()) +
         std::string(r.plural) + "/{name}";
}

json document(std::span<const Resource* const> served, OpenApiVersion v) {
  json paths = json::object();
  for (const Resource* r : served) paths[object_path(*r)] = operations(*r, v);
  if (v == OpenApiVersion::kV2)
    return json{{"swagger", "2.0"},
                {"info", {{"title", "Scoria"}, {"version", "v1.32.0+scoria"}}},
                {"paths", std::move(paths)},
                {"definitions", openapi_definitions(served, v)}};
  return json{{"openapi", "3.0.0"},
              {"info", {{"title", "Scoria"}, {"version", "v1.32.0+scoria"}}},
              {"paths", std::move(paths)},
              {"components", {{"schemas", openapi_definitions(served, v)}}}};
}

}  // namespace

std::optional<json> openapi_document(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  std::vector<const Resource*> served;
  if (path == "/openapi/v2") {
    for (const Resource& r : resources()) served.push_back(&r);
    return document(served, OpenApiVersion::kV2);
  }
  if (path == "/openapi/v3") {
    json paths = json::object();
    for (const Resource& r : resources())
      paths[gv_path(r)] = {{"serverRelativeURL", "/openapi/v3/" + gv_path(r)}};
    return json{{"paths", paths}};
  }
  if (!path.starts_with("/openapi/v3/")) return std::nullopt;
  const std::string_view gv = path.substr(12);
  for (const Resource& r : resources())
    if (gv_path(r) == gv) served.push_back(&r);
  if (served.empty()) return std::nullopt;
  return document(served, OpenApiVersion::kV3);
}

bool accepts_openapi_json(std::string_view accept) {
  if (accept.empty()) return true;
  // Each listed type read as a Content-Type is (case and parameters aside).
  while (!accept.empty()) {
    const size_t comma = accept.find(',');
    const std::string type = media_type(accept.substr(0, comma));
    if (type == "application/json" || type == "*/*" || type == "application/*") return true;
    accept = comma == std::string_view::npos ? std::string_view() : accept.substr(comma + 1);
  }
  return false;
}

}  // namespace scoria::api
