// vGPU cards, porting the cases of Volcano's vgpu utils_test.go and
// deviceshare_test.go.
#include "vgpu.h"

#include <gtest/gtest.h>

namespace ds = scoria_deviceshare;

namespace {

// `count` cards GPU-0..., each shared by `number` pods with `memory` MB.
ds::VgpuNode cards(int count, uint64_t memory, uint64_t number,
                   std::string_view type = "NVIDIA-Tesla V100") {
  std::string reg;
  for (int i = 0; i < count; ++i)
    reg += "GPU-" + std::to_string(i) + "," + std::to_string(number) + "," +
           std::to_string(memory) + "," + std::string(type) + ",true,hami-core:";
  std::string error;
  auto node = ds::VgpuNode::decode("n1", reg, &error);
  EXPECT_TRUE(node) << error;
  return *node;
}

ds::VgpuRequest one_card(uint64_t mem, uint64_t cores = 0, uint64_t nums = 1) {
  ds::VgpuRequest r;
  r.containers.push_back({nums, mem, mem == 0 ? 100u : 101u, cores});
  return r;
}

std::string uuid_of(const ds::VgpuNode& node, const ds::VgpuFit& fit) {
  return node.cards()[fit.containers.at(0).at(0).card].uuid;
}

}  // namespace

TEST(DeviceShareVgpu, DecodeRegisterAnnotation) {
  std::string error;
  const auto node = ds::VgpuNode::decode(
      "n1", "GPU-a,10,32768,NVIDIA-A100,true,hami-core:GPU-b,4,16384,NVIDIA-T4,false,mig:", &error);
  ASSERT_TRUE(node) << error;
  ASSERT_EQ(node->cards().size(), 2u);
  EXPECT_EQ(node->cards()[0].uuid, "GPU-a");
  EXPECT_EQ(node->cards()[0].number, 10u);
  EXPECT_EQ(node->cards()[0].memory, 32768u);
  EXPECT_EQ(node->cards()[1].type, "NVIDIA-T4");
  EXPECT_FALSE(node->cards()[1].health);
  EXPECT_EQ(node->mode(), "hami-core");  // no MIG geometry: shared as HAMi-core
}

TEST(DeviceShareVgpu, DecodeRefusesWhatDoesNotParse) {
  for (std::string_view bad :
       {"", "GPU-a,10,32768", "GPU-a,10,32768,NVIDIA,true:",
        "GPU-a,ten,32768,NVIDIA,true,hami-core:", "GPU-a,10,32768,NVIDIA,maybe,hami-core:"}) {
    std::string error;
    EXPECT_FALSE(ds::VgpuNode::decode("n1", bad, &error)) << bad;
    EXPECT_FALSE(error.empty()) << bad;
  }
}

// TestVgpuScore: binpack scores the card by its memory used after the pod.
TEST(DeviceShareVgpu, BinpackScoreIsMemoryUsedAfterThePod) {
  ds::VgpuNode node = cards(1, 30000, 10);
  node.apply(ds::VgpuFit{{{ds::CardUse{0, 3000, 0}}}, 0}, "");
  const auto fit = node.fit(one_card(1000), "binpack", nullptr);
  ASSERT_TRUE(fit);
  EXPECT_NEAR(fit->score, 4000.0 * 100 / 30000, 0.05);
  // Spread scores after counting the pod too: never an idle card, so 0.
  const auto spread = cards(1, 30000, 10).fit(one_card(1000), "spread", nullptr);
  ASSERT_TRUE(spread);
  EXPECT_EQ(spread->score, 0);
}

// Test_FilterNode: three cards of different memory for one container.
TEST(DeviceShareVgpu, ThreeCardsOfDifferentMemory) {
  std::string error;
  auto node = ds::VgpuNode::decode("n1",
                                   "GPU-0,10,30000,NVIDIA,true,hami-core:"
                                   "GPU-1,10,20000,NVIDIA,true,hami-core:"
                                   "GPU-2,10,30000,NVIDIA,true,hami-core:",
                                   &error);
  ASSERT_TRUE(node);
  const auto fit = node->fit(one_card(0, 100, 3), "binpack", &error);
  ASSERT_TRUE(fit) << error;
  EXPECT_EQ(fit->containers.at(0).size(), 3u);
  EXPECT_FALSE(node->fit(one_card(0, 100, 4), "binpack", &error));
}

