// The values of the Common Expression Language (CEL) as Scoria evaluates it
// for Dynamic Resource Allocation's device selectors: null, bool, int, uint,
// double, string, bytes, list and map, Kubernetes' Quantity and Semver, and
// an error, which CEL carries as a value (`true || <error>` is true). Lists and maps are immutable
// and shared, so a value copies in constant time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "cel/quantity.h"
#include "cel/semver.h"

namespace scoria::cel {

struct Value;
using List = std::vector<Value>;
/// A map's entries in insertion order; keys are bool, int, uint or string.
struct Map : std::vector<std::pair<Value, Value>> {
  using vector::vector;
  /// What indexing or selecting a key the map lacks gives; null: an error,
  /// as CEL says. DRA's `device.attributes` and `device.capacity` give an
  /// empty map for a domain a device has nothing of, as Kubernetes' do.
  std::shared_ptr<const Value> absent;
};

struct Null {
  bool operator==(const Null&) const = default;
};
struct Bytes {
  std::string data;
  bool operator==(const Bytes&) const = default;
};
/// A runtime error, carried as a value until something needs it.
struct Error {
  std::string message;
  bool operator==(const Error&) const = default;
};

struct Value {
  using Variant = std::variant<Null, bool, int64_t, uint64_t, double, std::string, Bytes,
                               std::shared_ptr<const List>, std::shared_ptr<const Map>, Error,
                               Quantity, Semver>;
  Variant v;

  Value() = default;
  Value(Null n) : v(n) {}
  Value(bool b) : v(b) {}
  Value(int i) : v(int64_t{i}) {}
  Value(int64_t i) : v(i) {}
  Value(uint64_t u) : v(u) {}
  Value(double d) : v(d) {}
  Value(std::string s) : v(std::move(s)) {}
  Value(const char* s) : v(std::string(s)) {}
  Value(Bytes b) : v(std::move(b)) {}
  Value(List l) : v(std::make_shared<const List>(std::move(l))) {}
  Value(Map m) : v(std::make_shared<const Map>(std::move(m))) {}
  Value(Error e) : v(std::move(e)) {}
  Value(Quantity q) : v(q) {}
  Value(Semver s) : v(std::move(s)) {}

  template <typename T>
  bool is() const {
    return std::holds_alternative<T>(v);
  }
  template <typename T>
  const T& as() const {
    return std::get<T>(v);
  }
  bool is_error() const { return is<Error>(); }
  const List& list() const { return *as<std::shared_ptr<const List>>(); }
  const Map& map() const { return *as<std::shared_ptr<const Map>>(); }
  bool is_list() const { return is<std::shared_ptr<const List>>(); }
  bool is_map() const { return is<std::shared_ptr<const Map>>(); }
};

/// CEL's name of the value's type: "int", "list", "map", ...
std::string_view type_name(const Value& v);

/// CEL equality: numbers compare by value across int, uint and double;
/// lists and maps element by element; values of other different types are
/// not equal. An error if either side is one (or one inside a list or map).
Value equals(const Value& a, const Value& b);

/// -1, 0 or 1 for values CEL orders (numbers across their types, strings,
/// bytes, bools); an error for others, or NaN.
Value compare(const Value& a, const Value& b);

/// A map's value at `key` (keys compare as CEL equality does); null if none.
const Value* find(const Map& map, const Value& key);

/// The value as CEL writes it (strings quoted), for messages and tests.
std::string debug_string(const Value& v);

}  // namespace scoria::cel
