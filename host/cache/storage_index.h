// The session's view of the storage kinds (cycle::Storage): the cache's
// maps as they are, and the volumes a claim waiting for its first consumer
// may be given, by class, made again only when a storage object changed
// (from the volumes still to bind alone: a cluster's bound ones are most).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "cycle/storage.h"
#include "model/storage.h"

namespace scoria::cache {

class StorageIndex {
 public:
  struct Maps {
    const std::map<std::string, model::PersistentVolume>* volumes;
    const std::map<std::string, model::PersistentVolumeClaim>* claims;
    const std::map<std::string, model::StorageClass>* classes;
    const std::map<std::string, model::CSINode>* csi_nodes;
    const std::map<std::string, model::CSIDriver>* csi_drivers;
    const std::map<std::string, model::CSIStorageCapacity>* capacities;
    const std::unordered_map<std::string, uint32_t>* claim_pods;
    const std::set<std::string>* unbound;  // names of the volumes still to bind
  };
  /// The view over `maps`, brought up to date when `version` (the cache's
  /// storage_version) moved since the last call.
  const cycle::Storage& view(const Maps& maps, uint64_t version);

 private:
  cycle::Storage view_;
  std::map<std::string, std::vector<const model::PersistentVolume*>> unbound_by_class_;
  std::unordered_set<std::string> prebound_claims_;
  uint64_t version_ = UINT64_MAX;
};

}  // namespace scoria::cache