// TestSortedDeviceIndicesByPolicy_PicksExpectedDevice.
TEST(DeviceShareVgpu, PolicyPicksTheCard) {
  ds::VgpuNode busy = cards(2, 16384, 4);
  busy.apply(ds::VgpuFit{{{ds::CardUse{0, 4096, 0}}}, 0}, "");
  EXPECT_EQ(uuid_of(busy, *busy.fit(one_card(4096), "binpack", nullptr)), "GPU-0");
  EXPECT_EQ(uuid_of(busy, *busy.fit(one_card(4096), "spread", nullptr)), "GPU-1");
  const ds::VgpuNode three = cards(3, 16384, 4);
  EXPECT_EQ(uuid_of(three, *three.fit(one_card(4096), "", nullptr)), "GPU-2");
}

// TestBinpackStacksSequentialPods, and spread's opposite.
TEST(DeviceShareVgpu, BinpackStacksSpreadSeparates) {
  for (const auto& [policy, same] : {std::pair{"binpack", true}, std::pair{"spread", false}}) {
    ds::VgpuNode node = cards(3, 16384, 4);
    std::vector<std::string> got;
    for (int i = 0; i < 3; ++i) {
      const auto fit = node.fit(one_card(4096), policy, nullptr);
      ASSERT_TRUE(fit);
      node.apply(*fit, "");
      got.push_back(uuid_of(node, *fit));
    }
    if (same) {
      EXPECT_EQ(got, (std::vector<std::string>{"GPU-0", "GPU-0", "GPU-0"}));
    } else {
      EXPECT_EQ(got, (std::vector<std::string>{"GPU-0", "GPU-1", "GPU-2"}));
    }
  }
}

TEST(DeviceShareVgpu, LimitsOfACard) {
  ds::VgpuNode node = cards(1, 10000, 2);
  node.apply(ds::VgpuFit{{{ds::CardUse{0, 6000, 50}}}, 0}, "");
  EXPECT_FALSE(node.fit(one_card(5000), "", nullptr)) << "memory";
  EXPECT_FALSE(node.fit(one_card(1000, 60), "", nullptr)) << "cores over 100";
  EXPECT_FALSE(node.fit(one_card(1000, 100), "", nullptr)) << "exclusive on a shared card";
  EXPECT_FALSE(node.fit(one_card(0), "", nullptr)) << "no memory asks the whole card";
  EXPECT_TRUE(node.fit(one_card(4000, 50), "", nullptr));
  node.apply(*node.fit(one_card(1000), "", nullptr), "");
  EXPECT_FALSE(node.fit(one_card(1000), "", nullptr)) << "pod count";
}

// TestCheckGPUtype.
TEST(DeviceShareVgpu, CardTypeAnnotations) {
  const ds::VgpuNode node = cards(1, 16384, 4, "NVIDIA");
  auto with = [](std::optional<std::string> use, std::optional<std::string> no_use) {
    ds::VgpuRequest r = one_card(1000);
    r.use_types = std::move(use);
    r.no_use_types = std::move(no_use);
    return r;
  };
  EXPECT_TRUE(node.fit(with("NVIDIA", {}), "", nullptr));
  EXPECT_TRUE(node.fit(with("nvidia", {}), "", nullptr));
  EXPECT_TRUE(node.fit(with("AMD,NVIDIA,INTEL", {}), "", nullptr));
  EXPECT_FALSE(node.fit(with("AMD,INTEL", {}), "", nullptr));
  EXPECT_FALSE(node.fit(with({}, "NVIDIA"), "", nullptr));
  EXPECT_FALSE(node.fit(with({}, "nvidia"), "", nullptr));
  EXPECT_FALSE(node.fit(with({}, "AMD,NVIDIA"), "", nullptr));
  EXPECT_TRUE(node.fit(with({}, "AMD,INTEL"), "", nullptr));
  EXPECT_FALSE(cards(1, 16384, 4, "MLU").fit(one_card(1000), "", nullptr)) << "not NVIDIA";
}

// TestGPUUUIDConstraints.
TEST(DeviceShareVgpu, UuidAnnotations) {
  const ds::VgpuNode node = cards(2, 16384, 4);
  auto with = [](std::vector<std::string> use, std::vector<std::string> no_use) {
    ds::VgpuRequest r = one_card(4096);
    r.use_uuids = std::move(use);
    r.no_use_uuids = std::move(no_use);
    return r;
  };
  EXPECT_EQ(uuid_of(node, *node.fit(with({"GPU-0"}, {}), "", nullptr)), "GPU-0");
  EXPECT_EQ(uuid_of(node, *node.fit(with({}, {"GPU-1"}), "", nullptr)), "GPU-0");
  std::string why;
  EXPECT_FALSE(node.fit(with({"GPU-unknown"}, {}), "", &why));
  EXPECT_NE(why.find("UUID"), std::string::npos);
  EXPECT_FALSE(node.fit(with({}, {"GPU-0", "GPU-1"}), "", nullptr));
  EXPECT_FALSE(node.fit(with({"GPU-0"}, {"GPU-0"}), "", nullptr)) << "denylist wins";
  EXPECT_EQ(ds::split_list(" a, ,b,"), (std::vector<std::string>{"a", "b"}));
}

