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
  view_.unbound_by_class = &unbound_by_class_;
  if (version == version_) return view_;
  version_ = version;
  unbound_by_class_.clear();
  for (const auto& [name, v] : *maps.volumes) {
    if (v.phase != model::VolumePhase::Available && v.phase != model::VolumePhase::Pending)
      continue;
    const auto beta = v.annotations.find("volume.beta.kubernetes.io/storage-class");
    unbound_by_class_[beta != v.annotations.end() ? beta->second : v.storage_class].push_back(&v);
  }
  // Smallest first, then by name: the first that fits is the smallest.
  for (auto& [cls, list] : unbound_by_class_)
    std::stable_sort(list.begin(), list.end(),
                     [](const auto* a, const auto* b) { return a->capacity < b->capacity; });
  return view_;
}

}  // namespace scoria::cache
