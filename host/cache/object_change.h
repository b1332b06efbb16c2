// The change feed into the scheduler cache. Every cluster source (the file
// source, the local store, a Kubernetes informer later) reports what changed
// the same way, as client-go's reflector does: a list (a full replace, see
// ClusterCache::replace) and then a stream of watch events, each one
// object's new state (ADDED and MODIFIED are both an Upsert: the cache
// knows whether it had the key) or its deletion.
//
// A change carries the object already decoded (decode/), never JSON: the
// cache does not parse, so a source decodes only what changed and decodes
// it once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "model/cluster_objects.h"

namespace scoria::cache {

/// The kinds the cache holds.
enum class Kind : uint8_t {
  Node,
  Pod,
  PodGroup,
  Queue,
  PriorityClass,
  Namespace,
  PodDisruptionBudget,
  ResourceQuota,
  Numatopology,
  HyperNode,
  PersistentVolume,
  PersistentVolumeClaim,
  StorageClass,
  CSINode,
  CSIDriver,
  CSIStorageCapacity,
  DeviceClass,
  ResourceSlice,
  ResourceClaim,
  ResourceClaimTemplate,
  NodeShard
};

/// The storage kinds (PersistentVolume, PersistentVolumeClaim, StorageClass,
/// CSINode, CSIDriver, CSIStorageCapacity): storage_version() counts their
/// changes, and filing one touches nothing the other kinds use.
constexpr bool is_storage_kind(Kind kind) {
  switch (kind) {
    case Kind::PersistentVolume:
    case Kind::PersistentVolumeClaim:
    case Kind::StorageClass:
    case Kind::CSINode:
    case Kind::CSIDriver:
    case Kind::CSIStorageCapacity:
      return true;
    default:
      return false;
  }
}

/// The Dynamic Resource Allocation kinds (DeviceClass, ResourceSlice,
/// ResourceClaim, ResourceClaimTemplate): devices_version() counts their
/// changes.
constexpr bool is_device_kind(Kind kind) {
  switch (kind) {
    case Kind::DeviceClass:
    case Kind::ResourceSlice:
    case Kind::ResourceClaim:
    case Kind::ResourceClaimTemplate:
      return true;
    default:
      return false;
  }
}

/// Kubernetes' name of a kind ("PodGroup"), and back (nullopt if unknown).
std::string_view kind_name(Kind kind);
std::optional<Kind> kind_from_name(std::string_view name);

/// One decoded object, as decode::Object: a decoded object moves in
/// without a copy.
using Object = model::Object;

/// The key of an object: "namespace/name" for the namespaced kinds (Pods,
/// PodGroups, PodDisruptionBudgets, ResourceQuotas, PersistentVolumeClaims,
/// CSIStorageCapacities, ResourceClaims, ResourceClaimTemplates), the name
/// otherwise
/// (the store's and the informer's key).
std::string object_key(const Object& object);
Kind object_kind(const Object& object);

struct ObjectChange {
  enum class Type : uint8_t { Upsert, Delete };

  Type type = Type::Upsert;
  Kind kind = Kind::Pod;
  std::string key;
  /// The object's new state (Upsert only; ignored for Delete).
  Object object;
  /// PriorityClass preemptionPolicy: Never (the model has no field for it:
  /// it is copied to the pods of the class, as Kubernetes' admission does).
  bool never_preempt = false;

  static ObjectChange upsert(Object object, bool never_preempt = false);
  static ObjectChange remove(Kind kind, std::string key);
};

}  // namespace scoria::cache
