// kube-scheduler's resource scores, in its integer arithmetic (0..100 per
// node), so that ties fall where they fall in kube-scheduler:
// NodeResourcesFit with the LeastAllocated and MostAllocated strategies and
// NodeResourcesBalancedAllocation, with the resources and weights Volcano's
// nodeorder configures them with.
#ifndef SCORIA_NODEORDER_RESOURCE_SCORES_H
#define SCORIA_NODEORDER_RESOURCE_SCORES_H

#include <cstdint>
#include <optional>

namespace nodeorder {

// One resource of a node as the scores see it: what is allocatable, what
// the pods on it request, and what the incoming pod requests.
struct ResourceUse {
  int64_t allocatable = 0;
  int64_t requested = 0;  // by the pods already on the node
  int64_t pod = 0;        // by the incoming pod
};

// LeastAllocated over cpu and memory (weights 50 and 50): the share left
// free once the pod is placed.
int64_t least_allocated(const ResourceUse& cpu, const ResourceUse& memory);
// MostAllocated over cpu and memory (weights 1 and 1): the share in use once
// the pod is placed.
int64_t most_allocated(const ResourceUse& cpu, const ResourceUse& memory);
// BalancedAllocation over cpu, memory and, when the pod asks for it, GPUs:
// 100 times one minus the standard deviation of the used fractions.
int64_t balanced_allocation(const ResourceUse& cpu, const ResourceUse& memory,
                            const std::optional<ResourceUse>& gpu);

// The request kube-scheduler assumes for a container that states none
// (100 millicores, 200 MiB), so that best-effort pods still spread.
inline constexpr int64_t kDefaultMilliCpuRequest = 100;
inline constexpr int64_t kDefaultMemoryRequest = 200LL * 1024 * 1024;

}  // namespace nodeorder

#endif  // SCORIA_NODEORDER_RESOURCE_SCORES_H
