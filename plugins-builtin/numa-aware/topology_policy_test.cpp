// Volcano's policy tests (policy_*_test.go), case by case: two NUMA nodes,
// hints from a cpu and a gpu provider, and the hint each policy picks.
#include "topology_policy.h"

#include <gtest/gtest.h>

#include <vector>

#include "two_node_masks.h"

namespace numa_aware {
namespace {

TopologyHint hint(NumaMask m, bool preferred) { return {m, preferred}; }

std::vector<ProviderHints> providers(std::vector<TopologyHint> cpu, std::vector<TopologyHint> gpu) {
  return {ProviderHints{{"cpu", cpu}}, ProviderHints{{"gpu", gpu}}};
}

struct Case {
  const char* name;
  std::vector<ProviderHints> hints;
  TopologyHint expect;
};

const std::vector<int32_t> kNodes{0, 1};

// Cases 1-6 as Volcano's tests give them; the expectations differ by policy.
std::vector<ProviderHints> case_hints(int n) {
  switch (n) {
    case 1:
      return providers({hint(k01, false), hint(k0, true)}, {hint(k01, false), hint(k0, true)});
    case 2:
      return providers({hint(k01, false), hint(k1, true)}, {hint(k01, false), hint(k1, true)});
    case 3:
      return providers({hint(k01, false), hint(k0, true), hint(k1, true)},
                       {hint(k01, false), hint(k0, true), hint(k1, true)});
    case 4:
      return providers({hint(k01, false), hint(k0, true)}, {hint(k01, false), hint(k1, true)});
    case 5:
      return providers({hint(k01, false), hint(k0, true)}, {hint(k01, true)});
    default:
      return providers({hint(k01, true)}, {hint(k01, true)});
  }
}

TEST(NumaPolicy, BestEffortAsVolcano) {
  const TopologyHint expect[] = {hint(k0, true),  hint(k1, true), hint(k0, true),
                                 hint(k0, false), hint(k0, true), hint(k01, true)};
  for (int n = 1; n <= 6; ++n) {
    const Admission a = admit(Policy::kBestEffort, kNodes, case_hints(n));
    EXPECT_EQ(a.best, expect[n - 1]) << "test-" << n;
    EXPECT_TRUE(a.admit) << "test-" << n;  // best-effort admits all
  }
}

TEST(NumaPolicy, RestrictedAsVolcano) {
  const TopologyHint expect[] = {hint(k0, true),  hint(k1, true), hint(k0, true),
                                 hint(k0, false), hint(k0, true), hint(k01, true)};
  for (int n = 1; n <= 6; ++n) {
    const Admission a = admit(Policy::kRestricted, kNodes, case_hints(n));
    EXPECT_EQ(a.best, expect[n - 1]) << "test-" << n;
    EXPECT_EQ(a.admit, expect[n - 1].preferred) << "test-" << n;
  }
}

TEST(NumaPolicy, SingleNumaNodeAsVolcano) {
  // Case 5's gpu can only span both nodes: nothing is left to merge.
  const TopologyHint expect[] = {hint(k0, true), hint(k1, true), hint(k0, true), hint(k01, false),
                                 hint(k01, false)};
  for (int n = 1; n <= 5; ++n) {
    const Admission a = admit(Policy::kSingleNumaNode, kNodes, case_hints(n));
    EXPECT_EQ(a.best, expect[n - 1]) << "test-" << n;
    EXPECT_EQ(a.admit, expect[n - 1].preferred) << "test-" << n;
  }
}

TEST(NumaPolicy, NoneAdmitsWithoutHint) {
  const Admission a = admit(Policy::kNone, kNodes, case_hints(4));
  EXPECT_EQ(a.best, TopologyHint{});
  EXPECT_TRUE(a.admit);
}

TEST(NumaPolicy, NoPreferenceIsAnyNodePreferred) {
  // A provider with nothing to say (no CPU request) leaves every NUMA node.
  const std::vector<ProviderHints> none{ProviderHints{}};
  EXPECT_EQ(admit(Policy::kSingleNumaNode, kNodes, none).best, hint(k01, true));
  EXPECT_TRUE(admit(Policy::kRestricted, kNodes, none).admit);
  // A resource that fits nowhere: restricted refuses, best-effort admits.
  const std::vector<ProviderHints> nowhere{ProviderHints{{"cpu", std::vector<TopologyHint>{}}}};
  EXPECT_FALSE(admit(Policy::kRestricted, kNodes, nowhere).admit);
  EXPECT_TRUE(admit(Policy::kBestEffort, kNodes, nowhere).admit);
  EXPECT_EQ(admit(Policy::kBestEffort, kNodes, nowhere).best, hint(k01, false));
}

TEST(NumaPolicy, Names) {
  EXPECT_EQ(parse_policy("single-numa-node"), Policy::kSingleNumaNode);
  EXPECT_EQ(parse_policy("best-effort"), Policy::kBestEffort);
  EXPECT_EQ(parse_policy("restricted"), Policy::kRestricted);
  EXPECT_EQ(parse_policy("none"), Policy::kNone);
  EXPECT_FALSE(parse_policy("Restricted"));
}

}  // namespace
}  // namespace numa_aware
