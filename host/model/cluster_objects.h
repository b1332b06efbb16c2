// Everything read from a set of object files, kind by kind.
#pragma once

#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "model/devices.h"
#include "model/node_shard.h"
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
  std::vector<NodeShard> node_shards;
};

/// One object of any kind the decoder reads, in the order of the lists
/// below (the decoder's and the cache's Object).
using Object =
    std::variant<Node, Pod, PodGroup, Queue, PriorityClass, Namespace, PodDisruptionBudget,
                 ResourceQuota, Numatopology, HyperNode, PersistentVolume, PersistentVolumeClaim,
                 StorageClass, CSINode, CSIDriver, CSIStorageCapacity, DeviceClass, ResourceSlice,
                 ResourceClaim, ResourceClaimTemplate, NodeShard>;

/// Each kind's list, as a member of ClusterObjects, in the order of Object.
inline constexpr auto kObjectLists = std::make_tuple(
    &ClusterObjects::nodes, &ClusterObjects::pods, &ClusterObjects::pod_groups,
    &ClusterObjects::queues, &ClusterObjects::priority_classes, &ClusterObjects::namespaces,
    &ClusterObjects::disruption_budgets, &ClusterObjects::resource_quotas,
    &ClusterObjects::numa_topologies, &ClusterObjects::hyper_nodes, &ClusterObjects::volumes,
    &ClusterObjects::claims, &ClusterObjects::storage_classes, &ClusterObjects::csi_nodes,
    &ClusterObjects::csi_drivers, &ClusterObjects::storage_capacities,
    &ClusterObjects::device_classes, &ClusterObjects::resource_slices,
    &ClusterObjects::resource_claims, &ClusterObjects::claim_templates,
    &ClusterObjects::node_shards);

/// Calls f(list) with each kind's list of `objects`, in that order.
template <class Objects, class F>  // Objects: ClusterObjects, const or not
void for_each_list(Objects& objects, F&& f) {
  std::apply([&](auto... list) { (f(objects.*list), ...); }, kObjectLists);
}

/// Calls f(to_list, from_list) with each kind's list of both.
template <class F>
void for_each_list(ClusterObjects& to, ClusterObjects& from, F&& f) {
  std::apply([&](auto... list) { (f(to.*list, from.*list), ...); }, kObjectLists);
}

/// The list of `objects` that holds kind T.
template <class T, class Objects>  // Objects: ClusterObjects, const or not
auto& list_of(Objects& objects) {
  constexpr size_t i = [] {
    size_t n = 0;
    std::apply(
        [&](auto... list) {
          (void)((std::is_same_v<typename std::remove_cvref_t<
                                     decltype(std::declval<ClusterObjects&>().*list)>::value_type,
                                 T>
                      ? true
                      : (++n, false)) ||
                 ...);
        },
        kObjectLists);
    return n;
  }();
  return objects.*std::get<i>(kObjectLists);
}

}  // namespace scoria::model
