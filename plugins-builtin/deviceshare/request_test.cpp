// Reading a pod's vGPU request, as Volcano's ExtractResourceRequest does.
#include "request.h"

#include <gtest/gtest.h>

namespace ds = scoria_deviceshare;

TEST(DeviceShareRequest, ContainersThatAskForVgpu) {
  std::string bad;
  const auto r = ds::vgpu_containers(R"({"spec":{"containers":[
    {"name":"a","resources":{"limits":{"volcano.sh/vgpu-number":"2","volcano.sh/vgpu-memory":"3000",
                                       "volcano.sh/vgpu-cores":"30"}}},
    {"name":"b","resources":{"limits":{"cpu":"1"}}},
    {"name":"c","resources":{"limits":{"volcano.sh/vgpu-memory":"1024"}}},
    {"name":"d","resources":{"limits":{"volcano.sh/vgpu-number":1},
                             "requests":{"volcano.sh/vgpu-cores":"50"}}}]}})",
                                     &bad);
  EXPECT_EQ(bad, "");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].nums, 2u);
  EXPECT_EQ(r[0].mem, 3000u);
  EXPECT_EQ(r[0].cores, 30u);
  EXPECT_EQ(r[0].mem_percent, 101u);
  EXPECT_EQ(r[1].nums, 1u) << "a memory limit alone asks for one card";
  EXPECT_EQ(r[1].mem, 1024u);
  EXPECT_EQ(r[2].mem, 0u);
  EXPECT_EQ(r[2].mem_percent, 100u) << "no memory: the whole card";
  EXPECT_EQ(r[2].cores, 50u) << "cores from requests when no limit";
}

TEST(DeviceShareRequest, BadInputIsNotACrash) {
  std::string bad;
  EXPECT_TRUE(ds::vgpu_containers("not json", &bad).empty());
  EXPECT_TRUE(ds::vgpu_containers(R"({"spec":{"containers":7}})", &bad).empty());
  const auto r = ds::vgpu_containers(
      R"({"spec":{"containers":[{"resources":{"limits":{"volcano.sh/vgpu-number":"x"}}}]}})", &bad);
  EXPECT_TRUE(r.empty());
  EXPECT_NE(bad.find("volcano.sh/vgpu-number"), std::string::npos);
}
