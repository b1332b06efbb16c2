// GPU exclusivity, porting the cases of Volcano's
// pkg/scheduler/plugins/deviceshare/gpuexclusive_test.go: rule matching,
// reading the rules from the plugin's arguments, and the cards a rule's pods
// hold counting as full for the next pod of that rule.
#include "gpu_exclusive.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "vgpu.h"

namespace ds = scoria_deviceshare;

namespace {

using Labels = std::map<std::string, std::string, std::less<>>;
using Args = std::vector<std::pair<std::string, std::string>>;

std::vector<uint32_t> match(const std::vector<ds::ExclusiveRule>& rules, const Labels& labels) {
  return ds::matching_rules(rules, [&](std::string_view key) -> std::optional<std::string_view> {
    const auto it = labels.find(key);
    if (it == labels.end()) return std::nullopt;
    return std::string_view(it->second);
  });
}

// Volcano's testExclusiveRules.
std::vector<ds::ExclusiveRule> test_rules() {
  return {ds::ExclusiveRule{{{"app", "training"}, {"team", "ml"}}},
          ds::ExclusiveRule{{{"workload", "inference"}}}};
}

const Labels kTraining = {{"app", "training"}, {"team", "ml"}};
const Labels kInference = {{"workload", "inference"}};
const Labels kBoth = {{"app", "training"}, {"team", "ml"}, {"workload", "inference"}};
const Labels kServing = {{"app", "serving"}};

// `count` cards GPU-0..., each for up to 10 pods with 16384 MB, as
// Volcano's makeTestGPUDevice.
ds::VgpuNode cards(int count) {
  std::string reg;
  for (int i = 0; i < count; ++i)
    reg += "GPU-" + std::to_string(i) + ",10,16384,NVIDIA-Tesla V100,true,hami-core:";
  std::string error;
  auto node = ds::VgpuNode::decode("n1", reg, &error);
  EXPECT_TRUE(node) << error;
  return *node;
}

ds::VgpuRequest vgpus(uint64_t nums) {
  ds::VgpuRequest r;
  r.containers.push_back({nums, 1024, 101, 0});
  return r;
}

std::vector<size_t> cards_taken(const ds::VgpuFit& fit) {
  std::vector<size_t> out;
  for (const auto& container : fit.containers)
    for (const auto& use : container) out.push_back(use.card);
  return out;
}

}  // namespace

// TestPodMatchesRule.
TEST(DeviceShareGpuExclusive, PodMatchesRuleOnlyWithEveryLabel) {
  const auto rules = test_rules();
  const std::vector<ds::ExclusiveRule> rule0 = {rules[0]};
  const std::vector<ds::ExclusiveRule> rule1 = {rules[1]};
  EXPECT_EQ(match(rule0, kTraining), std::vector<uint32_t>{0});
  EXPECT_EQ(match(rule0, {{"app", "training"}, {"team", "ml"}, {"env", "prod"}}),
            std::vector<uint32_t>{0});                                         // extra labels
  EXPECT_TRUE(match(rule0, {{"app", "training"}}).empty());                    // one label missing
  EXPECT_TRUE(match(rule0, {{"app", "training"}, {"team", "data"}}).empty());  // wrong value
  EXPECT_EQ(match(rule1, kInference), std::vector<uint32_t>{0});
  EXPECT_TRUE(match(rule0, {}).empty());  // no labels
}

// TestMatchingRules.
TEST(DeviceShareGpuExclusive, MatchingRulesListsEveryRuleMatched) {
  const auto rules = test_rules();
  EXPECT_EQ(match(rules, kTraining), std::vector<uint32_t>{0});
  EXPECT_EQ(match(rules, kInference), std::vector<uint32_t>{1});
  EXPECT_EQ(match(rules, kBoth), (std::vector<uint32_t>{0, 1}));
  EXPECT_TRUE(match(rules, kServing).empty());
  EXPECT_TRUE(match(rules, {}).empty());
}

// TestLoadGPUExclusiveConfig: the rules as the config loader delivers a
// list of maps (NAME.<item>.<label>), beside other arguments.
TEST(DeviceShareGpuExclusive, ReadsRulesFromFlattenedArguments) {
  std::vector<std::string> problems;
  EXPECT_TRUE(ds::parse_exclusive_rules({{"deviceshare.VGPUEnable", "true"}}, &problems).empty());
  EXPECT_TRUE(problems.empty());

  const Args args = {{"deviceshare.GPUExclusiveRules.0.app", "training"},
                     {"deviceshare.GPUExclusiveRules.0.team", "ml"},
                     {"deviceshare.GPUExclusiveRules.1.workload", "inference"},
                     {"deviceshare.VGPUEnable", "true"}};
  const auto rules = ds::parse_exclusive_rules(args, &problems);
  EXPECT_TRUE(problems.empty());
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].labels, (Labels{{"app", "training"}, {"team", "ml"}}));
  EXPECT_EQ(rules[1].labels, (Labels{{"workload", "inference"}}));
}

