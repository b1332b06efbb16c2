// Volcano's cpu_mng_test.go: two sockets, one NUMA node each, two cores of
// two CPUs per socket; the hints for a request and the CPUs it is given.
#include "cpu_manager.h"

#include <gtest/gtest.h>

#include <string>

#include "two_node_masks.h"

namespace numa_aware {
namespace {

CpuSet cpus(std::initializer_list<int32_t> ids) {
  CpuSet s;
  for (const int32_t id : ids) s.add(id);
  return s;
}

NodeNuma node() {
  NodeNuma n;
  n.name = "n1";
  n.cpu_manager_policy = "static";
  n.topology_manager_policy = "best-effort";
  n.topology = CpuTopology({{0, 0, 0, 0},
                            {1, 0, 0, 0},
                            {2, 0, 0, 1},
                            {3, 0, 0, 1},
                            {4, 1, 1, 2},
                            {5, 1, 1, 2},
                            {6, 1, 1, 3},
                            {7, 1, 1, 3}});
  return n;
}

ContainerCpus wants(int n) { return {"c", true, n}; }

TEST(NumaCpuManager, HintsAsVolcano) {
  const NodeNuma n = node();
  const CpuSet all = cpus({0, 1, 2, 3, 4, 5, 6, 7});
  using H = std::vector<TopologyHint>;
  EXPECT_EQ(cpu_hints(n.topology, all, 4), (H{{k0, true}, {k1, true}, {k01, false}}));
  EXPECT_EQ(cpu_hints(n.topology, cpus({1, 2, 3, 4, 5, 6, 7}), 4), (H{{k1, true}, {k01, false}}));
  EXPECT_EQ(cpu_hints(n.topology, all, 5), (H{{k01, true}}));
  EXPECT_EQ(cpu_hints(n.topology, all, 8), (H{{k01, true}}));
  EXPECT_EQ(cpu_hints(n.topology, all, 9), H{});
  EXPECT_EQ(cpu_hints(n.topology, cpus({2, 3, 4, 5}), 4), (H{{k01, false}}));
}

TEST(NumaCpuManager, AllocateAsVolcano) {
  const NodeNuma n = node();
  const CpuSet all = cpus({0, 1, 2, 3, 4, 5, 6, 7});
  const CpuSet but0 = cpus({1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(allocate_cpus(wants(4), {k0, true}, n, all).str(), "0-3");
  EXPECT_EQ(allocate_cpus(wants(4), {k1, true}, n, but0).str(), "4-7");
  EXPECT_EQ(allocate_cpus(wants(5), {k01, true}, n, all).str(), "0-4");
  EXPECT_EQ(allocate_cpus(wants(5), {k01, true}, n, but0).str(), "1,4-7");
  EXPECT_EQ(allocate_cpus(wants(8), {k01, true}, n, but0).str(), "");
}

TEST(NumaCpuManager, NoPreferenceWithoutWholeCpus) {
  const NodeNuma n = node();
  const CpuSet all = cpus({0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_TRUE(container_hints({"c", false, 0}, n, &all).empty());
  EXPECT_TRUE(container_hints({"c", true, 0}, n, &all).empty());  // 1500m
  EXPECT_TRUE(container_hints(wants(2), n, nullptr).empty());     // no cpu in numares
  EXPECT_EQ(container_hints(wants(2), n, &all).at("cpu")->size(), 3u);
}

TEST(NumaCpuManager, ReservedCpusAreNotGiven) {
  NodeNuma n = node();
  n.reserved = take_by_topology(n.topology, n.topology.all(), 1).value();
  EXPECT_EQ(n.reserved.str(), "0");
  const CpuSet all = cpus({0, 1, 2, 3, 4, 5, 6, 7});
  // NUMA node 0 has 3 CPUs left: 4 fit only on node 1, or across both.
  using H = std::vector<TopologyHint>;
  EXPECT_EQ(container_hints(wants(4), n, &all).at("cpu"), (H{{k1, true}, {k01, false}}));
  EXPECT_EQ(allocate_cpus(wants(2), {k0, true}, n, all).str(), "2-3");
}

TEST(NumaCpuManager, TakeByTopologyPrefersWholeCoresAndSockets) {
  const NodeNuma n = node();
  // A whole core before half of one: 2 CPUs from {1,2,3} are core 1's.
  EXPECT_EQ(take_by_topology(n.topology, cpus({1, 2, 3}), 2)->str(), "2-3");
  // One CPU fills the half-used core first.
  EXPECT_EQ(take_by_topology(n.topology, cpus({1, 2, 3}), 1)->str(), "1");
  EXPECT_FALSE(take_by_topology(n.topology, cpus({1, 2}), 3));
  EXPECT_EQ(n.topology.numa_count(cpus({1, 4})), 2);
  EXPECT_EQ(n.topology.numa_count(CpuSet{}), 0);
}

}  // namespace
}  // namespace numa_aware
