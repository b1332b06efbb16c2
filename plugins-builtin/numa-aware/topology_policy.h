// The kubelet's topology manager policies as Volcano's numa-aware plugin
// applies them at scheduling time (its policy package): each hint provider
// says, per resource, on which sets of NUMA nodes a container's request
// could be met and which of those are preferred (the narrowest); a policy
// merges one hint per resource into the best common affinity and admits
// the container or not.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace numa_aware {

/// A set of NUMA node ids (0-63), one bit each, as the kubelet's bitmask.
using NumaMask = uint64_t;

NumaMask mask_of(std::span<const int32_t> numa_nodes);
int mask_count(NumaMask m);

struct TopologyHint {
  std::optional<NumaMask> affinity;  // nullopt: any NUMA node will do
  bool preferred = false;

  friend bool operator==(const TopologyHint&, const TopologyHint&) = default;
};

/// One provider's hints per resource. A resource with nullopt has no
/// preference; one with an empty list cannot be met on any NUMA node. A
/// provider with no resources at all has no preference.
using ProviderHints = std::map<std::string, std::optional<std::vector<TopologyHint>>>;

/// The topology manager policies, by their kubelet names.
enum class Policy { kNone, kBestEffort, kRestricted, kSingleNumaNode };

/// "none", "best-effort", "restricted", "single-numa-node"; nullopt for any
/// other text (Volcano then applies none).
std::optional<Policy> parse_policy(std::string_view name);

struct Admission {
  TopologyHint best;
  bool admit = false;
};

/// The best hint for a container under `policy` on a node whose NUMA nodes
/// are `numa_nodes`, and whether the policy admits it: none admits with no
/// hint; best-effort always admits; restricted and single-numa-node admit
/// only a preferred hint, single-numa-node considering only hints of one
/// NUMA node.
Admission admit(Policy policy, std::span<const int32_t> numa_nodes,
                std::span<const ProviderHints> providers);

}  // namespace numa_aware
