// The plugin's readers: a Numatopology as Volcano's cache reads it (and the
// fields it refuses, naming them), and a pod's QoS class and whole CPUs.
#include <gtest/gtest.h>

#include <scoria/quantity.hpp>

#include <nlohmann/json.hpp>

#include "node_numa.h"
#include "pod_numa.h"

namespace numa_aware {
namespace {

using nlohmann::json;

json topology() {
  return json::parse(R"({
    "apiVersion": "nodeinfo.volcano.sh/v1alpha1", "kind": "Numatopology",
    "metadata": {"name": "n1"},
    "spec": {
      "policies": {"CPUManagerPolicy": "static", "TopologyManagerPolicy": "single-numa-node"},
      "resReserved": {"cpu": "1500m", "memory": "1Gi"},
      "numares": {"cpu": {"allocatable": "1-7", "capacity": 8}},
      "cpuDetail": {"0": {"numa": 0, "socket": 0, "core": 0}, "1": {"numa": 0, "socket": 0, "core": 0},
                    "2": {"numa": 0, "socket": 0, "core": 1}, "3": {"numa": 0, "socket": 0, "core": 1},
                    "4": {"numa": 1, "socket": 1, "core": 0}, "5": {"numa": 1, "socket": 1, "core": 0},
                    "6": {"numa": 1, "socket": 1, "core": 1}, "7": {"numa": 1, "socket": 1, "core": 1}},
      "podAllocations": [{"namespace": "ns", "name": "p1", "containerAllocations": [
        {"name": "c", "allocations": {"cpu": "2-3"}}]}]
    }})");
}

TEST(NumaReaders, Numatopology) {
  const NodeNuma n = parse_node_numa(topology());
  EXPECT_EQ(n.name, "n1");
  EXPECT_EQ(n.cpu_manager_policy, "static");
  EXPECT_EQ(n.topology_manager_policy, "single-numa-node");
  EXPECT_EQ(n.allocatable.at("cpu").str(), "1-7");
  EXPECT_EQ(n.topology.numa_nodes(), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(n.topology.cpus_per_socket(), 4);
  EXPECT_EQ(n.topology.cpus_per_core(), 2);  // core ids repeat across sockets
  EXPECT_EQ(n.reserved.str(), "0-1");        // 1500m: two whole CPUs, one core
  EXPECT_TRUE(n.assigned_pod("ns", "p1"));
  EXPECT_FALSE(n.assigned_pod("ns", "p2"));
}

TEST(NumaReaders, NumatopologyRefusalsNameTheField) {
  const auto refusal = [](const char* pointer, json value) {
    json t = topology();
    t[json::json_pointer(pointer)] = std::move(value);
    try {
      parse_node_numa(t);
    } catch (const BadTopology& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal("/spec/numares/cpu/allocatable", "0-x"),
            "field spec.numares.cpu.allocatable: \"0-x\" is not a CPU id (0 to 65535) or a range "
            "of them such as 0-3");
  EXPECT_EQ(refusal("/spec/cpuDetail/abc", json{{"numa", 0}}),
            "field spec.cpuDetail.abc: \"abc\" is not a CPU id (0 to 65535) or a range of them "
            "such as 0-3");
  EXPECT_EQ(refusal("/spec/cpuDetail/3/numa", -1),
            "field spec.cpuDetail.3.numa: is not a whole number from 0 to 65535");
  EXPECT_EQ(refusal("/spec/cpuDetail/3/numa", 64), "field spec.cpuDetail.3.numa: is more than 63");
  EXPECT_EQ(refusal("/spec/policies", "static"), "field spec.policies: is not a mapping");
  json wide = topology();
  for (int i = 0; i < 17; ++i)
    wide["spec"]["cpuDetail"][std::to_string(100 + i)] = {{"numa", i}, {"socket", 0}, {"core", i}};
  EXPECT_THROW(
      {
        try {
          parse_node_numa(wide);
        } catch (const BadTopology& e) {
          EXPECT_STREQ(e.what(),
                       "field spec.cpuDetail: spans 17 NUMA nodes; the topology manager handles "
                       "at most 16");
          throw;
        }
      },
      BadTopology);
  EXPECT_EQ(
      refusal("/spec/resReserved/cpu", "lots"), "field spec.resReserved.cpu: " + [] {
        std::string why;
        scoria::parse_quantity("lots", &why);
        return why;
      }());
}

TEST(NumaReaders, GuaranteedAsKubernetes) {
  const auto pod = [](const char* resources) {
    return parse_pod_numa(std::string(R"({"spec": {"containers": [{"name": "c", "resources": )") +
                          resources + "}]}}");
  };
  // Limits alone: requests are defaulted from them.
  EXPECT_TRUE(pod(R"({"limits": {"cpu": "2", "memory": "1Gi"}})").guaranteed);
  EXPECT_EQ(pod(R"({"limits": {"cpu": "2", "memory": "1Gi"}})").containers[0].guaranteed_cpus, 2);
  EXPECT_TRUE(pod(R"({"requests": {"cpu": "2", "memory": "1Gi"},
                      "limits": {"cpu": "2", "memory": "1Gi"}})")
                  .guaranteed);
  // Requests below limits, or no memory limit: Burstable.
  EXPECT_FALSE(pod(R"({"requests": {"cpu": "1", "memory": "1Gi"},
                       "limits": {"cpu": "2", "memory": "1Gi"}})")
                   .guaranteed);
  EXPECT_FALSE(pod(R"({"limits": {"cpu": "2"}})").guaranteed);
  EXPECT_FALSE(pod(R"({"requests": {"cpu": "2", "memory": "1Gi"}})").guaranteed);
  // BestEffort.
  EXPECT_FALSE(pod("{}").guaranteed);
  // Guaranteed with a fraction of a CPU: no CPUs pinned.
  const PodNuma half = pod(R"({"limits": {"cpu": "1500m", "memory": "1Gi"}})");
  EXPECT_TRUE(half.guaranteed);
  EXPECT_TRUE(half.containers[0].requests_cpu);
  EXPECT_EQ(half.containers[0].guaranteed_cpus, 0);
  // An init container without limits makes the pod Burstable.
  EXPECT_FALSE(parse_pod_numa(R"({"spec": {
      "containers": [{"name": "c", "resources": {"limits": {"cpu": "2", "memory": "1Gi"}}}],
      "initContainers": [{"name": "i", "resources": {"requests": {"cpu": "1"}}}]}})")
                   .guaranteed);
}

}  // namespace
}  // namespace numa_aware
