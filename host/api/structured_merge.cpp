#include "api/structured_merge.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace scoria::api {

namespace {

using nlohmann::json;
using schema::Shape;
using schema::Type;

/// How a value is walked: as one value, an object of named fields, a map
/// of entries, or a list of items (atomic ones are leaves).
enum class Form { kLeaf, kStruct, kMap, kList };

struct Node {
  Form form = Form::kLeaf;
  const Type* type = nullptr;  // the struct, map or list type; nullptr: deduced
};

/// A type without a schema of its own, or a free-form one.
bool deduced(const Type* t) {
  if (t == nullptr) return true;
  if (t->shape != Shape::kLeaf) return false;
  const schema::Scalar s = schema::scalar_of(*t);
  return s == schema::Scalar::kUntyped || s == schema::Scalar::kObject;
}

/// The form `t` gives a value (`hint`, the value or the other side's, for a
/// deduced type): atomic objects, maps and lists are leaves.
Node resolve(const Type* t, const json* hint) {
  if (deduced(t)) {
    if (hint != nullptr && hint->is_object()) return {Form::kMap, nullptr};
    return {};
  }
  switch (t->shape) {
    case Shape::kLeaf:
      return {};
    case Shape::kObject:
      return schema::is_atomic(*t) ? Node{} : Node{Form::kStruct, t};
    case Shape::kMap:
      return schema::is_atomic(*t) ? Node{} : Node{Form::kMap, t};
    case Shape::kList:
      return schema::list_type_of(*t) == schema::ListType::kAtomic ? Node{} : Node{Form::kList, t};
  }
  return {};
}

/// The type of a struct's field or a map's entry `key`, and whether the
/// struct declares it.
std::pair<const Type*, bool> entry_type(const Node& n, std::string_view key) {
  if (n.type == nullptr) return {nullptr, false};
  if (n.form == Form::kStruct) return {schema::find_field(*n.type, key), true};
  return {&schema::element_of(*n.type), false};
}

const Type* item_type(const Node& n) {
  return n.type == nullptr ? nullptr : &schema::element_of(*n.type);
}

std::string at(const FieldPath& path) { return path.empty() ? "." : path_string(path); }

/// The path element of a list's item: its keys, or its value in a set.
PathElement item_element(const Node& list, const json& item, const FieldPath& path) {
  if (schema::list_type_of(*list.type) == schema::ListType::kSet) return value_element(item);
  json keys = json::object();
  for (const schema::ListKey& k : schema::list_keys_of(*list.type)) {
    const std::string name(k.name);
    if (item.is_object() && item.contains(name)) {
      keys[name] = item[name];
    } else if (k.fallback) {
      keys[name] = std::string(*k.fallback);
    } else {
      throw StructureError(at(path) +
                           ": associative list with keys has an element that omits key field \"" +
                           name + "\" (and doesn't have default value)");
    }
  }
  return key_element(keys);
}

/// A list's items by path element, each the first of its key, in order.
struct Items {
  std::vector<PathElement> order;
  std::map<PathElement, const json*> by;
};

Items index_items(const Node& list, const json* value, FieldPath& path) {
  Items out;
  if (value == nullptr || !value->is_array()) return out;
  for (const json& item : *value) {
    PathElement pe = item_element(list, item, path);
    if (out.by.emplace(pe, &item).second) out.order.push_back(std::move(pe));
  }
  return out;
}

bool holds(const Node& n, const json* v) {
  if (v == nullptr) return false;
  return n.form == Form::kList ? v->is_array() && !v->empty() : v->is_object() && !v->empty();
}

/// A value of another shape than its node's (a scalar where a map is due)
/// is one value.
bool misshapen(const Node& n, const json* v) {
  if (v == nullptr || v->is_null()) return false;
  return n.form == Form::kList ? !v->is_array() : !v->is_object();
}

void insert_fields(const json& v, const Type* t, FieldPath& path, FieldSet& out) {
  const Node n = resolve(t, &v);
  if (n.form == Form::kLeaf || misshapen(n, &v)) {
    out.insert(path);
    return;
  }
  if (v.is_null()) return;
  if (n.form == Form::kList) {
    for (const json& item : v) {
      path.push_back(item_element(n, item, path));
      insert_fields(item, item_type(n), path, out);
      out.insert(path);
      path.pop_back();
    }
    return;
  }
  for (const auto& [key, value] : v.items()) {
    const auto [type, declared] = entry_type(n, key);
    path.push_back(field_element(key));
    insert_fields(value, type, path, out);
    if (value.is_null() || (value.is_object() && value.empty()) || !declared) out.insert(path);
    path.pop_back();
  }
}

void compare_at(const json* l, const json* r, const Type* t, FieldPath& path, Comparison& c) {
  const Node n = resolve(t, r != nullptr && !r->is_null() ? r : l);
  const bool leaf =
      n.form == Form::kLeaf || misshapen(n, l) || misshapen(n, r) || (!holds(n, l) && !holds(n, r));
  if (leaf) {
    if (l == nullptr)
      c.added.insert(path);
    else if (r == nullptr)
      c.removed.insert(path);
    else if (*l != *r)
      c.modified.insert(path);
    return;
  }
  if (n.form == Form::kList) {
    const Items left = index_items(n, l, path);
    const Items right = index_items(n, r, path);
    const auto visit = [&](const PathElement& pe) {
      const auto li = left.by.find(pe);
      const auto ri = right.by.find(pe);
      path.push_back(pe);
      compare_at(li == left.by.end() ? nullptr : li->second,
                 ri == right.by.end() ? nullptr : ri->second, item_type(n), path, c);
      path.pop_back();
    };
    for (const PathElement& pe : left.order) visit(pe);
    for (const PathElement& pe : right.order)
      if (!left.by.contains(pe)) visit(pe);
  } else {
    const auto entry = [](const json* m, const std::string& key) -> const json* {
      if (m == nullptr || !m->is_object()) return nullptr;
      const auto it = m->find(key);
      return it == m->end() ? nullptr : &*it;
    };
    std::vector<std::string> keys;
    if (l != nullptr && l->is_object())
      for (const auto& [k, v] : l->items()) keys.push_back(k);
    if (r != nullptr && r->is_object())
      for (const auto& [k, v] : r->items())
        if (entry(l, k) == nullptr) keys.push_back(k);
    for (const std::string& k : keys) {
      path.push_back(field_element(k));
      compare_at(entry(l, k), entry(r, k), entry_type(n, k).first, path, c);
      path.pop_back();
    }
  }
  if (l == nullptr)
    c.added.insert(path);
  else if (r == nullptr)
    c.removed.insert(path);
}

json merge_at(const json* l, const json* r, const Type* t, FieldPath& path);

/// The items of two lists merged, in structured-merge-diff's order: the
/// applied list's order, with the live list's own items kept where they
/// stood relative to the items both share.
json merge_items(const Node& n, const json* l, const json* r, FieldPath& path) {
  const Items left = index_items(n, l, path);
  const Items right = index_items(n, r, path);
  std::vector<const PathElement*> shared;
  for (const PathElement& pe : right.order)
    if (left.by.contains(pe)) shared.push_back(&pe);
  size_t next_shared = 0;
  const auto shared_next = [&]() -> const PathElement* {
    return next_shared < shared.size() ? shared[next_shared] : nullptr;
  };
  json out = json::array();
  const auto take = [&](const PathElement& pe, const json* lc, const json* rc) {
    path.push_back(pe);
    out.push_back(merge_at(lc, rc, item_type(n), path));
    path.pop_back();
  };
  const auto get = [](const Items& items, const PathElement& pe) -> const json* {
    const auto it = items.by.find(pe);
    return it == items.by.end() ? nullptr : it->second;
  };
  size_t li = 0, ri = 0;
  while (li < left.order.size() || ri < right.order.size()) {
    if (li < left.order.size() && ri < right.order.size()) {
      const PathElement& pe = left.order[li];
      if (pe == right.order[ri]) {
        take(pe, get(left, pe), get(right, pe));
        ++li;
        ++ri;
        ++next_shared;
        continue;
      }
      if (right.by.contains(pe) && shared_next() != nullptr && *shared_next() != pe) {
        ++li;  // shared, but not the one due now
        continue;
      }
    }
    if (li < left.order.size()) {
      const PathElement& pe = left.order[li];
      if (!right.by.contains(pe)) {
        take(pe, get(left, pe), nullptr);
        ++li;
        continue;
      }
    }
    if (ri < right.order.size()) {
      const PathElement& pe = right.order[ri];
      take(pe, get(left, pe), get(right, pe));
      ++ri;
      if (shared_next() != nullptr && *shared_next() == pe) ++next_shared;
    }
  }
  return out;
}

json merge_at(const json* l, const json* r, const Type* t, FieldPath& path) {
  const Node n = resolve(t, r != nullptr && !r->is_null() ? r : l);
  const bool leaf =
      n.form == Form::kLeaf || misshapen(n, l) || misshapen(n, r) || (!holds(n, l) && !holds(n, r));
  if (leaf) return r != nullptr ? *r : *l;
  if (n.form == Form::kList) return merge_items(n, l, r, path);
  json out = json::object();
  if (l != nullptr && l->is_object())
    for (const auto& [k, v] : l->items()) {
      const json* rv = nullptr;
      if (r != nullptr && r->is_object())
        if (const auto it = r->find(k); it != r->end()) rv = &*it;
      path.push_back(field_element(k));
      out[k] = merge_at(&v, rv, entry_type(n, k).first, path);
      path.pop_back();
    }
  if (r != nullptr && r->is_object())
    for (const auto& [k, v] : r->items()) {
      if (out.contains(k)) continue;
      path.push_back(field_element(k));
      out[k] = merge_at(nullptr, &v, entry_type(n, k).first, path);
      path.pop_back();
    }
  return out;
}

json remove_at(const json& v, const FieldSet& set, const Type* t, FieldPath& path) {
  const Node n = resolve(t, &v);
  if (n.form == Form::kLeaf || misshapen(n, &v) || v.is_null()) return v;
  const auto emptied = [](const json& before, const json& after) {
    return !before.empty() && after.empty() && (after.is_object() || after.is_array());
  };
  if (n.form == Form::kList) {
    json out = json::array();
    for (const json& item : v) {
      const PathElement pe = item_element(n, item, path);
      const FieldSet* sub = set.child(pe);
      if (sub != nullptr && sub->member()) continue;
      if (sub == nullptr || sub->children().empty()) {
        out.push_back(item);
        continue;
      }
      path.push_back(pe);
      out.push_back(remove_at(item, *sub, item_type(n), path));
      path.pop_back();
    }
    return out;
  }
  json out = json::object();
  for (const auto& [k, value] : v.items()) {
    const FieldSet* sub = set.child(field_element(k));
    if (sub != nullptr && sub->member()) continue;
    if (sub == nullptr || sub->children().empty()) {
      out[k] = value;
      continue;
    }
    path.push_back(field_element(k));
    json kept = remove_at(value, *sub, entry_type(n, k).first, path);
    path.pop_back();
    // A map or list emptied by the removal goes too, as the API server's
    // types leave out an empty one.
    if (!emptied(value, kept)) out[k] = std::move(kept);
  }
  return out;
}

FieldSet named_members(const FieldSet& set, const Type* t) {
  FieldSet out;
  const bool is_struct = t != nullptr && t->shape == Shape::kObject;
  const bool is_container = t != nullptr && (t->shape == Shape::kList || t->shape == Shape::kMap);
  for (const auto& [e, sub] : set.children()) {
    const Type* child = nullptr;
    bool named = false;
    if (is_struct && e.starts_with("f:")) {
      child = schema::find_field(*t, std::string_view(e).substr(2));
      named = child != nullptr;
    } else if (is_container) {
      child = &schema::element_of(*t);
    }
    FieldSet inner = named_members(sub, child);
    if (sub.member() || (named && !sub.children().empty())) inner.set_member(true);
    if (!inner.empty()) out.child_or_make(e) = std::move(inner);
  }
  return out;
}

}  // namespace

FieldSet fields_of(const json& object, const Type* type) {
  FieldSet out;
  FieldPath path;
  insert_fields(object, type, path, out);
  return out;
}

Comparison compare(const json* lhs, const json* rhs, const Type* type) {
  Comparison c;
  if (lhs == nullptr && rhs == nullptr) return c;
  FieldPath path;
  compare_at(lhs, rhs, type, path, c);
  return c;
}

json merge(const json& live, const json& config, const Type* type) {
  FieldPath path;
  return merge_at(&live, &config, type, path);
}

json remove_items(const json& value, const FieldSet& set, const Type* type) {
  FieldPath path;
  return remove_at(value, set, type, path);
}

FieldSet ensure_named_fields_are_members(const FieldSet& set, const Type* type) {
  return named_members(set, type);
}

}  // namespace scoria::api
