#include "schema/unknown_fields.h"

#include <algorithm>
#include <span>
#include <type_traits>

#include "model/suggestion.h"
#include "schema/field_schema.h"

namespace scoria::schema {

namespace {

using nlohmann::json;

/// The field of `object` that `key` is likely a mistyping of, as every
/// "did you mean" of Scoria's chooses it; empty if none is close.
std::string suggestion(const Type& object, std::string_view key) {
  std::vector<std::string> names;
  for (const Field& f : fields_of(object)) names.emplace_back(name_of(f));
  return model::closest(key, names).value_or("");
}

/// Where the walk is: a step below its parent, kept on the stack, so that
/// walking costs no allocation; a path is written only for an unknown field.
struct Step {
  const Step* parent;
  std::string_view key;
  size_t index;
  bool is_item;
};

void append_path(std::string& out, const Step* at) {
  if (at == nullptr) return;
  append_path(out, at->parent);
  if (at->is_item) {
    out += '[';
    out += std::to_string(at->index);
    out += ']';
    return;
  }
  if (!out.empty()) out += '.';
  out += at->key;
}

/// One walk over an object against its type. `J` is `const json` to find,
/// `json` to find and remove.
template <class J>
class Walker {
 public:
  static constexpr bool kRemoves = !std::is_const_v<J>;
  using Object = std::conditional_t<kRemoves, json::object_t, const json::object_t>;
  using Array = std::conditional_t<kRemoves, json::array_t, const json::array_t>;

  explicit Walker(std::vector<UnknownField>& out) : out_(out) {}

  void value(J& v, const Type& t, const Step* at) {
    switch (t.shape) {
      case Shape::kLeaf:
        return;
      case Shape::kObject:
        object(v, t, at);
        return;
      case Shape::kList:
        if (Array* items = v.template get_ptr<Array*>()) {
          const Type& item = element_of(t);
          for (size_t i = 0; i < items->size(); ++i) {
            const Step step{at, {}, i, true};
            value((*items)[i], item, &step);
          }
        }
        return;
      case Shape::kMap:
        if (Object* entries = v.template get_ptr<Object*>()) {
          const Type& entry = element_of(t);
          for (auto& [key, x] : *entries) {
            const Step step{at, key, 0, false};
            value(x, entry, &step);
          }
        }
        return;
    }
  }

 private:
  // A value of another shape than its type's is not an unknown field (the
  // decoders, or the API server's types, refuse it as the wrong type).
  void object(J& v, const Type& t, const Step* at) {
    Object* fields = v.template get_ptr<Object*>();
    if (fields == nullptr) return;
    for (auto it = fields->begin(); it != fields->end();) {
      if (const Type* known = find_field(t, it->first)) {
        const Step step{at, it->first, 0, false};
        value(it->second, *known, &step);
        ++it;
        continue;
      }
      if (out_.size() < kMaxUnknownFields) {
        const Step step{at, it->first, 0, false};
        std::string path;
        append_path(path, &step);
        out_.push_back({std::move(path), suggestion(t, it->first)});
      }
      if constexpr (kRemoves) {
        it = fields->erase(it);
      } else {
        ++it;
      }
    }
  }

  std::vector<UnknownField>& out_;
};

/// The walk of Walker<const json> over a Node (input/node_tree.h), whose
/// mappings hold their keys in the same (sorted) order.
class NodeWalker {
 public:
  explicit NodeWalker(std::vector<UnknownField>& out) : out_(out) {}

  void value(const input::Node& v, const Type& t, const Step* at) {
    switch (t.shape) {
      case Shape::kLeaf:
        return;
      case Shape::kObject:
        object(v, t, at);
        return;
      case Shape::kList: {
        const Type& item = element_of(t);
        const std::span<const input::Node> items = v.items();
        for (size_t i = 0; i < items.size(); ++i) {
          const Step step{at, {}, i, true};
          value(items[i], item, &step);
        }
        return;
      }
      case Shape::kMap: {
        const Type& entry = element_of(t);
        for (const input::NodeEntry& e : v.entries()) {
          const Step step{at, e.key, 0, false};
          value(e.value, entry, &step);
        }
        return;
      }
    }
  }

 private:
  void object(const input::Node& v, const Type& t, const Step* at) {
    for (const input::NodeEntry& e : v.entries()) {
      const Step step{at, e.key, 0, false};
      if (const Type* known = find_field(t, e.key)) {
        value(e.value, *known, &step);
      } else if (out_.size() < kMaxUnknownFields) {
        std::string path;
        append_path(path, &step);
        out_.push_back({std::move(path), suggestion(t, e.key)});
      }
    }
  }

  std::vector<UnknownField>& out_;
};

std::string_view text_of(const json& object, std::string_view key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return {};
  return it->template get_ref<const std::string&>();
}

const Type* kind_of(const json& object, std::string_view default_kind) {
  if (!object.is_object()) return nullptr;
  std::string_view kind = text_of(object, "kind");
  if (kind.empty()) kind = default_kind;
  return kind.empty() ? nullptr : find_kind(text_of(object, "apiVersion"), kind);
}

template <class J>
std::vector<UnknownField> walk(J& object, std::string_view default_kind) {
  std::vector<UnknownField> out;
  if (const Type* type = kind_of(object, default_kind))
    Walker<J>(out).value(object, *type, nullptr);
  return out;
}

std::string_view text_of(const input::Node& object, std::string_view key) {
  const input::Node* v = object.find(key);
  return v != nullptr && v->is_string() ? v->str() : std::string_view();
}

const Type* kind_of(const input::Node& object, std::string_view default_kind) {
  if (!object.is_object()) return nullptr;
  std::string_view kind = text_of(object, "kind");
  if (kind.empty()) kind = default_kind;
  return kind.empty() ? nullptr : find_kind(text_of(object, "apiVersion"), kind);
}

}  // namespace

std::optional<FieldValidation> parse_field_validation(std::string_view text) {
  if (text == "Strict") return FieldValidation::kStrict;
  if (text == "Warn") return FieldValidation::kWarn;
  if (text == "Ignore") return FieldValidation::kIgnore;
  return std::nullopt;
}

std::vector<UnknownField> find_unknown_fields(const json& object, std::string_view default_kind) {
  return walk<const json>(object, default_kind);
}

std::vector<UnknownField> find_unknown_fields(const input::Node& object,
                                              std::string_view default_kind) {
  std::vector<UnknownField> out;
  if (const Type* type = kind_of(object, default_kind))
    NodeWalker(out).value(object, *type, nullptr);
  return out;
}

std::vector<UnknownField> remove_unknown_fields(json& object, std::string_view default_kind) {
  return walk<json>(object, default_kind);
}

}  // namespace scoria::schema