TEST(DeviceShareGpuExclusive, LabelKeysKeepTheirDotsAndItemsTheirNumberOrder) {
  std::vector<std::string> problems;
  Args args;
  for (int i = 0; i <= 10; ++i)
    args.emplace_back(
        "deviceshare.GPUExclusiveRules." + std::to_string(i) + ".app.kubernetes.io/name",
        "r" + std::to_string(i));
  std::sort(args.begin(), args.end());  // as the host hands them: by key, "10" before "2"
  const auto rules = ds::parse_exclusive_rules(args, &problems);
  EXPECT_TRUE(problems.empty());
  ASSERT_EQ(rules.size(), 11u);
  for (size_t i = 0; i < rules.size(); ++i)
    EXPECT_EQ(rules[i].labels, (Labels{{"app.kubernetes.io/name", "r" + std::to_string(i)}}));
}

// TestParseExclusiveRulesHandlesEdgeCases, and what Scoria reports where
// Volcano drops a rule silently.
TEST(DeviceShareGpuExclusive, UnreadableRulesAreReportedAndLeftOut) {
  std::vector<std::string> problems;
  // Written as one text, not a list.
  EXPECT_TRUE(
      ds::parse_exclusive_rules({{"deviceshare.GPUExclusiveRules", "app=trainer"}}, &problems)
          .empty());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("not a list of label maps"), std::string::npos) << problems[0];
  EXPECT_NE(problems[0].find("app=trainer"), std::string::npos) << problems[0];

  // An item that is not a map, and an empty map (which writes no key at
  // all: item 1 is missing), among good ones; the good ones stay.
  problems.clear();
  const auto rules = ds::parse_exclusive_rules({{"deviceshare.GPUExclusiveRules.0", "trainer"},
                                                {"deviceshare.GPUExclusiveRules.2.app", "a"}},
                                               &problems);
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0].labels, (Labels{{"app", "a"}}));
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(problems[0].find("item 0 is \"trainer\", not a map of labels"), std::string::npos)
      << problems[0];
  EXPECT_NE(problems[1].find("item 1 gives no labels"), std::string::npos) << problems[1];

  // An empty list gives no key, and an argument left empty one empty text:
  // no rule, and nothing to report.
  problems.clear();
  EXPECT_TRUE(ds::parse_exclusive_rules({}, &problems).empty());
  EXPECT_TRUE(
      ds::parse_exclusive_rules({{"deviceshare.GPUExclusiveRules", ""}}, &problems).empty());
  EXPECT_TRUE(problems.empty());
  // Nowhere to report to: still no crash.
  EXPECT_TRUE(
      ds::parse_exclusive_rules({{"deviceshare.GPUExclusiveRules.x.app", "a"}}, nullptr).empty());
}

// TestCapGPUsOnlyAffectsSpecifiedIndices: reserved cards are full for the
// pod asking, the others untouched, and nothing is changed for the next.
TEST(DeviceShareGpuExclusive, ReservedCardsCountAsFullOnlyForThatAsk) {
  const ds::VgpuNode node = cards(4);
  const std::vector<bool> reserved = {true, true};
  EXPECT_FALSE(node.fits(vgpus(3), nullptr, reserved));
  ASSERT_TRUE(node.fits(vgpus(2), nullptr, reserved));
  const auto fit = node.fit(vgpus(2), "binpack", nullptr, reserved);
  ASSERT_TRUE(fit);
  EXPECT_EQ(cards_taken(*fit), (std::vector<size_t>{2, 3}));
  // Restored: without the mask every card takes a pod.
  EXPECT_TRUE(node.fits(vgpus(4), nullptr));
  EXPECT_TRUE(node.fit(vgpus(4), "binpack", nullptr));
}

// A pod of several containers: a reserved card stays full for each of them.
TEST(DeviceShareGpuExclusive, ReservedCardsStayFullForEveryContainer) {
  const ds::VgpuNode node = cards(2);
  ds::VgpuRequest two = vgpus(1);
  two.containers.push_back(two.containers.front());
  const auto fit = node.fit(two, "binpack", nullptr, {true});
  ASSERT_TRUE(fit);
  EXPECT_EQ(cards_taken(*fit), (std::vector<size_t>{1, 1}));
  EXPECT_TRUE(node.fits(two, nullptr, {true}));
  EXPECT_FALSE(node.fits(two, nullptr, {true, true}));
}

