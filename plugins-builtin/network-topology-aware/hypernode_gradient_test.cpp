// Volcano's hyperNodeGradientFn cases (network_topology_aware_test.go):
// BFS from the search root, tiers ascending, the allowed tier, the
// resource pre-filter skipped once the job occupies a HyperNode, and the
// search root narrowed to the highest allowed HyperNode above it.
#include "hypernode_gradient.h"

#include <gtest/gtest.h>

namespace scoria_nta {
namespace {

// 0 rack-a1, 1 rack-a2, 2 rack-b1, 3 rack-b2 (tier 1); 4 spine-a, 5 spine-b
// (tier 2); 6 the cluster top (tier 3).
Tree two_spines() {
  Tree t;
  t.tier = {1, 1, 1, 1, 2, 2, 3};
  t.parent = {4, 4, 5, 5, 6, 6, kNone};
  t.children = {{}, {}, {}, {}, {0, 1}, {2, 3}, {4, 5}};
  return t;
}

std::vector<std::pair<uint32_t, uint32_t>> pairs(const std::vector<Found>& f) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (const Found& x : f) out.emplace_back(x.hypernode, x.gradient);
  return out;
}

const auto kAll = [](uint32_t) { return true; };

TEST(HyperNodeGradient, LowestTierFirstUpToTheAllowedTier) {
  const Tree t = two_spines();
  EXPECT_EQ(pairs(gradients(t, 6, 1, kNone, kAll)),
            (std::vector<std::pair<uint32_t, uint32_t>>{{0, 0}, {1, 0}, {2, 0}, {3, 0}}));
  EXPECT_EQ(
      pairs(gradients(t, 6, 2, kNone, kAll)),
      (std::vector<std::pair<uint32_t, uint32_t>>{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 1}, {5, 1}}));
  EXPECT_EQ(gradients(t, 6, 3, kNone, kAll).back().hypernode, 6u);
}

TEST(HyperNodeGradient, HyperNodesWithoutRoomAreLeftOut) {
  const Tree t = two_spines();
  const auto fits = [](uint32_t h) { return h == 1 || h == 5; };
  EXPECT_EQ(pairs(gradients(t, 6, 2, kNone, fits)),
            (std::vector<std::pair<uint32_t, uint32_t>>{{1, 0}, {5, 1}}));
}

TEST(HyperNodeGradient, AnOccupiedHyperNodeNarrowsTheSearch) {
  const Tree t = two_spines();
  const auto none = [](uint32_t) { return false; };
  // In rack-b1 with tier 1 allowed: rack-b1 only, room not asked.
  EXPECT_EQ(pairs(gradients(t, 6, 1, 2, none)),
            (std::vector<std::pair<uint32_t, uint32_t>>{{2, 0}}));
  // Tier 2 allowed: spine-b and its racks.
  EXPECT_EQ(pairs(gradients(t, 6, 2, 2, none)),
            (std::vector<std::pair<uint32_t, uint32_t>>{{2, 0}, {3, 0}, {5, 1}}));
  // From a root outside what is allowed: nothing.
  EXPECT_TRUE(gradients(t, 4, 1, 2, none).empty());
  // Occupying the top while only tier 1 is allowed: nothing.
  EXPECT_TRUE(gradients(t, 6, 1, 6, none).empty());
}

TEST(HyperNodeGradient, LowestCommonAncestor) {
  const Tree t = two_spines();
  EXPECT_EQ(t.lca(0, 1), 4u);
  EXPECT_EQ(t.lca(0, 3), 6u);
  EXPECT_EQ(t.lca(kNone, 3), 3u);
  EXPECT_EQ(t.lca(2, 2), 2u);
}

TEST(HyperNodeGradient, EvictionGoesWidestFirstAndIsCapped) {
  const Tree t = two_spines();
  const auto found = gradients(t, 6, 3, kNone, kAll);
  EXPECT_EQ(pairs(reverse_and_cap(found, 3)),
            (std::vector<std::pair<uint32_t, uint32_t>>{{6, 0}, {4, 1}, {5, 1}}));
  EXPECT_EQ(pairs(reverse_and_cap(found, 4)),
            (std::vector<std::pair<uint32_t, uint32_t>>{{6, 0}, {4, 1}, {5, 1}, {3, 2}}));
}

}  // namespace
}  // namespace scoria_nta
