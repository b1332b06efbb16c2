// pick_domains against the cases of Volcano's PickDomainsFromGradients and
// GetCandidateDomains tests (gangpreempt_test.go, gangreclaim_test.go,
// actions/utils/util_test.go).
#include "domains.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

using eviction::kNoDomain;
using eviction::pick_domains;
using Domains = std::vector<uint32_t>;

constexpr uint32_t kTop = 9;

// Gradients {d1, d2}, {d2, d3} with maxDomains 2: d1, d2 (the repeated d2
// counts once, and the cap stops before d3).
TEST(PickDomains, DeduplicatesAndCaps) {
  const Domains gradients = {1, 2, 2, 3};
  EXPECT_EQ(pick_domains(gradients, 2, kNoDomain), (Domains{1, 2}));
  EXPECT_EQ(pick_domains(gradients, 8, kNoDomain), (Domains{1, 2, 3}));
}

TEST(PickDomains, KeepsTheOrderGiven) {
  const Domains gradients = {5, 3, 4, 3, 1};
  EXPECT_EQ(pick_domains(gradients, 8, kTop), (Domains{5, 3, 4, 1}));
  EXPECT_EQ(pick_domains(gradients, 1, kTop), (Domains{5}));
}

// A cap of 0 or less caps nothing (the actions never pass one: they fall
// back to 8 first).
TEST(PickDomains, NonPositiveCapKeepsAll) {
  const Domains gradients = {1, 2, 3};
  EXPECT_EQ(pick_domains(gradients, 0, kNoDomain), gradients);
  EXPECT_EQ(pick_domains(gradients, -1, kNoDomain), gradients);
}

// No gradient: the cluster top (a job without a hard topology).
TEST(PickDomains, FallsBackWhenEmpty) {
  EXPECT_EQ(pick_domains({}, 8, kTop), (Domains{kTop}));
  const Domains only_none = {kNoDomain, kNoDomain};
  EXPECT_EQ(pick_domains(only_none, 8, kTop), (Domains{kTop}));
}

// No gradient and no fallback (a job with a hard topology): nothing to try.
TEST(PickDomains, HardTopologyWithoutGradientTriesNothing) {
  EXPECT_TRUE(pick_domains({}, 8, kNoDomain).empty());
}

// The fallback is only for an empty result, never appended.
TEST(PickDomains, FallbackNotAddedWhenSomethingFound) {
  const Domains gradients = {kNoDomain, 4};
  EXPECT_EQ(pick_domains(gradients, 8, kTop), (Domains{4}));
}

}  // namespace
