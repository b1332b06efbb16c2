// A set of field paths, as server-side apply tracks who owns what
// (structured-merge-diff's fieldpath.Set), and its FieldsV1 encoding in
// metadata.managedFields: a tree whose keys are path elements,
//   "f:name"                  a field of an object, or a key of a map
//   "k:{"name":"web"}"        an item of a list of type map, by its keys
//   "v:"value""               an item of a set, by its value
//   "i:3"                     an item of a list by its index
// and where "." marks a node that is in the set itself and has children.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace scoria::api {

/// A path element, spelled as FieldsV1 spells it.
using PathElement = std::string;
using FieldPath = std::vector<PathElement>;

/// "f:" + name.
PathElement field_element(std::string_view name);
/// "k:" + the key fields as a JSON object (its keys sorted).
PathElement key_element(const nlohmann::json& keys);
/// "v:" + the value as JSON.
PathElement value_element(const nlohmann::json& value);
/// "i:" + the index.
PathElement index_element(size_t index);

/// A path as the API server prints it in a conflict:
/// `.spec.containers[name="web"].image`, `.metadata.finalizers[="a"]`.
std::string path_string(std::span<const PathElement> path);

class FieldSet {
 public:
  FieldSet() = default;

  /// Neither a member nor any children.
  bool empty() const { return !member_ && children_.empty(); }
  /// Whether the path that leads here is in the set (a root's never is).
  bool member() const { return member_; }
  const std::map<PathElement, FieldSet>& children() const { return children_; }
  /// The subset under `e` (nullptr if none).
  const FieldSet* child(const PathElement& e) const;

  /// The subset under `e`, made empty if absent.
  FieldSet& child_or_make(const PathElement& e) { return children_[e]; }
  void set_member(bool member) { member_ = member; }

  /// Adds `path` (an empty path is the whole object, never tracked).
  void insert(std::span<const PathElement> path);
  bool has(std::span<const PathElement> path) const;
  /// Removes `path` itself (not what is under it).
  void erase(std::span<const PathElement> path);

  /// Every path in either.
  FieldSet union_with(const FieldSet& other) const;
  /// Every path in both.
  FieldSet intersection(const FieldSet& other) const;
  /// The paths of this set that `other` lacks (paths under one of
  /// `other`'s stay: structured-merge-diff's Difference).
  FieldSet difference(const FieldSet& other) const;
  /// The paths of this set neither in `other` nor under one of its paths.
  FieldSet recursive_difference(const FieldSet& other) const;

  /// Calls `f` with every path in the set, a node's own before its
  /// children's.
  void for_each(const std::function<void(std::span<const PathElement>)>& f) const;
  /// The number of paths in the set.
  size_t size() const;

  /// The FieldsV1 object.
  nlohmann::json to_fields_v1() const;
  /// The set a FieldsV1 object holds; throws std::invalid_argument when it
  /// is not one.
  static FieldSet from_fields_v1(const nlohmann::json& fields);

  bool operator==(const FieldSet&) const = default;

 private:
  void for_each_at(FieldPath& prefix,
                   const std::function<void(std::span<const PathElement>)>& f) const;

  bool member_ = false;
  std::map<PathElement, FieldSet> children_;
};

}  // namespace scoria::api
