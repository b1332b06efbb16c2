// Storage as kube-scheduler reads it: v1 PersistentVolume and
// PersistentVolumeClaim, storage.k8s.io/v1 StorageClass, CSINode, CSIDriver
// and CSIStorageCapacity, and the claims a pod's volumes name. Immutable
// once decoded, as every model object. Their `json` is the text the source
// gave (the local store's), empty where it gave none (object files, the
// API server): only the local store's completions read it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/objects.h"

namespace scoria::model {

/// Access modes, as bits (a volume or claim lists several).
enum AccessMode : uint8_t {
  kReadWriteOnce = 0x1,
  kReadOnlyMany = 0x2,
  kReadWriteMany = 0x4,
  kReadWriteOncePod = 0x8,
};

enum class VolumePhase : uint8_t { Pending, Available, Bound, Released, Failed };
enum class ClaimPhase : uint8_t { Pending, Bound, Lost };

/// v1 PersistentVolume.
struct PersistentVolume {
  std::string name;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  double capacity = 0;  // spec.capacity.storage, bytes
  uint8_t access_modes = 0;
  std::string storage_class;  // spec.storageClassName ("" : no class)
  bool block = false;         // spec.volumeMode: Block (else Filesystem)
  // spec.claimRef: the claim it is bound (or pre-bound) to; empty if none.
  std::string claim_namespace, claim_name, claim_uid;
  // spec.nodeAffinity.required.nodeSelectorTerms (ORed); none: any node.
  std::vector<NodeSelectorTerm> node_affinity;
  std::string csi_driver;  // spec.csi.driver; "" for other volume sources
  std::string csi_handle;  // spec.csi.volumeHandle
  VolumePhase phase = VolumePhase::Available;
  bool deleting = false;  // metadata.deletionTimestamp set
  std::string json;

  const std::string& key() const { return name; }
  bool claimed() const { return !claim_name.empty(); }
  /// Its class: the beta annotation volume.beta.kubernetes.io/storage-class
  /// where set, else storageClassName ("" for none).
  const std::string& class_name() const;
};

/// v1 PersistentVolumeClaim.
struct PersistentVolumeClaim {
  std::string namespace_;
  std::string name;
  std::string uid;
  std::map<std::string, std::string> annotations;
  // The controlling owner (metadata.ownerReferences with controller: true):
  // a generic ephemeral volume's claim is owned by its pod.
  std::string owner_kind, owner_name, owner_uid;
  uint8_t access_modes = 0;
  // spec.storageClassName; nullopt when absent (the default class then),
  // "" when set empty (no class: only volumes without one).
  std::optional<std::string> storage_class;
  bool block = false;
  double request = 0;                     // spec.resources.requests.storage, bytes
  std::string volume_name;                // spec.volumeName
  std::optional<LabelSelector> selector;  // spec.selector
  ClaimPhase phase = ClaimPhase::Pending;
  bool deleting = false;
  std::string json;

  std::string key() const { return namespace_ + "/" + name; }
  /// The volume a CSI provisioner makes for it: pvc-UID (a UID derived
  /// from its key when it has none, as objects in files may not).
  std::string provisioned_volume_name() const;
  /// The node a provisioner was asked to create the volume on
  /// (volume.kubernetes.io/selected-node); empty if none.
  std::string selected_node() const {
    const auto it = annotations.find("volume.kubernetes.io/selected-node");
    return it == annotations.end() ? std::string() : it->second;
  }
};

enum class BindingMode : uint8_t { Immediate, WaitForFirstConsumer };

/// storage.k8s.io/v1 StorageClass.
struct StorageClass {
  std::string name;
  std::string provisioner;
  BindingMode binding_mode = BindingMode::Immediate;
  bool is_default = false;  // storageclass.kubernetes.io/is-default-class
  // allowedTopologies: each term's requirements (key In values), ORed.
  std::vector<NodeSelectorTerm> allowed_topologies;
  std::string json;

  const std::string& key() const { return name; }
  /// kube's "kubernetes.io/no-provisioner": static volumes only.
  bool provisions() const { return provisioner != "kubernetes.io/no-provisioner"; }
};

/// storage.k8s.io/v1 CSINode: each driver's attach limit on a node.
struct CSINode {
  std::string name;  // the node's name
  struct Driver {
    std::string name;
    std::string node_id;
    std::optional<int64_t> allocatable;  // allocatable.count
    std::vector<std::string> topology_keys;
  };
  std::vector<Driver> drivers;
  std::string json;

  const std::string& key() const { return name; }
};

/// storage.k8s.io/v1 CSIDriver.
struct CSIDriver {
  std::string name;
  bool attach_required = true;
  bool storage_capacity = false;  // spec.storageCapacity
  std::string json;

  const std::string& key() const { return name; }
};

/// storage.k8s.io/v1 CSIStorageCapacity: how much a class can provision
/// on the nodes its topology selects.
struct CSIStorageCapacity {
  std::string namespace_;
  std::string name;
  std::string storage_class;
  std::optional<LabelSelector> node_topology;  // absent: no node
  std::optional<double> capacity;              // bytes
  std::optional<double> maximum_volume_size;   // bytes
  std::string json;

  std::string key() const { return namespace_ + "/" + name; }
};

/// The class a claim asks for: the beta annotation where set, else
/// storageClassName, else (the field absent) the default class of
/// `classes`, as the API server's admission gives a new claim; "" for none.
std::string claim_class_name(const PersistentVolumeClaim& claim,
                             const std::map<std::string, StorageClass>& classes);

}  // namespace scoria::model
