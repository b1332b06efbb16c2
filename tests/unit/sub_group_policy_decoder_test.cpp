// A PodGroup's spec.subGroupPolicy (Volcano HEAD's SubGroupPolicySpec) as
// the loader reads it: every field, the CRD's defaults, and each value
// Volcano's CRD or admission refuses, refused naming the policy and the
// field.
#include <gtest/gtest.h>

#include <string>

#include "objects_from_text.h"

namespace scoria::source {
namespace {

using test_support::parse;
using test_support::parse_error;

std::string group(std::string_view policies) {
  return "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\n"
         "metadata: {namespace: ml, name: train}\nspec:\n  minMember: 8\n  subGroupPolicy:\n" +
         std::string(policies);
}

TEST(SubGroupPolicyDecoder, ReadsEveryFieldInOrder) {
  const auto objects = parse(group(R"(  - name: worker
    subGroupSize: 4
    minSubGroups: 2
    labelSelector:
      matchLabels: {volcano.sh/task-spec: worker}
      matchExpressions:
      - {key: zone, operator: In, values: [a, b]}
    matchLabelKeys: [volcano.sh/partition-id]
    networkTopology: {mode: hard, highestTierAllowed: 1}
  - name: ps
    matchLabelKeys: [volcano.sh/task-spec, rack]
)"));
  const auto& policies = objects.pod_groups.at(0).sub_group_policy;
  ASSERT_EQ(policies.size(), 2u);
  const model::SubGroupPolicy& worker = policies[0];
  EXPECT_EQ(worker.name, "worker");
  EXPECT_EQ(worker.sub_group_size, 4);
  EXPECT_EQ(worker.min_sub_groups, 2);
  ASSERT_TRUE(worker.selector.has_value());
  EXPECT_EQ(worker.selector->match_labels.at("volcano.sh/task-spec"), "worker");
  ASSERT_EQ(worker.selector->match_expressions.size(), 1u);
  EXPECT_EQ(worker.selector->match_expressions[0].key, "zone");
  EXPECT_EQ(worker.match_label_keys, std::vector<std::string>{"volcano.sh/partition-id"});
  ASSERT_TRUE(worker.network_topology.has_value());
  EXPECT_EQ(worker.network_topology->mode, model::NetworkTopology::Mode::Hard);
  EXPECT_EQ(worker.network_topology->highest_tier_allowed, 1);

  // The CRD's defaults: a sub-group of 1, none required, no selector (every
  // pod), no topology of its own.
  const model::SubGroupPolicy& ps = policies[1];
  EXPECT_EQ(ps.name, "ps");
  EXPECT_EQ(ps.sub_group_size, 1);
  EXPECT_EQ(ps.min_sub_groups, 0);
  EXPECT_FALSE(ps.selector.has_value());
  EXPECT_EQ(ps.match_label_keys, (std::vector<std::string>{"volcano.sh/task-spec", "rack"}));
  EXPECT_FALSE(ps.network_topology.has_value());
}

TEST(SubGroupPolicyDecoder, NoneIsAnEmptyList) {
  const auto objects = parse(
      "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\n"
      "metadata: {namespace: ml, name: train}\nspec: {minMember: 1}\n");
  EXPECT_TRUE(objects.pod_groups.at(0).sub_group_policy.empty());
}

TEST(SubGroupPolicyDecoder, RefusesWhatVolcanoRefusesNamingThePolicyAndField) {
  const std::string where =
      "cluster.yaml: document 1 (PodGroup ml/train): field spec.subGroupPolicy";
  EXPECT_EQ(parse_error(group("  - {name: w, subGroupSize: 0}\n")),
            where +
                "[0].subGroupSize: 0 is below 1; write how many pods make a sub-group, 1 or "
                "more");
  EXPECT_EQ(parse_error(group("  - {name: w}\n  - {name: p, minSubGroups: -2}\n")),
            where + "[1].minSubGroups: -2 is negative; write 0 or more");
  EXPECT_EQ(parse_error(group("  - {name: w, matchLabelKeys: [{a: b}]}\n")),
            where + "[0].matchLabelKeys[0]: is a mapping, not a label key; write a string");
  EXPECT_EQ(parse_error(group("  - {name: w, networkTopology: {mode: strict}}\n")),
            where +
                "[0].networkTopology.mode: \"strict\" is not a network topology mode; write "
                "hard or soft");
  // Volcano's admission webhook refuses both on a policy, as on the PodGroup.
  EXPECT_NE(parse_error(group("  - {name: w, networkTopology: {highestTierAllowed: 1, "
                              "highestTierName: rack}}\n"))
                .find(where + "[0].networkTopology.highestTierName: cannot be set with "
                              "highestTierAllowed"),
            std::string::npos);
  EXPECT_NE(parse_error(group("  - {name: w, labelSelector: {matchExpressions: [{key: a, "
                              "operator: Near}]}}\n"))
                .find(where + "[0].labelSelector.matchExpressions[0].operator"),
            std::string::npos);
  EXPECT_NE(parse_error(group("  - w\n")).find(where + "[0]"), std::string::npos);
  EXPECT_NE(parse_error(group("  {name: w}\n")).find(where), std::string::npos);
}

}  // namespace
}  // namespace scoria::source
