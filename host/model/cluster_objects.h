// Everything read from a set of object files, kind by kind.
#pragma once

#include <vector>

#include "model/devices.h"
#include "model/numatopology.h"
#include "model/objects.h"
#include "model/storage.h"

namespace scoria::model {

/// Everything read from a set of object files.
struct ClusterObjects {
  std::vector<Node> nodes;
  std::vector<Pod> pods;
  std::vector<PodGroup> pod_groups;
  std::vector<Queue> queues;
  std::vector<PriorityClass> priority_classes;
  std::vector<Namespace> namespaces;
  std::vector<PodDisruptionBudget> disruption_budgets;
  std::vector<ResourceQuota> resource_quotas;
  std::vector<Numatopology> numa_topologies;
  std::vector<HyperNode> hyper_nodes;
  std::vector<PersistentVolume> volumes;
  std::vector<PersistentVolumeClaim> claims;
  std::vector<StorageClass> storage_classes;
  std::vector<CSINode> csi_nodes;
  std::vector<CSIDriver> csi_drivers;
  std::vector<CSIStorageCapacity> storage_capacities;
  std::vector<DeviceClass> device_classes;
  std::vector<ResourceSlice> resource_slices;
  std::vector<ResourceClaim> resource_claims;
  std::vector<ResourceClaimTemplate> claim_templates;
};

}  // namespace scoria::model
