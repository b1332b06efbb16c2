// The storage objects a session reads (model/storage.h), as the cache holds
// them: views into its maps, valid for the session, never written by it.
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/storage.h"

namespace scoria::cycle {

struct Storage {
  const std::map<std::string, model::PersistentVolume>* volumes = nullptr;      // by name
  const std::map<std::string, model::PersistentVolumeClaim>* claims = nullptr;  // "ns/name"
  const std::map<std::string, model::StorageClass>* classes = nullptr;          // by name
  const std::map<std::string, model::CSINode>* csi_nodes = nullptr;             // by node
  const std::map<std::string, model::CSIDriver>* csi_drivers = nullptr;         // by name
  const std::map<std::string, model::CSIStorageCapacity>* capacities = nullptr;
  /// How many pods (of every status) name each claim, by "ns/name".
  const std::unordered_map<std::string, uint32_t>* claim_pods = nullptr;
  /// The volumes a claim waiting for its first consumer may be given (not
  /// yet bound: Available or Pending, pre-bound ones included), by class
  /// (the beta annotation volume.beta.kubernetes.io/storage-class, else
  /// storageClassName; "" for none), smallest first.
  const std::map<std::string, std::vector<const model::PersistentVolume*>>* unbound_by_class =
      nullptr;
  /// The claims ("ns/name") an unbound volume of unbound_by_class is
  /// pre-bound to (its claimRef names them).
  const std::unordered_set<std::string>* prebound_claims = nullptr;
};

}  // namespace scoria::cycle
