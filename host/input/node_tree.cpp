#include "input/node_tree.h"

#include <algorithm>
#include <cstring>

namespace scoria::input {

Node Node::boolean(bool b) {
  Node n;
  n.type_ = Type::kBool;
  n.b_ = b;
  return n;
}

Node Node::integer(int64_t v) {
  Node n;
  n.type_ = Type::kInt;
  n.i_ = v;
  return n;
}

Node Node::unsigned_integer(uint64_t v) {
  Node n;
  n.type_ = Type::kUint;
  n.u_ = v;
  return n;
}

Node Node::number(double v) {
  Node n;
  n.type_ = Type::kFloat;
  n.f_ = v;
  return n;
}

Node Node::string(std::string_view text) {
  Node n;
  n.type_ = Type::kString;
  n.data_ = text.data();
  n.size_ = text.size();
  return n;
}

Node Node::mapping(std::span<const NodeEntry> entries) {
  Node n;
  n.type_ = Type::kMap;
  n.data_ = entries.data();
  n.size_ = entries.size();
  return n;
}

Node Node::list(std::span<const Node> items) {
  Node n;
  n.type_ = Type::kList;
  n.data_ = items.data();
  n.size_ = items.size();
  return n;
}

size_t Node::size() const {
  switch (type_) {
    case Type::kNull:
      return 0;
    case Type::kMap:
    case Type::kList:
      return size_;
    default:
      return 1;
  }
}

int64_t Node::as_int() const {
  switch (type_) {
    case Type::kUint:
      return static_cast<int64_t>(u_);
    case Type::kFloat:
      return static_cast<int64_t>(f_);
    case Type::kBool:
      return b_ ? 1 : 0;
    default:
      return i_;
  }
}

std::span<const NodeEntry> Node::entries() const {
  if (type_ != Type::kMap) return {};
  return {static_cast<const NodeEntry*>(data_), size_};
}

std::span<const Node> Node::items() const {
  if (type_ != Type::kList) return {};
  return {static_cast<const Node*>(data_), size_};
}

const Node* Node::find(std::string_view key) const {
  const std::span<const NodeEntry> all = entries();
  // Small mappings (most of them) are searched in order; larger ones by
  // halves: the entries are sorted.
  if (all.size() <= 8) {
    for (const NodeEntry& e : all)
      if (e.key == key) return &e.value;
    return nullptr;
  }
  const auto it =
      std::lower_bound(all.begin(), all.end(), key,
                       [](const NodeEntry& e, std::string_view k) { return e.key < k; });
  return it != all.end() && it->key == key ? &it->value : nullptr;
}

void* NodeArena::allocate(size_t bytes, size_t align) {
  constexpr size_t kBlock = 64 * 1024;
  // Alignments are powers of two: a mask, not a division, on every node.
  const size_t pad = -reinterpret_cast<uintptr_t>(next_) & (align - 1);
  if (next_ == nullptr || pad + bytes > left_) {
    // A block of its own for what would not leave room for the rest.
    const size_t size = std::max(kBlock, bytes);
    blocks_.push_back(std::make_unique_for_overwrite<std::byte[]>(size));
    std::byte* block = blocks_.back().get();
    if (size > kBlock) return block;
    next_ = block;
    left_ = size;
  } else {
    next_ += pad;
    left_ -= pad;
  }
  void* out = next_;
  next_ += bytes;
  left_ -= bytes;
  return out;
}

std::string_view NodeArena::copy(std::string_view text) {
  if (text.empty()) return {};
  char* out = static_cast<char*>(allocate(text.size(), 1));
  std::memcpy(out, text.data(), text.size());
  return {out, text.size()};
}

std::span<const NodeEntry> NodeArena::copy(std::span<const NodeEntry> entries) {
  if (entries.empty()) return {};
  auto* out = static_cast<NodeEntry*>(allocate(entries.size_bytes(), alignof(NodeEntry)));
  std::uninitialized_copy(entries.begin(), entries.end(), out);
  return {out, entries.size()};
}

std::span<const Node> NodeArena::copy(std::span<const Node> items) {
  if (items.empty()) return {};
  auto* out = static_cast<Node*>(allocate(items.size_bytes(), alignof(Node)));
  std::uninitialized_copy(items.begin(), items.end(), out);
  return {out, items.size()};
}

}  // namespace scoria::input
