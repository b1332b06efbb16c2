// Volcano's hyperNodeGradientFn (network-topology-aware): the HyperNodes a
// job may be placed in, grouped by tier from the lowest, found by a
// breadth-first walk from a search root. Pure logic over the tier tree, so
// that it is tested without a host.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace scoria_nta {

inline constexpr uint32_t kNone = 0xFFFFFFFFu;

/// The tier tree: per HyperNode its tier, parent (kNone for the top) and
/// children (in the order to walk them).
struct Tree {
  std::vector<int32_t> tier;
  std::vector<uint32_t> parent;
  std::vector<std::vector<uint32_t>> children;

  /// `h` and its ancestors, nearest first.
  std::vector<uint32_t> ancestors(uint32_t h) const;
  /// Volcano's GetLCAHyperNode (an absent side yields the other).
  uint32_t lca(uint32_t a, uint32_t b) const;
};

/// One HyperNode found, and the gradient (0, 1, ...) it belongs to.
struct Found {
  uint32_t hypernode;
  uint32_t gradient;
};

/// The gradients under `root` for a job allowed up to `highest_tier` that
/// already occupies `allocated` (kNone if nothing yet): the search starts
/// from where `root` and the highest HyperNode allowed above `allocated`
/// meet, and keeps each HyperNode of an allowed tier that `fits` (asked
/// only when nothing is allocated yet). Empty when the two do not meet or
/// `allocated` lies above the allowed tier.
std::vector<Found> gradients(const Tree& tree, uint32_t root, int32_t highest_tier,
                             uint32_t allocated, const std::function<bool(uint32_t)>& fits);

/// For eviction: the gradients from the highest tier down, at most `cap`
/// HyperNodes in all (the last ones of a gradient cut short).
std::vector<Found> reverse_and_cap(std::span<const Found> found, size_t cap);

}  // namespace scoria_nta
