#include "topology_policy.h"

#include <bit>
#include <functional>

namespace numa_aware {

namespace {

// Every provider's resources become one list of hints each (Volcano's
// filterProvidersHints): no preference is a single preferred any-NUMA hint,
// no possible placement a single unpreferred one.
std::vector<std::vector<TopologyHint>> per_resource(std::span<const ProviderHints> providers) {
  std::vector<std::vector<TopologyHint>> out;
  for (const ProviderHints& hints : providers) {
    if (hints.empty()) {
      out.push_back({TopologyHint{std::nullopt, true}});
      continue;
    }
    for (const auto& [resource, list] : hints) {
      if (!list)
        out.push_back({TopologyHint{std::nullopt, true}});
      else if (list->empty())
        out.push_back({TopologyHint{std::nullopt, false}});
      else
        out.push_back(*list);
    }
  }
  return out;
}

// single-numa-node considers only preferred hints of one NUMA node (or of
// any, where a resource has no preference).
std::vector<std::vector<TopologyHint>> single_numa(std::vector<std::vector<TopologyHint>> all) {
  for (std::vector<TopologyHint>& hints : all)
    std::erase_if(hints, [](const TopologyHint& h) {
      return !h.preferred || (h.affinity && mask_count(*h.affinity) != 1);
    });
  return all;
}

// The kubelet's IsNarrowerThan: fewer NUMA nodes, or as many and lower ones.
bool narrower(NumaMask a, NumaMask b) {
  const int ca = mask_count(a), cb = mask_count(b);
  return ca == cb ? a < b : ca < cb;
}

// Volcano's mergeFilteredHints: over every choice of one hint per resource,
// the AND of their affinities, preferred if all were; preferred beats
// unpreferred, then the narrower wins. Starts from all NUMA nodes,
// unpreferred.
TopologyHint merge(NumaMask all_nodes, const std::vector<std::vector<TopologyHint>>& hints) {
  TopologyHint best{all_nodes, false};
  std::vector<size_t> pick(hints.size(), 0);
  for (const auto& h : hints)
    if (h.empty()) return best;  // no choice to make for that resource: no permutation
  for (;;) {
    NumaMask merged = all_nodes;
    bool preferred = true;
    for (size_t i = 0; i < hints.size(); ++i) {
      const TopologyHint& h = hints[i][pick[i]];
      merged &= h.affinity.value_or(all_nodes);
      preferred = preferred && h.preferred;
    }
    if (merged != 0) {
      if (preferred && !best.preferred)
        best = {merged, true};
      else if (preferred == best.preferred && narrower(merged, *best.affinity))
        best = {merged, preferred};
    }
    size_t i = 0;
    while (i < hints.size() && ++pick[i] == hints[i].size()) pick[i++] = 0;
    if (i == hints.size()) break;
  }
  return best;
}

}  // namespace

NumaMask mask_of(std::span<const int32_t> numa_nodes) {
  NumaMask m = 0;
  for (const int32_t n : numa_nodes)
    if (n >= 0 && n < 64) m |= NumaMask{1} << n;
  return m;
}

int mask_count(NumaMask m) { return std::popcount(m); }

std::optional<Policy> parse_policy(std::string_view name) {
  if (name == "none") return Policy::kNone;
  if (name == "best-effort") return Policy::kBestEffort;
  if (name == "restricted") return Policy::kRestricted;
  if (name == "single-numa-node") return Policy::kSingleNumaNode;
  return std::nullopt;
}

Admission admit(Policy policy, std::span<const int32_t> numa_nodes,
                std::span<const ProviderHints> providers) {
  if (policy == Policy::kNone) return {TopologyHint{}, true};
  const NumaMask all_nodes = mask_of(numa_nodes);
  std::vector<std::vector<TopologyHint>> hints = per_resource(providers);
  if (policy == Policy::kSingleNumaNode) hints = single_numa(std::move(hints));
  const TopologyHint best = merge(all_nodes, hints);
  return {best, policy == Policy::kBestEffort || best.preferred};
}

}  // namespace numa_aware
