#include "cache/object_change.h"

#include <array>

namespace scoria::cache {

namespace {

constexpr std::array<std::string_view, 21> kNames = {
    "Node",
    "Pod",
    "PodGroup",
    "Queue",
    "PriorityClass",
    "Namespace",
    "PodDisruptionBudget",
    "ResourceQuota",
    "Numatopology",
    "HyperNode",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "StorageClass",
    "CSINode",
    "CSIDriver",
    "CSIStorageCapacity",
    "DeviceClass",
    "ResourceSlice",
    "ResourceClaim",
    "ResourceClaimTemplate",
    "NodeShard",
};

// Kind's order is the variant's: a name for each alternative.
static_assert(kNames.size() == std::variant_size_v<Object>);

struct KeyOf {
  std::string operator()(const model::Node& n) const { return n.name; }
  std::string operator()(const model::Pod& p) const { return p.key(); }
  std::string operator()(const model::PodGroup& g) const { return g.key(); }
  std::string operator()(const model::Queue& q) const { return q.name; }
  std::string operator()(const model::PriorityClass& c) const { return c.name; }
  std::string operator()(const model::Namespace& n) const { return n.name; }
  std::string operator()(const model::PodDisruptionBudget& b) const { return b.key(); }
  std::string operator()(const model::ResourceQuota& q) const { return q.key(); }
  std::string operator()(const model::Numatopology& t) const { return t.key(); }
  std::string operator()(const model::HyperNode& h) const { return h.name; }
  std::string operator()(const model::PersistentVolume& v) const { return v.key(); }
  std::string operator()(const model::PersistentVolumeClaim& c) const { return c.key(); }
  std::string operator()(const model::StorageClass& c) const { return c.key(); }
  std::string operator()(const model::CSINode& n) const { return n.key(); }
  std::string operator()(const model::CSIDriver& d) const { return d.key(); }
  std::string operator()(const model::CSIStorageCapacity& c) const { return c.key(); }
  std::string operator()(const model::DeviceClass& c) const { return c.key(); }
  std::string operator()(const model::ResourceSlice& s) const { return s.key(); }
  std::string operator()(const model::ResourceClaim& c) const { return c.key(); }
  std::string operator()(const model::ResourceClaimTemplate& t) const { return t.key(); }
  std::string operator()(const model::NodeShard& s) const { return s.name; }
};

}  // namespace

std::string_view kind_name(Kind kind) { return kNames[static_cast<size_t>(kind)]; }

std::optional<Kind> kind_from_name(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) return static_cast<Kind>(i);
  return std::nullopt;
}

// The variant's alternatives are declared in Kind's order.
Kind object_kind(const Object& object) { return static_cast<Kind>(object.index()); }

std::string object_key(const Object& object) { return std::visit(KeyOf{}, object); }

ObjectChange ObjectChange::upsert(Object object, bool never_preempt) {
  ObjectChange c;
  c.type = Type::Upsert;
  c.kind = object_kind(object);
  c.key = object_key(object);
  c.object = std::move(object);
  c.never_preempt = never_preempt;
  return c;
}

ObjectChange ObjectChange::remove(Kind kind, std::string key) {
  ObjectChange c;
  c.type = Type::Delete;
  c.kind = kind;
  c.key = std::move(key);
  return c;
}

}  // namespace scoria::cache
