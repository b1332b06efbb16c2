// gpushare's cards, as Volcano's gpushare tests check them.
#include "gpu_share.h"

#include <gtest/gtest.h>

namespace ds = scoria_deviceshare;

namespace {

ds::ShareNode node(double memory, double cards, std::optional<std::string_view> unhealthy = {}) {
  std::string bad;
  auto n = ds::ShareNode::build(memory, cards, unhealthy, &bad);
  EXPECT_TRUE(n.has_value());
  EXPECT_EQ(bad, "");
  return *n;
}

}  // namespace

TEST(DeviceShareGpuShare, MemorySplitEvenlyOverCards) {
  const ds::ShareNode n = node(16000, 4);
  ASSERT_EQ(n.cards().size(), 4u);
  for (const auto& c : n.cards()) EXPECT_EQ(c.memory, 4000u);
}

TEST(DeviceShareGpuShare, NoDeviceWithoutMemoryOrCards) {
  EXPECT_FALSE(ds::ShareNode::build(0, 4, {}, nullptr));
  EXPECT_FALSE(ds::ShareNode::build(16000, 0, {}, nullptr));
}

TEST(DeviceShareGpuShare, UnhealthyCardsLeftOutAndBadIdReported) {
  const ds::ShareNode n = node(16000, 4, "1,3");
  ASSERT_EQ(n.cards().size(), 2u);
  EXPECT_EQ(n.cards()[0].id, 0);
  EXPECT_EQ(n.cards()[1].id, 2);
  std::string bad;
  const auto m = ds::ShareNode::build(16000, 4, "x,2", &bad);
  ASSERT_TRUE(m);
  EXPECT_EQ(bad, "x");
  EXPECT_EQ(m->cards().size(), 3u);
}

TEST(DeviceShareGpuShare, MemoryGoesToTheLowestCardWithRoom) {
  ds::ShareNode n = node(8000, 2);
  n.add({0}, 3000);
  EXPECT_EQ(n.fit({500, 0}, true, false), std::vector<int>{0});
  EXPECT_EQ(n.fit({1500, 0}, true, false), std::vector<int>{1});
  EXPECT_FALSE(n.fit({4500, 0}, true, false));
}

// TestPredicateGPUbyMemory_OverSubscribedCardNotOffered: a card whose pods
// ask for more than it has is full, not nearly empty.
TEST(DeviceShareGpuShare, OverSubscribedCardNotOffered) {
  ds::ShareNode n = node(1000, 1);
  n.add({0}, 3000);
  EXPECT_TRUE(n.by_memory(500).empty());
  EXPECT_FALSE(n.fit({500, 0}, true, false));
}

TEST(DeviceShareGpuShare, NumberTakesIdleCardsOnly) {
  ds::ShareNode n = node(16000, 4);
  n.add({1}, 100);  // a pod sharing card 1: it is not idle
  EXPECT_EQ(n.fit({0, 2}, false, true), (std::vector<int>{0, 2}));
  EXPECT_EQ(n.fit({0, 3}, false, true), (std::vector<int>{0, 2, 3}));
  EXPECT_FALSE(n.fit({0, 4}, false, true));
  n.remove({1}, 100);
  EXPECT_EQ(n.fit({0, 4}, false, true), (std::vector<int>{0, 1, 2, 3}));
}

TEST(DeviceShareGpuShare, DisabledCheckDoesNotRefuse) {
  ds::ShareNode n = node(1000, 1);
  // GPUNumberEnable alone does not check memory (Volcano's FilterNode).
  EXPECT_TRUE(n.fit({5000, 0}, false, true));
}

TEST(DeviceShareGpuShare, GpuIndexAnnotation) {
  EXPECT_EQ(ds::parse_gpu_index("0"), std::vector<int>{0});
  EXPECT_EQ(ds::parse_gpu_index("0,3"), (std::vector<int>{0, 3}));
  EXPECT_FALSE(ds::parse_gpu_index("0,a"));
  EXPECT_FALSE(ds::parse_gpu_index(""));
  EXPECT_EQ(ds::format_gpu_index({0, 3}), "0,3");
}

// fits() answers as fit() does, for each check enabled.
TEST(DeviceShareGpuShare, FitsAgreesWithFit) {
  ds::ShareNode n = node(16000, 4);
  n.add({0}, 3500);
  n.add({2}, 1000);
  for (const ds::ShareRequest req :
       {ds::ShareRequest{500, 0}, ds::ShareRequest{4000, 0}, ds::ShareRequest{4500, 0},
        ds::ShareRequest{0, 2}, ds::ShareRequest{0, 3}, ds::ShareRequest{100, 3}})
    for (const auto& [sharing, number] : {std::pair{true, false}, std::pair{false, true}})
      EXPECT_EQ(n.fits(req, sharing, number), n.fit(req, sharing, number).has_value())
          << req.memory << " " << req.number << " " << sharing;
}
