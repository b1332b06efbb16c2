// The tree the decoders read: what documents.cpp builds from parser events,
// in an arena, without an allocation per node. A Node is a small value
// (a scalar, or a view of its entries or items in the arena) with the part
// of nlohmann::json's interface that readers use; a mapping's entries are
// sorted by key and unique, as nlohmann::json holds them, so the JSON
// written from a Node is the JSON nlohmann::json writes (tree_json.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace scoria::input {

struct NodeEntry;

class Node {
 public:
  enum class Type : uint8_t { kNull, kBool, kInt, kUint, kFloat, kString, kMap, kList };

  Node() = default;
  static Node boolean(bool b);
  static Node integer(int64_t v);
  static Node unsigned_integer(uint64_t v);
  static Node number(double v);
  /// `text` must live as long as the node (the arena's copy).
  static Node string(std::string_view text);
  /// Entries sorted by key, each key once.
  static Node mapping(std::span<const NodeEntry> entries);
  static Node list(std::span<const Node> items);

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }
  bool is_boolean() const { return type_ == Type::kBool; }
  bool is_number_integer() const { return type_ == Type::kInt || type_ == Type::kUint; }
  bool is_number_float() const { return type_ == Type::kFloat; }
  bool is_number() const { return is_number_integer() || is_number_float(); }
  bool is_string() const { return type_ == Type::kString; }
  bool is_object() const { return type_ == Type::kMap; }
  bool is_array() const { return type_ == Type::kList; }

  /// As nlohmann::json counts: entries or items; 0 for null, 1 for a scalar.
  size_t size() const;
  bool empty() const { return size() == 0; }

  std::string_view str() const { return {static_cast<const char*>(data_), size_}; }
  bool as_bool() const { return b_; }
  /// The integer (an unsigned one cast, a float truncated), as
  /// nlohmann::json's get<int64_t>() gives it.
  int64_t as_int() const;
  uint64_t as_uint() const { return u_; }
  double as_double() const { return f_; }

  std::span<const NodeEntry> entries() const;
  std::span<const Node> items() const;
  const Node& operator[](size_t i) const { return items()[i]; }
  /// The value of `key` in a mapping; nullptr when absent or not a mapping.
  const Node* find(std::string_view key) const;

 private:
  Type type_ = Type::kNull;
  bool b_ = false;
  union {
    int64_t i_;
    uint64_t u_;
    double f_ = 0;
  };
  const void* data_ = nullptr;  // string: its bytes; mapping: its entries; list: its items
  size_t size_ = 0;
};

struct NodeEntry {
  std::string_view key;
  Node value;
};

static_assert(std::is_trivially_destructible_v<Node> && std::is_trivially_copyable_v<Node>);

/// The memory of the nodes of one or more documents: strings, entries and
/// items, freed together.
class NodeArena {
 public:
  NodeArena() = default;
  NodeArena(const NodeArena&) = delete;
  NodeArena& operator=(const NodeArena&) = delete;
  NodeArena(NodeArena&&) = default;
  NodeArena& operator=(NodeArena&&) = default;

  std::string_view copy(std::string_view text);
  std::span<const NodeEntry> copy(std::span<const NodeEntry> entries);
  std::span<const Node> copy(std::span<const Node> items);

 private:
  void* allocate(size_t bytes, size_t align);  // align: a power of two

  std::vector<std::unique_ptr<std::byte[]>> blocks_;
  std::byte* next_ = nullptr;
  size_t left_ = 0;
};

}  // namespace scoria::input
