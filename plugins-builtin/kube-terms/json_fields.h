// Reading the fields of a Kubernetes object as JSON, where an absent, null
// or mistyped field reads as its default (the host has refused objects whose
// fields do not validate).
#ifndef SCORIA_KUBE_TERMS_JSON_FIELDS_H
#define SCORIA_KUBE_TERMS_JSON_FIELDS_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace kube {

// The field `key` of `object`; null when `object` is no object or the field
// is absent or null.
inline const nlohmann::json* member(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

inline std::string text(const nlohmann::json* value, std::string_view def = {}) {
  return value != nullptr && value->is_string() ? value->get<std::string>() : std::string(def);
}

inline int32_t integer(const nlohmann::json* value, int32_t def) {
  return value != nullptr && value->is_number_integer() ? value->get<int32_t>() : def;
}

}  // namespace kube

#endif
