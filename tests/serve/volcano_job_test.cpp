// A Volcano batch Job applied to the local store is stored as what
// Volcano's job controller makes of it: its PodGroup and its Pods, which
// are then scheduled as a gang.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "serve_process.h"

namespace scoria::test {
namespace {

constexpr const char* kHighClassAndNode = R"(
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
)";

// Task "low" first in the job, "high" (PriorityClass value 1000) second:
// with minAvailable 1, minResources is the first pod by priority, a "high"
// pod's 3 cpu (Volcano's calcPGMinResources), not a "low" pod's 1.
constexpr const char* kJob = R"(
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: mixed, namespace: ml, annotations: {volcano.sh/preemptable: "false"}}
spec:
  minAvailable: 1
  queue: default
  tasks:
  - name: low
    replicas: 2
    template:
      metadata: {labels: {role: low}}
      spec:
        containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
  - name: high
    replicas: 1
    template:
      spec:
        priorityClassName: high
        containers: [{name: c, image: x, resources: {requests: {cpu: "3"}}}]
)";

nlohmann::json get(unsigned short port, const std::string& path) {
  const HttpResult r = http(port, "GET", path);
  EXPECT_EQ(r.status, 200u) << path << ": " << r.body;
  return r.status == 200 ? nlohmann::json::parse(r.body) : nlohmann::json::object();
}

TEST(VolcanoJob, AppliedAsItsPodGroupAndPodsAndScheduled) {
  TempDir dir;
  ServeProcess serve(dir.path() / "state",
                     {"--config", std::string(SCORIA_SOURCE_DIR) + "/config/scheduler.toml",
                      "--schedule-period", "100"});
  ASSERT_EQ(http(serve.port(), "POST", "/api/v1/objects", kHighClassAndNode).status, 200u);
  const HttpResult applied = http(serve.port(), "POST", "/api/v1/objects", kJob);
  ASSERT_EQ(applied.status, 200u) << applied.body;
  EXPECT_EQ(nlohmann::json::parse(applied.body)["applied"],
            nlohmann::json::array({"PodGroup ml/mixed", "Pod ml/mixed-low-0", "Pod ml/mixed-low-1",
                                   "Pod ml/mixed-high-0"}));

  const auto group =
      get(serve.port(), "/apis/scheduling.volcano.sh/v1beta1/namespaces/ml/podgroups/mixed");
  EXPECT_EQ(group["spec"]["minMember"], 1);
  EXPECT_EQ(group["spec"]["minTaskMember"], nlohmann::json({{"low", 2}, {"high", 1}}));
  EXPECT_EQ(group["spec"]["minResources"], nlohmann::json({{"cpu", "3"}}));
  EXPECT_EQ(group["spec"]["queue"], "default");

  const auto pod = get(serve.port(), "/api/v1/namespaces/ml/pods/mixed-low-1");
  const auto& annotations = pod["metadata"]["annotations"];
  EXPECT_EQ(annotations["scheduling.k8s.io/group-name"], "mixed");
  EXPECT_EQ(annotations["volcano.sh/task-spec"], "low");
  EXPECT_EQ(annotations["volcano.sh/task-index"], "1");
  EXPECT_EQ(annotations["volcano.sh/job-name"], "mixed");
  EXPECT_EQ(annotations["volcano.sh/preemptable"], "false");
  EXPECT_EQ(pod["metadata"]["labels"]["role"], "low");
  EXPECT_EQ(pod["metadata"]["labels"]["volcano.sh/job-namespace"], "ml");
  EXPECT_EQ(pod["spec"]["schedulerName"], "volcano");
  EXPECT_EQ(
      get(serve.port(), "/api/v1/namespaces/ml/pods/mixed-high-0")["spec"]["priorityClassName"],
      "high");

  // 1 + 1 + 3 cpu on an 8-cpu node: the whole job runs.
  ASSERT_TRUE(eventually([&] {
    for (const char* name : {"mixed-low-0", "mixed-low-1", "mixed-high-0"})
      if (get(serve.port(), std::string("/api/v1/namespaces/ml/pods/") + name)["spec"].value(
              "nodeName", "") != "n1")
        return false;
    return true;
  })) << serve.log();

  // A Job Volcano's admission refuses is refused whole, naming the field.
  std::string bad = kJob;
  bad.replace(bad.find("minAvailable: 1"), 15, "minAvailable: 9");
  const HttpResult refused = http(serve.port(), "POST", "/api/v1/objects", bad);
  EXPECT_EQ(refused.status, 400u);
  EXPECT_NE(refused.body.find("spec.minAvailable: 9 is greater than the tasks' replicas (3)"),
            std::string::npos)
      << refused.body;
}

// A task's partitionPolicy (Volcano HEAD), applied through the API: the
// PodGroup gets the task's subGroupPolicy and the pods their partition-id,
// and the service keeps each partition within one rack (the cluster of
// scenario volcano-job-partitions-each-in-one-rack: two racks of two 4-cpu
// nodes, one half-full node in each).
TEST(VolcanoJob, PartitionsBecomeSubGroupsEachKeptInOneRack) {
  const std::string scenario =
      std::string(SCORIA_SOURCE_DIR) + "/tests/scenarios/volcano-job-partitions-each-in-one-rack";
  std::ifstream in(scenario + "/cluster.yaml");
  std::stringstream cluster;
  cluster << in.rdbuf();
  TempDir dir;
  ServeProcess serve(dir.path() / "state",
                     {"--config", scenario + "/scheduler.toml", "--schedule-period", "100"});
  const HttpResult applied = http(serve.port(), "POST", "/api/v1/objects", cluster.str());
  ASSERT_EQ(applied.status, 200u) << applied.body;

  const auto group =
      get(serve.port(), "/apis/scheduling.volcano.sh/v1beta1/namespaces/ml/podgroups/train");
  EXPECT_EQ(group["spec"]["minTaskMember"], nlohmann::json({{"worker", 4}}));
  const nlohmann::json policy = {
      {"name", "worker"},
      {"subGroupSize", 2},
      {"minSubGroups", 2},
      {"labelSelector", {{"matchLabels", {{"volcano.sh/task-spec", "worker"}}}}},
      {"matchLabelKeys", {"volcano.sh/partition-id"}},
      {"networkTopology", {{"mode", "hard"}, {"highestTierAllowed", 1}}}};
  EXPECT_EQ(group["spec"]["subGroupPolicy"], nlohmann::json::array({policy}));
  EXPECT_EQ(
      get(serve.port(), "/api/v1/namespaces/ml/pods/train-worker-3")["metadata"]["labels"]
                                                                    ["volcano.sh/partition-id"],
      "1");

  const auto node_of = [&](int i) {
    return get(serve.port(), "/api/v1/namespaces/ml/pods/train-worker-" + std::to_string(i))["spec"]
        .value("nodeName", "");
  };
  ASSERT_TRUE(eventually([&] {
    for (int i = 0; i < 4; ++i)
      if (node_of(i).empty()) return false;
    return true;
  })) << serve.log();
  // Racks: a0 and a1, b0 and b1. Each partition's two pods share a rack.
  const auto rack = [](const std::string& node) { return node.substr(0, 1); };
  EXPECT_EQ(rack(node_of(0)), rack(node_of(1)));
  EXPECT_EQ(rack(node_of(2)), rack(node_of(3)));
}

}  // namespace
}  // namespace scoria::test
