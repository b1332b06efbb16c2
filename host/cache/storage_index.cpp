#include "cache/storage_index.h"

#include <algorithm>

namespace scoria::cache {

const cycle::Storage& StorageIndex::view(const Maps& maps, uint64_t version) {
  view_.volumes = maps.volumes;
  view_.claims = maps.claims;
  view_.classes = maps.classes;
  view_.csi_nodes = maps.csi_nodes;
  view_.csi_drivers = maps.csi_drivers;
  view_.capacities = maps.capacities;
  view_.claim_pods = maps.claim_pods;
  view_.unbound_by_class = &unbound_by_class_;
  view_.prebound_claims = &prebound_claims_;
  if (version == version_) return view_;
  version_ = version;
  unbound_by_class_.clear();
  prebound_claims_.clear();
  for (const std::string& name : *maps.unbound) {
    const auto it = maps.volumes->find(name);
    if (it == maps.volumes->end()) continue;
    const model::PersistentVolume& v = it->second;
    unbound_by_class_[v.class_name()].push_back(&v);
    if (v.claimed()) prebound_claims_.insert(v.claim_namespace + "/" + v.claim_name);
  }
  // Smallest first, then by name: the first that fits is the smallest.
  for (auto& [cls, list] : unbound_by_class_)
    std::stable_sort(list.begin(), list.end(),
                     [](const auto* a, const auto* b) { return a->capacity < b->capacity; });
  return view_;
}

}  // namespace scoria::cache