// TestReservedGPUsForPod, TestNonMatchingPodDoesNotReserve: only the cards
// of the rules the pod matches are reserved for it.
TEST(DeviceShareGpuExclusive, OnlySameRuleCardsAreReserved) {
  const auto rules = test_rules();
  ds::ExclusiveCards held;
  held.add(match(rules, kTraining), {0});   // pod-a on GPU-0
  held.add(match(rules, kInference), {1});  // pod-b on GPU-1
  EXPECT_EQ(held.reserved_for(match(rules, kTraining)), (std::vector<bool>{true}));
  EXPECT_EQ(held.reserved_for(match(rules, kInference)), (std::vector<bool>{false, true}));
  EXPECT_TRUE(held.reserved_for(match(rules, kServing)).empty());
}

// TestPodMatchingMultipleRulesSeesUnionOfReservedGPUs.
TEST(DeviceShareGpuExclusive, PodOfTwoRulesSeesTheCardsOfBoth) {
  const auto rules = test_rules();
  ds::ExclusiveCards held;
  held.add(match(rules, kTraining), {0});
  held.add(match(rules, kInference), {1});
  EXPECT_EQ(held.reserved_for(match(rules, kBoth)), (std::vector<bool>{true, true}));
}

// TestEndToEndExclusive: a training pod sees three of the four cards, an
// unrelated pod all four.
TEST(DeviceShareGpuExclusive, EndToEndOnANode) {
  const auto rules = test_rules();
  const ds::VgpuNode node = cards(4);
  ds::ExclusiveCards held;
  held.add(match(rules, kTraining), {0});
  held.add(match(rules, kInference), {1});
  const auto training = held.reserved_for(match(rules, kTraining));
  EXPECT_TRUE(node.fits(vgpus(3), nullptr, training));
  EXPECT_FALSE(node.fits(vgpus(4), nullptr, training));
  const auto serving = held.reserved_for(match(rules, kServing));
  EXPECT_TRUE(node.fits(vgpus(4), nullptr, serving));
}

// TestOnSessionOpenWrapsDevices: a pod already on the node holds, for its
// rules, the cards its volcano.sh/vgpu-ids-new names.
TEST(DeviceShareGpuExclusive, PlacedPodHoldsTheCardsOfItsAnnotation) {
  const auto rules = test_rules();
  const ds::VgpuNode node = cards(2);
  bool bad = false;
  const ds::VgpuFit fit = node.held("GPU-0,NVIDIA,1024,0:", &bad);
  EXPECT_FALSE(bad);
  ds::ExclusiveCards held;
  held.add(match(rules, kTraining), cards_taken(fit));
  EXPECT_TRUE(held.holds(0, 0));
  EXPECT_FALSE(held.holds(0, 1));
  EXPECT_FALSE(held.holds(1, 0));
}

// A card stays reserved until the last pod of the rule on it leaves; two
// containers of one pod on one card count once.
TEST(DeviceShareGpuExclusive, CardFreedWhenItsLastSameRulePodLeaves) {
  ds::ExclusiveCards held;
  held.add({0}, {0, 0});
  held.add({0}, {0});
  held.remove({0}, {0, 0});
  EXPECT_TRUE(held.holds(0, 0));
  held.remove({0}, {0});
  EXPECT_FALSE(held.holds(0, 0));
  EXPECT_TRUE(held.reserved_for({0}).empty());
  held.remove({0, 1}, {0, 5});  // nothing held: nothing goes below zero
  EXPECT_FALSE(held.holds(0, 0));
}

// Volcano's persistedGPUs: what was chosen for a pod is kept while the pod
// stands on that node, and dropped once it does not.
TEST(DeviceShareGpuExclusive, RememberedPlacementsLastWhileThePodIsOnItsNode) {
  ds::RememberedPlacements memory;
  memory.remember("ml/p1", {"n1", {"GPU-1"}, {0}});
  memory.remember("ml/p2", {"n1", {"GPU-0"}, {1}});

  // Session open: p1 stands on n1, p2 on none.
  const auto* p1 = memory.keep("ml/p1", "n1");
  ASSERT_NE(p1, nullptr);
  EXPECT_EQ(p1->uuids, std::vector<std::string>{"GPU-1"});
  EXPECT_EQ(p1->rules, std::vector<uint32_t>{0});
  memory.finish_session_open();
  EXPECT_EQ(memory.size(), 1u);

  // Next session: p1 is on another node; nothing holds there, and it goes.
  EXPECT_EQ(memory.keep("ml/p1", "n2"), nullptr);
  EXPECT_EQ(memory.keep("ml/p2", "n1"), nullptr);
  memory.finish_session_open();
  EXPECT_EQ(memory.size(), 0u);
}
