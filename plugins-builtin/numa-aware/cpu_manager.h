// The CPU hint provider of Volcano's numa-aware plugin (provider/cpumanager):
// on which NUMA nodes a container's whole CPUs could be found, and which
// CPUs it would get once the policy has picked a hint.
#pragma once

#include <vector>

#include "cpu_topology.h"
#include "node_numa.h"
#include "pod_numa.h"
#include "topology_policy.h"

namespace numa_aware {

/// Every set of NUMA nodes (fewest first) whose `available` CPUs can hold
/// `request`; preferred are those of the fewest NUMA nodes whose CPUs,
/// free or not, could hold it.
std::vector<TopologyHint> cpu_hints(const CpuTopology& topo, const CpuSet& available, int request);

/// The provider's hints for a container on `node`, with `free` the node's
/// CPUs not yet taken: none (no preference) when the container asks for no
/// CPU or not a whole number of them, or when the node lists no cpu.
ProviderHints container_hints(const ContainerCpus& container, const NodeNuma& node,
                              const CpuSet* free);

/// The CPUs the container gets: on the hint's NUMA nodes first, the rest
/// from anywhere; empty when they cannot all be found (as Volcano's).
CpuSet allocate_cpus(const ContainerCpus& container, const TopologyHint& hint, const NodeNuma& node,
                     const CpuSet& free);

}  // namespace numa_aware
