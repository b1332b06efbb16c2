#include "api/field_set.h"

#include <stdexcept>
#include <utility>

namespace scoria::api {

namespace {

using nlohmann::json;

std::string compact(const json& v) {
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

PathElement field_element(std::string_view name) { return "f:" + std::string(name); }

PathElement key_element(const json& keys) { return "k:" + compact(keys); }

PathElement value_element(const json& value) { return "v:" + compact(value); }

PathElement index_element(size_t index) { return "i:" + std::to_string(index); }

std::string path_string(std::span<const PathElement> path) {
  std::string out;
  for (const PathElement& e : path) {
    const std::string_view rest = std::string_view(e).substr(e.size() >= 2 ? 2 : e.size());
    if (e.starts_with("f:")) {
      out.append(".").append(rest);
    } else if (e.starts_with("k:")) {
      const json keys = json::parse(rest, nullptr, false);
      out += '[';
      bool first = true;
      if (keys.is_object())
        for (const auto& [k, v] : keys.items()) {
          if (!std::exchange(first, false)) out += ',';
          out.append(k).append("=").append(compact(v));
        }
      out += ']';
    } else if (e.starts_with("v:")) {
      out.append("[=").append(rest).append("]");
    } else {
      out.append("[").append(rest).append("]");
    }
  }
  return out;
}

const FieldSet* FieldSet::child(const PathElement& e) const {
  const auto it = children_.find(e);
  return it == children_.end() ? nullptr : &it->second;
}

void FieldSet::insert(std::span<const PathElement> path) {
  if (path.empty()) return;
  FieldSet* node = this;
  for (const PathElement& e : path) node = &node->children_[e];
  node->member_ = true;
}

bool FieldSet::has(std::span<const PathElement> path) const {
  if (path.empty()) return false;
  const FieldSet* node = this;
  for (const PathElement& e : path) {
    node = node->child(e);
    if (node == nullptr) return false;
  }
  return node->member_;
}

void FieldSet::erase(std::span<const PathElement> path) {
  if (path.empty()) return;
  const auto it = children_.find(path.front());
  if (it == children_.end()) return;
  if (path.size() == 1)
    it->second.member_ = false;
  else
    it->second.erase(path.subspan(1));
  if (it->second.empty()) children_.erase(it);
}

FieldSet FieldSet::union_with(const FieldSet& other) const {
  FieldSet out = *this;
  out.member_ = member_ || other.member_;
  for (const auto& [e, sub] : other.children_) {
    const auto it = out.children_.find(e);
    if (it == out.children_.end())
      out.children_.emplace(e, sub);
    else
      it->second = it->second.union_with(sub);
  }
  return out;
}

FieldSet FieldSet::intersection(const FieldSet& other) const {
  FieldSet out;
  out.member_ = member_ && other.member_;
  for (const auto& [e, sub] : children_) {
    const FieldSet* theirs = other.child(e);
    if (theirs == nullptr) continue;
    FieldSet both = sub.intersection(*theirs);
    if (!both.empty()) out.children_.emplace(e, std::move(both));
  }
  return out;
}

FieldSet FieldSet::difference(const FieldSet& other) const {
  FieldSet out;
  out.member_ = member_ && !other.member_;
  for (const auto& [e, sub] : children_) {
    const FieldSet* theirs = other.child(e);
    FieldSet rest = theirs == nullptr ? sub : sub.difference(*theirs);
    if (!rest.empty()) out.children_.emplace(e, std::move(rest));
  }
  return out;
}

FieldSet FieldSet::recursive_difference(const FieldSet& other) const {
  FieldSet out;
  out.member_ = member_ && !other.member_;
  for (const auto& [e, sub] : children_) {
    const FieldSet* theirs = other.child(e);
    if (theirs != nullptr && theirs->member_) continue;  // all of it goes
    FieldSet rest = theirs == nullptr ? sub : sub.recursive_difference(*theirs);
    if (!rest.empty()) out.children_.emplace(e, std::move(rest));
  }
  return out;
}

void FieldSet::for_each(const std::function<void(std::span<const PathElement>)>& f) const {
  FieldPath prefix;
  for_each_at(prefix, f);
}

void FieldSet::for_each_at(FieldPath& prefix,
                           const std::function<void(std::span<const PathElement>)>& f) const {
  if (member_ && !prefix.empty()) f(prefix);
  for (const auto& [e, sub] : children_) {
    prefix.push_back(e);
    sub.for_each_at(prefix, f);
    prefix.pop_back();
  }
}

size_t FieldSet::size() const {
  size_t n = 0;
  for_each([&n](std::span<const PathElement>) { ++n; });
  return n;
}

json FieldSet::to_fields_v1() const {
  json out = json::object();
  for (const auto& [e, sub] : children_) {
    json inner = sub.to_fields_v1();
    if (sub.member_ && !sub.children_.empty()) inner["."] = json::object();
    out[e] = std::move(inner);
  }
  return out;
}

FieldSet FieldSet::from_fields_v1(const json& fields) {
  if (!fields.is_object()) throw std::invalid_argument("FieldsV1 must be an object");
  FieldSet out;
  for (const auto& [key, value] : fields.items()) {
    if (key == ".") continue;
    if (key.size() < 2 || key[1] != ':' ||
        (key[0] != 'f' && key[0] != 'k' && key[0] != 'v' && key[0] != 'i'))
      throw std::invalid_argument("FieldsV1 has an unknown path element: " + key);
    FieldSet sub = from_fields_v1(value);
    // A leaf ({}) or a node marked "." is in the set itself.
    sub.member_ = value.empty() || value.contains(".");
    out.children_.emplace(key, std::move(sub));
  }
  return out;
}

}  // namespace scoria::api
