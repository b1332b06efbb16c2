// The gang actions' bundle order and the plugins' veto over bundles
// (plugins-builtin/eviction/bundles.h), as Volcano's actions/utils
// bundle_test.go checks them. Only the parts that need no session.
#include <gtest/gtest.h>

#include <array>
#include <string_view>
#include <vector>

#include "bundles.h"

namespace {

using eviction::Bundle;
using eviction::BundleType;
using eviction::Victim;

// Handles the bundle code only compares, never reads.
std::array<char, 8> storage;
const scoria_task* task_at(size_t i) { return reinterpret_cast<const scoria_task*>(&storage[i]); }

const std::vector<double> kOneCpu = {1000, 0, 0};

Bundle bundle(BundleType type, std::string_view job_uid, size_t rank, std::string_view task_uid,
              size_t task, double global_cpu) {
  Bundle b;
  b.type = type;
  b.job_uid = job_uid;
  b.rank = rank;
  b.tasks = {Victim{task_at(task), task_uid, 0, kOneCpu.data()}};
  b.local = kOneCpu;
  b.global = {global_cpu, 0, 0};
  return b;
}

std::vector<std::string_view> first_tasks(const std::vector<Bundle>& bundles) {
  std::vector<std::string_view> out;
  for (const Bundle& b : bundles) out.push_back(b.tasks.front().uid);
  return out;
}

TEST(GangBundles, SafeFirstThenRankThenTheBetterReturn) {
  // Volcano's TestSortBundlesForPreempt_TypePriorityAndROI: a whole bundle
  // freeing 1 of its job's 2 cpu beats one freeing 1 of 4.
  std::vector<Bundle> bundles = {bundle(BundleType::kWhole, "j/low", 0, "w1", 0, 4000),
                                 bundle(BundleType::kSafe, "j/high", 1, "s1", 1, 0),
                                 bundle(BundleType::kWhole, "j/low", 0, "w2", 2, 2000)};
  eviction::sort_bundles(bundles, kOneCpu);
  EXPECT_EQ(first_tasks(bundles), (std::vector<std::string_view>{"s1", "w2", "w1"}));
}

TEST(GangBundles, RankDecidesBeforeReturnAndReturnWhenRanksTie) {
  // Volcano's TestSortBundlesForReclaim_UsesQueueOrderThenROI.
  std::vector<Bundle> bundles = {bundle(BundleType::kWhole, "j/b", 1, "b", 0, 2000),
                                 bundle(BundleType::kWhole, "j/a", 0, "a", 1, 4000)};
  eviction::sort_bundles(bundles, kOneCpu);
  EXPECT_EQ(first_tasks(bundles), (std::vector<std::string_view>{"a", "b"}));
  bundles = {bundle(BundleType::kWhole, "j/c", 0, "c", 0, 4000),
             bundle(BundleType::kWhole, "j/d", 0, "d", 1, 2000)};
  eviction::sort_bundles(bundles, kOneCpu);
  EXPECT_EQ(first_tasks(bundles), (std::vector<std::string_view>{"d", "c"}));
}

TEST(GangBundles, TiesFallToTheJobUid) {
  // Volcano's TestSortBundlesForReclaim_DeterministicTieBreaker.
  std::vector<Bundle> bundles = {bundle(BundleType::kWhole, "j/b", 0, "b", 0, 2000),
                                 bundle(BundleType::kWhole, "j/a", 0, "a", 1, 2000)};
  eviction::sort_bundles(bundles, kOneCpu);
  EXPECT_EQ(first_tasks(bundles), (std::vector<std::string_view>{"a", "b"}));
}

TEST(GangBundles, WholeBundleGoesWithAnyTaskRefusedSafeBundleShrinks) {
  // Volcano's TestApplyAllowedTasks_WholeAtomicAndSafeShrink.
  Bundle safe = bundle(BundleType::kSafe, "j/x", 0, "t1", 0, 0);
  safe.tasks.push_back(Victim{task_at(1), "t2", 0, kOneCpu.data()});
  safe.local = {2000, 0, 0};
  Bundle whole = bundle(BundleType::kWhole, "j/x", 0, "t3", 2, 3000);
  whole.tasks.push_back(Victim{task_at(3), "t4", 0, kOneCpu.data()});
  const std::vector<Bundle> bundles = {safe, whole};
  const std::vector<const scoria_task*> flat = eviction::flatten(bundles);
  EXPECT_EQ(flat,
            (std::vector<const scoria_task*>{task_at(0), task_at(1), task_at(2), task_at(3)}));

  const std::vector<uint8_t> selected = {1, 0, 1, 0};
  const std::vector<Bundle> valid = eviction::keep_permitted(bundles, selected, 3);
  ASSERT_EQ(valid.size(), 1u);
  EXPECT_EQ(valid[0].type, BundleType::kSafe);
  ASSERT_EQ(valid[0].tasks.size(), 1u);
  EXPECT_EQ(valid[0].tasks[0].uid, "t1");
  EXPECT_EQ(valid[0].local, kOneCpu);  // what is left of it

  const std::vector<uint8_t> all = {0, 0, 1, 1};
  const std::vector<Bundle> whole_only = eviction::keep_permitted(bundles, all, 3);
  ASSERT_EQ(whole_only.size(), 1u);
  EXPECT_EQ(whole_only[0].type, BundleType::kWhole);
  EXPECT_EQ(whole_only[0].tasks.size(), 2u);
}

}  // namespace
