#include "api/openapi_schema.h"

#include <algorithm>
#include <string>
#include <vector>

#include "schema/field_schema.h"

namespace scoria::api {

namespace {

using nlohmann::json;
using schema::Scalar;
using schema::Shape;
using schema::Type;

constexpr std::string_view kQuantity = "io.k8s.apimachinery.pkg.api.resource.Quantity";
constexpr std::string_view kIntOrString = "io.k8s.apimachinery.pkg.util.intstr.IntOrString";

std::string ref_to(std::string_view name, OpenApiVersion v) {
  return (v == OpenApiVersion::kV2 ? "#/definitions/" : "#/components/schemas/") +
         std::string(name);
}

/// A field's reference to a definition: v3 wraps it in allOf, as the API
/// server does (so that a field may carry its own keywords beside it).
json reference(std::string_view name, OpenApiVersion v) {
  if (v == OpenApiVersion::kV2) return {{"$ref", ref_to(name, v)}};
  return {{"allOf", json::array({{{"$ref", ref_to(name, v)}}})}};
}

class Builder {
 public:
  explicit Builder(OpenApiVersion v) : v_(v) {}

  /// The schema of a value of type `t`; named types are defined once and
  /// referred to.
  json schema_of(const Type& t) {
    switch (t.shape) {
      case Shape::kLeaf:
        return scalar(schema::scalar_of(t));
      case Shape::kList:
        return list(t);
      case Shape::kMap: {
        json out = {{"type", "object"}, {"additionalProperties", schema_of(schema::element_of(t))}};
        if (schema::is_atomic(t)) out["x-kubernetes-map-type"] = "atomic";
        return out;
      }
      case Shape::kObject:
        break;
    }
    const std::string_view name = schema::definition_name(t);
    if (name.empty()) return object(t);
    define(name, t);
    return reference(name, v_);
  }

  /// Makes sure `name` is defined as `t`.
  void define(std::string_view name, const Type& t) {
    const std::string key(name);
    if (definitions_.contains(key)) return;
    definitions_[key] = json::object();  // placed first: recursive types end here
    definitions_[key] = object(t);
  }

  json& definitions() { return definitions_; }

 private:
  json scalar(Scalar s) {
    switch (s) {
      case Scalar::kString:
        return {{"type", "string"}};
      case Scalar::kDateTime:
        return {{"type", "string"}, {"format", "date-time"}};
      case Scalar::kInteger:
        return {{"type", "integer"}};
      case Scalar::kInt32:
        return {{"type", "integer"}, {"format", "int32"}};
      case Scalar::kInt64:
        return {{"type", "integer"}, {"format", "int64"}};
      case Scalar::kNumber:
        return {{"type", "number"}, {"format", "double"}};
      case Scalar::kBoolean:
        return {{"type", "boolean"}};
      case Scalar::kByte:
        return {{"type", "string"}, {"format", "byte"}};
      case Scalar::kQuantity:
        shared(kQuantity, "string", "number", "");
        return reference(kQuantity, v_);
      case Scalar::kIntOrString:
        shared(kIntOrString, "integer", "string", "int-or-string");
        return reference(kIntOrString, v_);
      case Scalar::kObject:
        return {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}};
      case Scalar::kUntyped:
        break;
    }
    return json::object();
  }

  /// Quantity and IntOrString as the API server defines them: v2 a string
  /// (of format int-or-string), v3 one of their two types.
  void shared(std::string_view name, const char* first, const char* second, const char* format) {
    const std::string key(name);
    if (definitions_.contains(key)) return;
    json d = json::object();
    if (v_ == OpenApiVersion::kV2) {
      d["type"] = "string";
    } else {
      d["oneOf"] = json::array({{{"type", first}}, {{"type", second}}});
    }
    if (*format != '\0') d["format"] = format;
    definitions_[key] = std::move(d);
  }

  json list(const Type& t) {
    json out = {{"type", "array"}, {"items", schema_of(schema::element_of(t))}};
    switch (schema::list_type_of(t)) {
      case schema::ListType::kAtomic:
        out["x-kubernetes-list-type"] = "atomic";
        break;
      case schema::ListType::kSet:
        out["x-kubernetes-list-type"] = "set";
        out["x-kubernetes-patch-strategy"] = "merge";
        break;
      case schema::ListType::kMap: {
        out["x-kubernetes-list-type"] = "map";
        json keys = json::array();
        for (const schema::ListKey& k : schema::list_keys_of(t))
          keys.push_back(std::string(k.name));
        if (!keys.empty()) {
          out["x-kubernetes-patch-merge-key"] = keys[0];
          out["x-kubernetes-patch-strategy"] = "merge";
        }
        out["x-kubernetes-list-map-keys"] = std::move(keys);
        break;
      }
    }
    return out;
  }

  json object(const Type& t) {
    json out = {{"type", "object"}};
    json properties = json::object();
    json required = json::array();
    for (const schema::Field& f : schema::fields_of(t)) {
      const std::string name(schema::name_of(f));
      properties[name] = schema_of(schema::table().types[f.type]);
      if (f.required != 0) required.push_back(name);
    }
    if (!properties.empty()) out["properties"] = std::move(properties);
    if (!required.empty()) out["required"] = std::move(required);
    if (schema::is_atomic(t)) out["x-kubernetes-map-type"] = "atomic";
    return out;
  }

  OpenApiVersion v_;
  json definitions_ = json::object();
};

}  // namespace

json openapi_definitions(std::span<const Resource* const> served, OpenApiVersion v) {
  Builder b(v);
  for (const Resource* r : served) {
    const Type* root = schema::find_kind(api_version(*r), r->kind);
    if (root == nullptr) continue;
    const std::string_view name = schema::definition_name(*root);
    if (name.empty()) continue;
    b.define(name, *root);
    json& d = b.definitions()[std::string(name)];
    json gvk = {{"group", std::string(r->group)},
                {"kind", std::string(r->kind)},
                {"version", std::string(r->version)}};
    json& list = d["x-kubernetes-group-version-kind"];
    if (!list.is_array()) list = json::array();
    if (std::find(list.begin(), list.end(), gvk) == list.end()) list.push_back(std::move(gvk));
  }
  return std::move(b.definitions());
}

json openapi_kind_ref(const Resource& r, OpenApiVersion v) {
  const Type* root = schema::find_kind(api_version(r), r.kind);
  if (root == nullptr || schema::definition_name(*root).empty()) return nullptr;
  return {{"$ref", ref_to(schema::definition_name(*root), v)}};
}

}  // namespace scoria::api
