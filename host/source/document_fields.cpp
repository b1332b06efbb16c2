#include "source/document_fields.h"

#include "decode/field_reader.h"
#include "decode/object_decoder.h"
#include "schema/unknown_fields.h"

namespace scoria::source {

namespace {

using nlohmann::json;

std::string_view text_at(const json& object, std::string_view key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return {};
  return it->get_ref<const std::string&>();
}

std::string_view text_at(const input::Node& object, std::string_view key) {
  const input::Node* v = object.find(key);
  return v != nullptr && v->is_string() ? v->str() : std::string_view();
}

/// The value of `key` in `object`, or nullptr.
json* member(json& object, std::string_view key) {
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}
const json* member(const json& object, std::string_view key) {
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}
const input::Node* member(const input::Node& object, std::string_view key) {
  return object.find(key);
}

/// Calls f(object, default kind, "items[i]." or "") for each object of `doc`.
template <class J, class F>
void each_object(J& doc, F&& f) {
  if (!doc.is_object()) return;
  const std::string_view kind = text_at(doc, "kind");
  if (!kind.ends_with("List")) {
    f(doc, std::string_view(), std::string());
    return;
  }
  auto* items = member(doc, "items");
  if (items == nullptr || !items->is_array()) return;
  const std::string_view item_kind = kind.substr(0, kind.size() - 4);
  for (size_t i = 0; i < items->size(); ++i)
    f((*items)[i], item_kind, "items[" + std::to_string(i) + "].");
}

/// "Pod default/web-0", as decoders name objects in their messages.
template <class J>
std::string label_of(const J& object, std::string_view default_kind) {
  std::string_view kind = text_at(object, "kind");
  if (kind.empty()) kind = default_kind;
  std::string name;
  if (const auto* meta = member(object, "metadata"); meta != nullptr && meta->is_object()) {
    name = text_at(*meta, "name");
    const decode::KindInfo* info = decode::find_kind(kind);
    // Every kind the decoders know but a Volcano Job says whether it is namespaced.
    if (info == nullptr ? kind == "Job" : info->namespaced) {
      const std::string_view ns = text_at(*meta, "namespace");
      name = std::string(ns.empty() ? "default" : ns) + "/" + name;
    }
  }
  return decode::object_label(kind, name);
}

template <class J>
std::vector<std::string> field_messages(const J& doc, std::string_view origin, int number) {
  std::vector<std::string> out;
  each_object(doc, [&](const J& object, std::string_view default_kind, const std::string& at) {
    const std::vector<schema::UnknownField> unknown =
        schema::find_unknown_fields(object, default_kind);
    if (unknown.empty()) return;
    const std::string where = std::string(origin) + ": document " + std::to_string(number) + " (" +
                              label_of(object, default_kind) + "): unknown field ";
    for (const schema::UnknownField& u : unknown) {
      std::string message = where + decode::quote(at + u.path) + "; remove it or correct its name";
      if (!u.suggestion.empty()) message += " (did you mean " + decode::quote(u.suggestion) + "?)";
      out.push_back(std::move(message));
    }
  });
  return out;
}

}  // namespace

std::vector<std::string> unknown_field_messages(const json& doc, std::string_view origin,
                                                int number) {
  return field_messages(doc, origin, number);
}

std::vector<std::string> unknown_field_messages(const input::Node& doc, std::string_view origin,
                                                int number) {
  return field_messages(doc, origin, number);
}

void remove_unknown_fields(json& doc) {
  each_object(doc, [](json& object, std::string_view default_kind, const std::string&) {
    schema::remove_unknown_fields(object, default_kind);
  });
}

}  // namespace scoria::source
