#include "schema/field_schema.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace scoria::schema {

namespace {

/// Every object type's fields by (type, name) in one open-addressed hash
/// table: a lookup runs for each field of every object read, and hashing
/// a name once, a word at a time, costs less than a binary search's
/// comparisons.
struct FieldIndex {
  static constexpr uint16_t kEmpty = 0xffff;
  struct Slot {
    uint32_t hash = 0;  // the name's hash, high half: most misses end here
    uint16_t type = 0;
    uint16_t field = kEmpty;
  };
  std::vector<Slot> slots;
  size_t mask = 0;
};

/// What the hash and the comparison read of a name: its first and last
/// eight bytes (overlapping when shorter than 16); below eight, its first
/// and last four, or its first, middle and last byte, which with its size
/// tell it apart from every other name (the reads of wyhash).
struct Words {
  uint64_t first = 0;
  uint64_t last = 0;
};

Words words_of(const char* p, size_t n) {
  Words w;
  if (n >= 8) {
    std::memcpy(&w.first, p, 8);
    std::memcpy(&w.last, p + n - 8, 8);
  } else if (n >= 4) {
    uint32_t a = 0, b = 0;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, p + n - 4, 4);
    w.first = (uint64_t{a} << 32) | b;
  } else if (n > 0) {
    const auto byte = [p](size_t i) { return uint64_t{static_cast<unsigned char>(p[i])}; };
    w.first = byte(0) << 16 | byte(n / 2) << 8 | byte(n - 1);
  }
  return w;
}

uint64_t hash_of(uint16_t type, size_t size, const Words& w) {
  uint64_t h = (w.first ^ (uint64_t{type} << 48) ^ size) * 0x9e3779b97f4a7c15ull;
  h = (h ^ (h >> 32) ^ w.last) * 0xc2b2ae3d27d4eb4full;
  return h ^ (h >> 29);
}

bool same_name(const char* field, const char* key, size_t n, const Words& w) {
  const Words f = words_of(field, n);
  if (f.first != w.first || f.last != w.last) return false;
  return n <= 16 || std::memcmp(field + 8, key + 8, n - 16) == 0;
}

FieldIndex build_index() {
  const Table& t = table();
  FieldIndex index;
  size_t size = 16;
  while (size < 2 * t.fields.size()) size *= 2;  // at most half full
  index.slots.resize(size);
  index.mask = size - 1;
  for (size_t type = 0; type < t.types.size(); ++type) {
    const Type& object = t.types[type];
    if (object.shape != Shape::kObject) continue;
    for (uint16_t f = object.first; f < object.first + object.count; ++f) {
      const char* name = t.names.data() + t.fields[f].name;
      const size_t n = t.fields[f].size;
      const uint64_t h = hash_of(static_cast<uint16_t>(type), n, words_of(name, n));
      size_t i = h & index.mask;
      while (index.slots[i].field != FieldIndex::kEmpty) i = (i + 1) & index.mask;
      index.slots[i] = {static_cast<uint32_t>(h >> 32), static_cast<uint16_t>(type), f};
    }
  }
  return index;
}

const FieldIndex& field_index() {
  static const FieldIndex index = build_index();
  return index;
}

}  // namespace

std::vector<ListKey> list_keys_of(const Type& list) {
  std::vector<ListKey> out;
  if (list.shape != Shape::kList || list.count >= table().list_keys.size()) return out;
  std::string_view keys = table().list_keys[list.count];
  while (!keys.empty()) {
    const size_t comma = keys.find(',');
    std::string_view one = keys.substr(0, comma);
    keys = comma == std::string_view::npos ? std::string_view() : keys.substr(comma + 1);
    ListKey key{one, std::nullopt};
    if (const size_t eq = one.find('='); eq != std::string_view::npos) {
      key.name = one.substr(0, eq);
      key.fallback = one.substr(eq + 1);
    }
    out.push_back(key);
  }
  return out;
}

std::string_view definition_name(const Type& t) {
  const uint16_t type = index_of(t);
  const auto named = table().named;
  const auto it = std::lower_bound(named.begin(), named.end(), type,
                                   [](const Named& n, uint16_t i) { return n.type < i; });
  return it != named.end() && it->type == type ? it->name : std::string_view();
}

const Type* find_kind(std::string_view api_version, std::string_view kind) {
  for (const Root& r : table().roots)
    if (r.kind == kind && (api_version.empty() || r.api_version == api_version))
      return &table().types[r.type];
  return nullptr;
}

std::span<const Field> fields_of(const Type& object) {
  if (object.shape != Shape::kObject) return {};
  return table().fields.subspan(object.first, object.count);
}

const Type* find_field(const Type& object, std::string_view name) {
  if (object.shape != Shape::kObject) return nullptr;
  const Table& t = table();
  const FieldIndex& index = field_index();
  const auto type = static_cast<uint16_t>(&object - t.types.data());
  const Words w = words_of(name.data(), name.size());
  const uint64_t h = hash_of(type, name.size(), w);
  for (size_t i = h & index.mask;; i = (i + 1) & index.mask) {
    const FieldIndex::Slot& s = index.slots[i];
    if (s.field == FieldIndex::kEmpty) return nullptr;
    if (s.hash != static_cast<uint32_t>(h >> 32) || s.type != type) continue;
    const Field& f = t.fields[s.field];
    if (f.size == name.size() && same_name(t.names.data() + f.name, name.data(), f.size, w))
      return &t.types[f.type];
  }
}

}  // namespace scoria::schema
