#include "cpu_manager.h"

#include <algorithm>

namespace numa_aware {

std::vector<TopologyHint> cpu_hints(const CpuTopology& topo, const CpuSet& available, int request) {
  const std::vector<int32_t>& nodes = topo.numa_nodes();
  const auto n = static_cast<int>(nodes.size());
  int min_affinity = n;
  std::vector<TopologyHint> hints;
  // Every non-empty combination of NUMA nodes, by size, then in order (the
  // kubelet's IterateBitMasks).
  for (int k = 1; k <= n && n <= 63; ++k) {
    std::vector<bool> pick(static_cast<size_t>(n), false);
    std::fill(pick.begin(), pick.begin() + k, true);
    do {
      NumaMask mask = 0;
      for (int i = 0; i < n; ++i)
        if (pick[static_cast<size_t>(i)]) mask |= NumaMask{1} << nodes[static_cast<size_t>(i)];
      const CpuSet in_mask = topo.in_numa(mask);
      if (static_cast<int>(in_mask.size()) >= request && k < min_affinity) min_affinity = k;
      if (static_cast<int>((in_mask & available).size()) >= request) hints.push_back({mask, false});
    } while (std::prev_permutation(pick.begin(), pick.end()));
  }
  for (TopologyHint& h : hints) h.preferred = mask_count(*h.affinity) == min_affinity;
  return hints;
}

ProviderHints container_hints(const ContainerCpus& container, const NodeNuma& node,
                              const CpuSet* free) {
  if (!container.requests_cpu || container.guaranteed_cpus == 0 || free == nullptr) return {};
  return {{"cpu", cpu_hints(node.topology, *free - node.reserved, container.guaranteed_cpus)}};
}

CpuSet allocate_cpus(const ContainerCpus& container, const TopologyHint& hint, const NodeNuma& node,
                     const CpuSet& free) {
  const int request = container.guaranteed_cpus;
  const CpuSet available = free - node.reserved;
  CpuSet result;
  if (hint.affinity) {
    const CpuSet aligned = available & node.topology.in_numa(*hint.affinity);
    const int n = std::min(request, static_cast<int>(aligned.size()));
    const std::optional<CpuSet> taken = take_by_topology(node.topology, aligned, n);
    if (!taken) return {};
    result = *taken;
  }
  const std::optional<CpuSet> rest = take_by_topology(node.topology, available - result,
                                                      request - static_cast<int>(result.size()));
  if (!rest) return {};
  return result | *rest;
}

}  // namespace numa_aware
