// Objects seen through their field schema, as structured-merge-diff sees
// them for server-side apply: the fields an object sets, what changed
// between two, an applied configuration merged into a live object, and
// fields taken out of one. Lists merge as their x-kubernetes-list-type
// says (items of a list of type map by their keys, of a set by value, an
// atomic list whole); atomic objects and maps are one value; a place the
// schema does not know (a nullptr type, free-form fields) is deduced from
// the value: objects are maps of fields, lists atomic.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "api/field_set.h"
#include "schema/field_schema.h"

namespace scoria::api {

/// An object that does not fit its schema in a way no field set can tell
/// (an item of a list of type map without its keys), naming the place.
class StructureError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The fields `object` sets, as an applier of it owns them: every scalar,
/// atomic value, list item and map entry, and each empty object.
FieldSet fields_of(const nlohmann::json& object, const schema::Type* type);

/// What changed from `lhs` to `rhs` (nullptr: absent).
struct Comparison {
  FieldSet added;
  FieldSet modified;
  FieldSet removed;
};
Comparison compare(const nlohmann::json* lhs, const nlohmann::json* rhs, const schema::Type* type);

/// `config` merged into `live`: what it sets wins, the rest of `live` stays.
nlohmann::json merge(const nlohmann::json& live, const nlohmann::json& config,
                     const schema::Type* type);

/// `value` without the paths of `set` (each with all under it).
nlohmann::json remove_items(const nlohmann::json& value, const FieldSet& set,
                            const schema::Type* type);

/// `set` with each named field that has paths under it a member too (so
/// that "spec.replicas" also owns "spec", but "metadata.labels.a" never
/// owns a label map's key it lacks).
FieldSet ensure_named_fields_are_members(const FieldSet& set, const schema::Type* type);

}  // namespace scoria::api
