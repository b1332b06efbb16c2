#include "api/resources.h"

#include <algorithm>
#include <array>

namespace scoria::api {

namespace {

constexpr std::array<std::string_view, 1> kNodeShort{"no"};
constexpr std::array<std::string_view, 1> kPodShort{"po"};
constexpr std::array<std::string_view, 1> kNamespaceShort{"ns"};
constexpr std::array<std::string_view, 1> kEventShort{"ev"};
constexpr std::array<std::string_view, 2> kPodGroupShort{"pg", "podgroup-v1beta1"};
constexpr std::array<std::string_view, 2> kQueueShort{"q", "queue-v1beta1"};
constexpr std::array<std::string_view, 1> kPriorityClassShort{"pc"};
constexpr std::array<std::string_view, 2> kJobShort{"vcjob", "vj"};
constexpr std::array<std::string_view, 1> kDisruptionBudgetShort{"pdb"};
constexpr std::array<std::string_view, 1> kResourceQuotaShort{"quota"};
constexpr std::array<std::string_view, 1> kNumatopologyShort{"numatopo"};
constexpr std::array<std::string_view, 1> kHyperNodeShort{"hn"};
constexpr std::array<std::string_view, 1> kVolumeShort{"pv"};
constexpr std::array<std::string_view, 1> kClaimShort{"pvc"};
constexpr std::array<std::string_view, 1> kStorageClassShort{"sc"};
constexpr std::array<std::string_view, 1> kNodeShardShort{"nsh"};
constexpr std::array<std::string_view, 0> kNone{};
constexpr std::array<std::string_view, 1> kStatus{"status"};
constexpr std::array<std::string_view, 3> kPodSubs{"status", "binding", "eviction"};

constexpr std::array<Resource, 26> kResources{{
    {"", "v1", "nodes", "node", "Node", false, kNodeShort, kStatus, true},
    {"", "v1", "pods", "pod", "Pod", true, kPodShort, kPodSubs, true},
    {"", "v1", "namespaces", "namespace", "Namespace", false, kNamespaceShort, kStatus, true},
    {"", "v1", "events", "event", "Event", true, kEventShort, kNone, false},
    {"scheduling.volcano.sh", "v1beta1", "podgroups", "podgroup", "PodGroup", true, kPodGroupShort,
     kStatus, true},
    {"scheduling.volcano.sh", "v1beta1", "queues", "queue", "Queue", false, kQueueShort, kStatus,
     true},
    {"scheduling.k8s.io", "v1", "priorityclasses", "priorityclass", "PriorityClass", false,
     kPriorityClassShort, kNone, true},
    // Read by plugins whole (session_object_json): pdb and resourcequota.
    {"policy", "v1", "poddisruptionbudgets", "poddisruptionbudget", "PodDisruptionBudget", true,
     kDisruptionBudgetShort, kStatus, true},
    {"", "v1", "resourcequotas", "resourcequota", "ResourceQuota", true, kResourceQuotaShort,
     kStatus, true},
    // Read by the numa-aware plugin whole; Volcano's CRD has no status.
    {"nodeinfo.volcano.sh", "v1alpha1", "numatopologies", "numatopology", "Numatopology", false,
     kNumatopologyShort, kNone, true},
    // Volcano's network topology, resolved by the session (network-topology-aware).
    {"topology.volcano.sh", "v1alpha1", "hypernodes", "hypernode", "HyperNode", false,
     kHyperNodeShort, kStatus, true},
    // Storage, as kube-scheduler's volume plugins read it.
    {"", "v1", "persistentvolumes", "persistentvolume", "PersistentVolume", false, kVolumeShort,
     kStatus, true},
    {"", "v1", "persistentvolumeclaims", "persistentvolumeclaim", "PersistentVolumeClaim", true,
     kClaimShort, kStatus, true},
    {"storage.k8s.io", "v1", "storageclasses", "storageclass", "StorageClass", false,
     kStorageClassShort, kNone, true},
    {"storage.k8s.io", "v1", "csinodes", "csinode", "CSINode", false, kNone, kNone, true},
    {"storage.k8s.io", "v1", "csidrivers", "csidriver", "CSIDriver", false, kNone, kNone, true},
    {"storage.k8s.io", "v1", "csistoragecapacities", "csistoragecapacity", "CSIStorageCapacity",
     true, kNone, kNone, true},
    // Dynamic Resource Allocation (kube-apiserver gives them no short names).
    {"resource.k8s.io", "v1", "deviceclasses", "deviceclass", "DeviceClass", false, kNone, kNone,
     true},
    {"resource.k8s.io", "v1", "resourceslices", "resourceslice", "ResourceSlice", false, kNone,
     kNone, true},
    {"resource.k8s.io", "v1", "resourceclaims", "resourceclaim", "ResourceClaim", true, kNone,
     kStatus, true},
    {"resource.k8s.io", "v1", "resourceclaimtemplates", "resourceclaimtemplate",
     "ResourceClaimTemplate", true, kNone, kNone, true},
    // Kubernetes' own gangs (KEP-4671): a PodGroup is a job like Volcano's
    // (decode/workload_decoder.cpp); a Workload is kept, and decides
    // nothing. kube-apiserver gives them no short names.
    {"scheduling.k8s.io", "v1beta1", "podgroups", "podgroup", "PodGroup", true, kNone, kStatus,
     true},
    {"scheduling.k8s.io", "v1beta1", "workloads", "workload", "Workload", true, kNone, kNone,
     false},
    // Volcano's node shards: which nodes each of several instances uses.
    {"shard.volcano.sh", "v1alpha1", "nodeshards", "nodeshard", "NodeShard", false, kNodeShardShort,
     kStatus, true},
    // Volcano's batch Job: kept, and expanded into its PodGroup and Pods
    // (serve/job_controller.h), which are what the scheduler reads.
    {"batch.volcano.sh", "v1alpha1", "jobs", "job", "Job", true, kJobShort, kStatus, false},
    // Leader election's lock (the Kubernetes source elects its leader on a
    // Lease; the local API serves one so that election runs against it too).
    {"coordination.k8s.io", "v1", "leases", "lease", "Lease", true, kNone, kNone, false},
}};

constexpr std::array<std::string_view, 8> kVerbs{"create", "delete", "deletecollection", "get",
                                                 "list",   "patch",  "update",           "watch"};

}  // namespace

std::span<const Resource> resources() { return kResources; }

bool has_subresource(const Resource& r, std::string_view sub) {
  return std::find(r.subresources.begin(), r.subresources.end(), sub) != r.subresources.end();
}

const Resource* find_resource(std::string_view group, std::string_view version,
                              std::string_view plural) {
  const auto it = std::find_if(kResources.begin(), kResources.end(), [&](const Resource& r) {
    return r.group == group && r.version == version && r.plural == plural;
  });
  return it == kResources.end() ? nullptr : &*it;
}

const Resource* find_kind(std::string_view kind) {
  const auto it = std::find_if(kResources.begin(), kResources.end(),
                               [&](const Resource& r) { return r.kind == kind; });
  return it == kResources.end() ? nullptr : &*it;
}

std::string_view store_kind(const Resource& r) {
  // The later of two groups serving one kind is stored under a kind of its
  // own: Volcano's PodGroup was first.
  if (r.kind == "PodGroup" && r.group == "scheduling.k8s.io") return "PodGroup.scheduling.k8s.io";
  return r.kind;
}

const Resource* find_store_kind(std::string_view kind) {
  const auto it = std::find_if(kResources.begin(), kResources.end(),
                               [&](const Resource& r) { return store_kind(r) == kind; });
  return it == kResources.end() ? nullptr : &*it;
}

std::string api_version(const Resource& r) {
  if (r.group.empty()) return std::string(r.version);
  return std::string(r.group) + "/" + std::string(r.version);
}

std::span<const std::string_view> resource_verbs() { return kVerbs; }

std::span<const std::string_view> subresource_verbs(std::string_view subresource) {
  // A status is read and written; the others are only created.
  static constexpr std::array<std::string_view, 3> kStatusVerbs{"get", "patch", "update"};
  static constexpr std::array<std::string_view, 1> kCreate{"create"};
  if (subresource == "status") return kStatusVerbs;
  return kCreate;
}

}  // namespace scoria::api
