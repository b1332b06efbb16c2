// The fields every kind Scoria reads has in Kubernetes and Volcano, all of
// them (not only those Scoria reads), so that a mistyped field can be told
// from a real one as the API server's field validation tells them. The
// table is generated (field_schema_table.cpp, by scripts/gen-field-schema.py):
// types shared by name, each object type's fields sorted by name; a field is
// found through a hash index built from it on first use.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace scoria::schema {

/// What a field's value holds, as far as field names go.
enum class Shape : uint8_t {
  kLeaf,    // a scalar, or free-form (labels, quantities, fieldsV1): nothing under it is known
  kObject,  // named fields: `first` and `count` index Table::fields
  kList,    // items of type `first`
  kMap,     // values of type `first`, under keys of any name
};

struct Field {
  uint16_t name;  // offset into Table::names
  uint8_t size;
  uint16_t type;  // index into Table::types
};

struct Type {
  Shape shape;
  uint16_t first;
  uint16_t count;
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

}  // namespace scoria::schema