// TestDeviceHasPodFromSameGroup: the podgroup spread policy keeps a
// group's pods on different cards.
TEST(DeviceShareVgpu, PodGroupSpreadAvoidsItsGroupsCards) {
  ds::VgpuNode node = cards(2, 16384, 4);
  node.apply(ds::VgpuFit{{{ds::CardUse{1, 1000, 0}}}, 0}, "ns/pg");
  ds::VgpuRequest r = one_card(1000);
  r.spread_group = "ns/pg";
  EXPECT_EQ(uuid_of(node, *node.fit(r, "binpack", nullptr)), "GPU-0");
  node.apply(ds::VgpuFit{{{ds::CardUse{0, 1000, 0}}}, 0}, "ns/pg");
  EXPECT_FALSE(node.fit(r, "binpack", nullptr));
  node.release(ds::VgpuFit{{{ds::CardUse{0, 1000, 0}}}, 0}, "ns/pg");
  EXPECT_TRUE(node.fit(r, "binpack", nullptr));
}

// TestDecodeContainerDevicesRejectsInvalidUsage, and the encoding.
TEST(DeviceShareVgpu, PodDevicesAnnotation) {
  const ds::VgpuNode node = cards(2, 16384, 4);
  bool bad = false;
  ds::VgpuFit held = node.held("GPU-0,NVIDIA,4096,30:", &bad);
  EXPECT_FALSE(bad);
  ASSERT_EQ(held.containers.at(0).size(), 1u);
  EXPECT_EQ(held.containers[0][0].mem, 4096u);
  EXPECT_EQ(held.containers[0][0].cores, 30u);
  for (std::string_view s :
       {"GPU-0,NVIDIA,-5,30:", "GPU-0,NVIDIA,4096,-1:", "GPU-0,NVIDIA,abc,30:", "GPU-0,NVIDIA:"}) {
    bad = false;
    EXPECT_TRUE(node.held(s, &bad).containers.at(0).empty()) << s;
  }
  bad = false;
  held = node.held("GPU-0,NVIDIA,-5,30:GPU-1,NVIDIA,2048,10:", &bad);
  EXPECT_TRUE(bad);
  ASSERT_EQ(held.containers.at(0).size(), 1u);
  EXPECT_EQ(held.containers[0][0].card, 1u);
  // Each card counted once per pod, as HAMi-core's AddPod.
  held = node.held("GPU-0,NVIDIA,1000,0:;GPU-0,NVIDIA,1000,0:", &bad);
  EXPECT_EQ(held.containers.at(0).size() + held.containers.at(1).size(), 1u);
  const ds::VgpuFit two{{{ds::CardUse{0, 1000, 30}}, {ds::CardUse{1, 2000, 0}}}, 0};
  EXPECT_EQ(node.encode(two), "GPU-0,NVIDIA,1000,30:;GPU-1,NVIDIA,2000,0:");
}

// fits() is fit() without the list: the same answer and score for every
// request on every state these tests build.
TEST(DeviceShareVgpu, FitsAgreesWithFit) {
  for (const char* policy : {"binpack", "spread", ""}) {
    ds::VgpuNode node = cards(3, 10000, 3);
    node.set_policy(policy);
    node.apply(ds::VgpuFit{{{ds::CardUse{1, 6000, 50}}}, 0}, "ns/pg");
    std::vector<ds::VgpuRequest> reqs = {one_card(1000),      one_card(5000),     one_card(0),
                                         one_card(2000, 60),  one_card(100, 100), one_card(1, 0, 3),
                                         one_card(1000, 0, 4)};
    ds::VgpuRequest two = one_card(3000);
    two.containers.push_back({2, 2000, 101, 20});
    reqs.push_back(two);
    ds::VgpuRequest grouped = one_card(1000);
    grouped.spread_group = "ns/pg";
    reqs.push_back(grouped);
    for (size_t round = 0; round < 3; ++round) {
      for (const auto& r : reqs) {
        const auto fit = node.fit(r, policy, nullptr);
        double score = -1;
        EXPECT_EQ(node.fits(r, &score), fit.has_value()) << policy << " round " << round;
        if (fit) {
          EXPECT_DOUBLE_EQ(score, fit->score) << policy;
        }
      }
      node.apply(*node.fit(one_card(1500), policy, nullptr), "");
    }
  }
}
