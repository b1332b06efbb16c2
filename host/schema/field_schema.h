// The fields every kind Scoria reads has in Kubernetes and Volcano, all of
// them (not only those Scoria reads), so that a mistyped field can be told
// from a real one as the API server's field validation tells them. The
// table is generated (field_schema_table.cpp, by scripts/gen-field-schema.py):
// types shared by name, each object type's fields sorted by name; a field is
// found through a hash index built from it on first use. Each type also says
// what its OpenAPI schema and server-side apply need: a leaf's scalar, how a
// list merges (Kubernetes' x-kubernetes-list-type and its keys), whether an
// object or map is atomic, which fields are required, and the OpenAPI name
// of a named type.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace scoria::schema {

/// What a field's value holds, as far as field names go.
enum class Shape : uint8_t {
  kLeaf,    // a scalar, or free-form (fieldsV1, a CRD's unknown fields): nothing under it is known
  kObject,  // named fields: `first` and `count` index Table::fields
  kList,    // items of type `first`
  kMap,     // values of type `first`, under keys of any name
};

/// What a leaf holds (Type::detail of a kLeaf).
enum class Scalar : uint8_t {
  kUntyped,  // not known
  kString,
  kDateTime,
  kInteger,  // of no declared width
  kInt32,
  kInt64,
  kNumber,
  kBoolean,
  kIntOrString,
  kQuantity,
  kObject,  // free-form: any JSON object (a RawExtension, preserved unknown fields)
  kByte,    // base64
};

/// How a list's items are told apart (Type::detail of a kList), as
/// Kubernetes' x-kubernetes-list-type says.
enum class ListType : uint8_t {
  kAtomic,  // the list is one value
  kSet,     // scalars, each its own
  kMap,     // objects, each its own by the values of its keys
};

struct Field {
  uint16_t name;  // offset into Table::names
  uint8_t size;
  uint8_t required;  // 1 when the API requires the field
  uint16_t type;     // index into Table::types
};

struct Type {
  Shape shape;
  uint8_t detail;  // a leaf's Scalar, a list's ListType, an object's or map's atomic flag
  uint16_t first;
  uint16_t count;  // a list of type map: its keys' index into Table::list_keys
};

/// A named object type: its OpenAPI definition name.
struct Named {
  uint16_t type;
  std::string_view name;
};

/// A kind's top-level type.
struct Root {
  std::string_view api_version;
  std::string_view kind;
  uint16_t type;
};

struct Table {
  std::string_view names;
  std::span<const Field> fields;
  std::span<const Type> types;
  std::span<const Root> roots;
  std::span<const std::string_view> list_keys;  // "key,key=default"
  std::span<const Named> named;                 // sorted by type
};

/// The generated table.
const Table& table();

/// The type of a kind: by apiVersion and kind, by kind alone when
/// `api_version` is empty; nullptr for a kind the table does not have.
const Type* find_kind(std::string_view api_version, std::string_view kind);

/// A field's name.
inline std::string_view name_of(const Field& f) { return table().names.substr(f.name, f.size); }

/// The fields of an object type, sorted by name (empty for other shapes).
std::span<const Field> fields_of(const Type& object);

/// The type of `object`'s field `name`; nullptr if it has no such field.
const Type* find_field(const Type& object, std::string_view name);

/// The type a list's items or a map's values have.
inline const Type& element_of(const Type& t) { return table().types[t.first]; }

/// A leaf's scalar (kUntyped for other shapes).
inline Scalar scalar_of(const Type& t) {
  return t.shape == Shape::kLeaf ? static_cast<Scalar>(t.detail) : Scalar::kUntyped;
}

/// A list's list type (kAtomic for other shapes).
inline ListType list_type_of(const Type& t) {
  return t.shape == Shape::kList ? static_cast<ListType>(t.detail) : ListType::kAtomic;
}

/// Whether an object or a map is one value (x-kubernetes-map-type: atomic).
inline bool is_atomic(const Type& t) {
  return (t.shape == Shape::kObject || t.shape == Shape::kMap) && t.detail != 0;
}

/// A key of a list of type map, and the value an item that leaves it out
/// has (a port's protocol is TCP); `fallback` is nullopt when none.
struct ListKey {
  std::string_view name;
  std::optional<std::string_view> fallback;
};

/// The keys of a list of type map, in the order the API declares them.
std::vector<ListKey> list_keys_of(const Type& list);

/// The index of a type in the table.
inline uint16_t index_of(const Type& t) { return static_cast<uint16_t>(&t - table().types.data()); }

/// A named type's OpenAPI definition name; empty for an anonymous one.
std::string_view definition_name(const Type& t);

}  // namespace scoria::schema
