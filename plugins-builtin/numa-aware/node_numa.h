// A node's NUMA information as Volcano's scheduler cache holds it
// (NumatopoInfo), read from the node's Numatopology: its CPU manager and
// topology manager policies, its CPUs, what of each resource is allocatable
// and the CPUs kept back for the system (resReserved).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cpu_topology.h"

namespace numa_aware {

/// A pod the resource exporter has seen placed, by namespace and name (or
/// uid): the kubelet has given it its CPUs.
struct PodRef {
  std::string uid;
  std::string namespace_;
  std::string name;
};

struct NodeNuma {
  std::string name;                     // the node's, the Numatopology's own
  std::string cpu_manager_policy;       // "static" for the CPU manager to pin CPUs
  std::string topology_manager_policy;  // none, best-effort, restricted, single-numa-node
  CpuTopology topology;
  std::map<std::string, CpuSet> allocatable;  // by resource name: spec.numares
  CpuSet reserved;               // the CPUs resReserved's cpu takes, chosen as the kubelet does
  std::vector<PodRef> assigned;  // spec.podAllocations

  bool assigned_pod(std::string_view pod_namespace, std::string_view pod_name) const;
};

/// The most NUMA nodes a node may have (the kubelet's topology manager
/// allows 8 by default; twice that is kept for its max-allowable-numa-nodes
/// option).
inline constexpr size_t kMaxNumaNodes = 16;

/// Thrown when a Numatopology cannot be read: what() names the field.
struct BadTopology : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Reads one Numatopology object.
NodeNuma parse_node_numa(const nlohmann::json& object);

}  // namespace numa_aware
