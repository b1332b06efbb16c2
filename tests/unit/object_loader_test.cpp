#include "source/object_loader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/error.h"
#include "objects_from_text.h"

namespace scoria::source {
namespace {

using model::ClusterObjects;
using model::ResourceList;

using test_support::amount;
using test_support::kGi;
using test_support::kMi;
using test_support::parse;
using test_support::parse_error;

bool has(const ResourceList& list, const std::string& name) { return amount(list, name) >= 0; }

template <class T>
const T& by_name(const std::vector<T>& objects, const std::string& name) {
  auto it =
      std::find_if(objects.begin(), objects.end(), [&](const T& o) { return o.name == name; });
  if (it == objects.end()) throw std::runtime_error("no object " + name);
  return *it;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// Object files in a fresh directory, removed afterwards.
class TempFiles {
 public:
  TempFiles() {
    dir_ = std::filesystem::temp_directory_path() /
           ("scoria-loader-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  ~TempFiles() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, std::string_view text) {
    const auto path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }

 private:
  std::filesystem::path dir_;
};

// ---------------------------------------------------------------------------
// Every kind, field by field
// ---------------------------------------------------------------------------

constexpr std::string_view kEveryKind = R"(---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
preemptionPolicy: PreemptLowerPriority
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: normal}
value: 10
globalDefault: true
---
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: research
  creationTimestamp: "2024-05-01T12:00:00Z"
spec:
  weight: 3
  priority: 7
  parent: root
  reclaimable: false
  capability: {cpu: "100", memory: 200Gi, nvidia.com/gpu: "8"}
  deserved: {cpu: 50, memory: 100Gi}
  guarantee:
    resource: {cpu: "10", memory: 10Gi}
status: {state: Closed}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: plain}
spec:
  guarantee: {cpu: 500m}
---
apiVersion: v1
kind: Node
metadata:
  name: node-a
  labels: {topology.kubernetes.io/zone: zone-1, accelerator: a100}
spec:
  unschedulable: true
  taints:
  - {key: nvidia.com/gpu, value: present, effect: NoSchedule}
  - {key: dedicated, effect: NoExecute}
status:
  allocatable: {cpu: "15500m", memory: 62Gi, pods: "110", nvidia.com/gpu: "4"}
  capacity: {cpu: "16", memory: 64Gi, pods: "110"}
  conditions:
  - {type: MemoryPressure, status: "False"}
  - {type: Ready, status: "False"}
---
apiVersion: v1
kind: Node
metadata: {name: node-b}
status:
  capacity: {cpu: "8", memory: 32Gi}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata:
  namespace: ml
  name: train
  annotations: {volcano.sh/preemptable: "false"}
  creationTimestamp: "2024-05-01T12:00:01.250+02:00"
spec:
  minMember: 3
  minTaskMember: {ps: 1, worker: 2}
  minResources: {cpu: "12", memory: 24Gi}
  queue: research
  priorityClassName: high
status: {phase: Inqueue}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: bare}
---
apiVersion: v1
kind: Pod
metadata:
  namespace: ml
  name: train-0
  labels: {app: train, volcano.sh/preemptable: "false"}
  annotations:
    scheduling.k8s.io/group-name: train
    volcano.sh/task-spec: worker
  creationTimestamp: "2024-05-01T12:00:02Z"
  deletionTimestamp: "2024-05-01T13:00:00Z"
spec:
  schedulerName: volcano
  nodeName: node-a
  priorityClassName: high
  priority: 500
  preemptionPolicy: Never
  nodeSelector: {disk: ssd}
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: zone, operator: In, values: [a, b]}
          - {key: cores, operator: Gt, values: ["8"]}
          matchFields:
          - {key: metadata.name, operator: NotIn, values: [node-c]}
        - matchExpressions:
          - {key: spare, operator: Exists}
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 20
        preference:
          matchExpressions:
          - {key: accelerator, operator: DoesNotExist}
  tolerations:
  - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
  - {key: dedicated, value: ml}
  - {operator: Exists}
  containers:
  - name: worker
    image: trainer:1
    resources:
      requests: {cpu: "4", memory: 8Gi, nvidia.com/gpu: "1"}
status: {phase: Running}
)";

TEST(ObjectLoader, ReadsEveryKindFieldByField) {
  const ClusterObjects o = parse(kEveryKind);
  ASSERT_EQ(o.priority_classes.size(), 2u);
  ASSERT_EQ(o.queues.size(), 2u);
  ASSERT_EQ(o.nodes.size(), 2u);
  ASSERT_EQ(o.pod_groups.size(), 2u);
  ASSERT_EQ(o.pods.size(), 1u);

  const auto& high = by_name(o.priority_classes, "high");
  EXPECT_EQ(high.value, 1000);
  EXPECT_FALSE(high.global_default);
  const auto& normal = by_name(o.priority_classes, "normal");
  EXPECT_EQ(normal.value, 10);
  EXPECT_TRUE(normal.global_default);

  const auto& q = by_name(o.queues, "research");
  EXPECT_EQ(q.weight, 3);
  EXPECT_EQ(q.priority, 7);
  EXPECT_EQ(q.parent, "root");
  EXPECT_FALSE(q.reclaimable);
  EXPECT_FALSE(q.open);
  EXPECT_EQ(q.creation_ms, 1714564800000);
  EXPECT_EQ(amount(q.capability, "cpu"), 100000);
  EXPECT_EQ(amount(q.capability, "memory"), 200 * kGi);
  EXPECT_EQ(amount(q.capability, "nvidia.com/gpu"), 8000);
  EXPECT_EQ(amount(q.deserved, "cpu"), 50000);
  EXPECT_EQ(amount(q.deserved, "memory"), 100 * kGi);
  EXPECT_EQ(amount(q.guarantee, "cpu"), 10000);
  EXPECT_EQ(amount(q.guarantee, "memory"), 10 * kGi);
  const auto& plain = by_name(o.queues, "plain");
  EXPECT_EQ(plain.weight, 1);
  EXPECT_TRUE(plain.reclaimable);
  EXPECT_TRUE(plain.open);
  EXPECT_EQ(plain.guarantee, (ResourceList{{"cpu", 500}}));

  const auto& a = by_name(o.nodes, "node-a");
  EXPECT_EQ(a.labels.at("topology.kubernetes.io/zone"), "zone-1");
  EXPECT_EQ(a.labels.at("accelerator"), "a100");
  EXPECT_TRUE(a.unschedulable);
  EXPECT_FALSE(a.ready);
  ASSERT_EQ(a.taints.size(), 2u);
  EXPECT_EQ(a.taints[0].key, "nvidia.com/gpu");
  EXPECT_EQ(a.taints[0].value, "present");
  EXPECT_EQ(a.taints[0].effect, model::TaintEffect::NoSchedule);
  EXPECT_EQ(a.taints[1].key, "dedicated");
  EXPECT_EQ(a.taints[1].effect, model::TaintEffect::NoExecute);
  EXPECT_EQ(amount(a.allocatable, "cpu"), 15500);  // allocatable wins over capacity
  EXPECT_EQ(amount(a.allocatable, "memory"), 62 * kGi);
  EXPECT_EQ(amount(a.allocatable, "pods"), 110);
  EXPECT_EQ(amount(a.allocatable, "nvidia.com/gpu"), 4000);
  const auto& b = by_name(o.nodes, "node-b");
  EXPECT_TRUE(b.ready);  // no conditions: ready
  EXPECT_FALSE(b.unschedulable);
  EXPECT_EQ(amount(b.allocatable, "cpu"), 8000);  // capacity stands in for allocatable
  EXPECT_EQ(amount(b.allocatable, "memory"), 32 * kGi);

  const auto& g = by_name(o.pod_groups, "train");
  EXPECT_EQ(g.namespace_, "ml");
  EXPECT_EQ(g.key(), "ml/train");
  EXPECT_EQ(g.min_member, 3);
  EXPECT_EQ(g.min_task_member, (std::map<std::string, int32_t>{{"ps", 1}, {"worker", 2}}));
  EXPECT_TRUE(g.has_min_resources);
  EXPECT_EQ(amount(g.min_resources, "cpu"), 12000);
  EXPECT_EQ(amount(g.min_resources, "memory"), 24 * kGi);
  EXPECT_EQ(g.queue, "research");
  EXPECT_EQ(g.priority_class_name, "high");
  EXPECT_EQ(g.phase, model::PodGroupPhase::Inqueue);
  EXPECT_EQ(g.annotations.at("volcano.sh/preemptable"), "false");
  EXPECT_EQ(g.creation_ms, 1714564800000 + 1250 - 2 * 3600 * 1000);
  EXPECT_FALSE(g.implicit);
  const auto& bare = by_name(o.pod_groups, "bare");
  EXPECT_EQ(bare.namespace_, "default");
  EXPECT_EQ(bare.min_member, 1);
  EXPECT_EQ(bare.queue, "default");
  EXPECT_FALSE(bare.has_min_resources);
  EXPECT_EQ(bare.phase, model::PodGroupPhase::Pending);

  const model::Pod& p = o.pods[0];
  EXPECT_EQ(p.key(), "ml/train-0");
  EXPECT_EQ(p.labels.at("app"), "train");
  EXPECT_EQ(p.annotations.at("volcano.sh/task-spec"), "worker");
  EXPECT_EQ(p.group_name, "train");
  EXPECT_EQ(p.scheduler_name, "volcano");
  EXPECT_EQ(p.node_name, "node-a");
  EXPECT_EQ(p.priority_class_name, "high");
  EXPECT_EQ(p.priority, 500);
  EXPECT_TRUE(p.preempt_never);
  EXPECT_EQ(p.phase, model::PodPhase::Running);
  EXPECT_TRUE(p.deleting);
  EXPECT_FALSE(p.preemptable);  // from the label
  EXPECT_EQ(p.role, "worker");
  EXPECT_EQ(p.creation_ms, 1714564802000);
  EXPECT_EQ(p.node_selector, (std::map<std::string, std::string>{{"disk", "ssd"}}));
  EXPECT_EQ(amount(p.requests, "cpu"), 4000);
  EXPECT_EQ(amount(p.requests, "memory"), 8 * kGi);
  EXPECT_EQ(amount(p.requests, "nvidia.com/gpu"), 1000);
  EXPECT_EQ(p.init_requests, p.requests);

  ASSERT_EQ(p.required_affinity.size(), 2u);
  const auto& t0 = p.required_affinity[0];
  ASSERT_EQ(t0.requirements.size(), 3u);
  EXPECT_EQ(t0.requirements[0].key, "zone");
  EXPECT_EQ(t0.requirements[0].op, model::SelectorOp::In);
  EXPECT_EQ(t0.requirements[0].values, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(t0.requirements[0].is_field);
  EXPECT_EQ(t0.requirements[1].op, model::SelectorOp::Gt);
  EXPECT_EQ(t0.requirements[1].values, (std::vector<std::string>{"8"}));
  EXPECT_EQ(t0.requirements[2].key, "metadata.name");
  EXPECT_EQ(t0.requirements[2].op, model::SelectorOp::NotIn);
  EXPECT_TRUE(t0.requirements[2].is_field);
  ASSERT_EQ(p.required_affinity[1].requirements.size(), 1u);
  EXPECT_EQ(p.required_affinity[1].requirements[0].op, model::SelectorOp::Exists);
  ASSERT_EQ(p.preferred_affinity.size(), 1u);
  EXPECT_EQ(p.preferred_affinity[0].weight, 20);
  ASSERT_EQ(p.preferred_affinity[0].requirements.size(), 1u);
  EXPECT_EQ(p.preferred_affinity[0].requirements[0].key, "accelerator");
  EXPECT_EQ(p.preferred_affinity[0].requirements[0].op, model::SelectorOp::DoesNotExist);

  ASSERT_EQ(p.tolerations.size(), 3u);
  EXPECT_EQ(p.tolerations[0].key, "nvidia.com/gpu");
  EXPECT_EQ(p.tolerations[0].op, model::SelectorOp::Exists);
  EXPECT_EQ(p.tolerations[0].effect, static_cast<uint32_t>(model::TaintEffect::NoSchedule));
  EXPECT_EQ(p.tolerations[1].op, model::SelectorOp::Equal);  // the default
  EXPECT_EQ(p.tolerations[1].value, "ml");
  EXPECT_EQ(p.tolerations[1].effect, 0u);  // every effect
  EXPECT_EQ(p.tolerations[2].key, "");
  EXPECT_EQ(p.tolerations[2].op, model::SelectorOp::Exists);

  // The pod's own JSON, with YAML's plain numbers as numbers.
  const auto j = nlohmann::json::parse(p.json);
  EXPECT_EQ(j["metadata"]["name"], "train-0");
  EXPECT_EQ(j["spec"]["priority"], 500);
  EXPECT_EQ(j["spec"]["containers"][0]["resources"]["requests"]["cpu"], "4");
  EXPECT_EQ(j["spec"]["affinity"]["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]
             [0]["weight"],
            20);
}

TEST(ObjectLoader, ReadsJson) {
  const ClusterObjects o = parse(R"({
    "apiVersion": "v1", "kind": "List",
    "items": [
      {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"zone": "a"}},
       "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": 110}}},
      {"apiVersion": "v1", "kind": "Pod",
       "metadata": {"namespace": "web", "name": "p1",
                    "annotations": {"scheduling.k8s.io/group-name": "g1"}},
       "spec": {"priority": 7, "containers": [
         {"name": "c", "resources": {"requests": {"cpu": 0.5, "memory": "1Gi"}}}]},
       "status": {"phase": "Pending"}}
    ]})",
                                 "cluster.json");
  ASSERT_EQ(o.nodes.size(), 1u);
  EXPECT_EQ(o.nodes[0].name, "n1");
  EXPECT_EQ(o.nodes[0].labels.at("zone"), "a");
  EXPECT_EQ(amount(o.nodes[0].allocatable, "cpu"), 4000);
  EXPECT_EQ(amount(o.nodes[0].allocatable, "memory"), 16 * kGi);
  EXPECT_EQ(amount(o.nodes[0].allocatable, "pods"), 110);
  ASSERT_EQ(o.pods.size(), 1u);
  const model::Pod& p = o.pods[0];
  EXPECT_EQ(p.key(), "web/p1");
  EXPECT_EQ(p.group_name, "g1");
  EXPECT_EQ(p.priority, 7);
  EXPECT_EQ(amount(p.requests, "cpu"), 500);
  EXPECT_EQ(amount(p.requests, "memory"), kGi);
  const auto j = nlohmann::json::parse(p.json);
  EXPECT_EQ(j["kind"], "Pod");  // the item, not the List
  EXPECT_EQ(j["spec"]["priority"], 7);
  EXPECT_DOUBLE_EQ(j["spec"]["containers"][0]["resources"]["requests"]["cpu"].get<double>(), 0.5);
}

TEST(ObjectLoader, TypedListItemsTakeTheKindOfTheList) {
  const ClusterObjects o = parse(R"(
apiVersion: v1
kind: NodeList
items:
- metadata: {name: n1}
- metadata: {name: n2}
)");
  ASSERT_EQ(o.nodes.size(), 2u);
  EXPECT_EQ(o.nodes[1].name, "n2");
}

TEST(ObjectLoader, ConvertsUnitsAndRoundsUpLikeKubernetes) {
  const ClusterObjects o = parse(R"(
kind: Node
apiVersion: v1
metadata: {name: n}
status:
  allocatable: {cpu: "0.29", memory: "1.5Gi", pods: "1e2", example.com/dev: 250m,
                ephemeral-storage: "1k", small: "0.1m", mem2: 1500m}
)");
  const ResourceList& r = o.nodes[0].allocatable;
  EXPECT_EQ(amount(r, "cpu"), 290);
  EXPECT_EQ(amount(r, "memory"), 1.5 * kGi);
  EXPECT_EQ(amount(r, "pods"), 100);
  EXPECT_EQ(amount(r, "example.com/dev"), 250);
  EXPECT_EQ(amount(r, "ephemeral-storage"), 1e6);  // milli-units like every other resource
  EXPECT_EQ(amount(r, "small"), 1);                // 0.1 milli rounds up to 1
  EXPECT_EQ(amount(r, "mem2"), 1500);
}

// ---------------------------------------------------------------------------
// Requests as Kubernetes counts them
// ---------------------------------------------------------------------------

TEST(ObjectLoader, InitContainersCountAsTheirPeak) {
  const ClusterObjects o = parse(R"(
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  initContainers:
  - name: setup
    resources: {requests: {cpu: "4", memory: 1Gi}}
  - name: fetch
    resources: {requests: {cpu: "1", memory: 6Gi, example.com/fpga: "1"}}
  containers:
  - name: a
    resources: {requests: {cpu: "1", memory: 2Gi}}
  - name: b
    resources: {requests: {cpu: "2", memory: 2Gi}}
)");
  const model::Pod& p = o.pods[0];
  EXPECT_EQ(amount(p.requests, "cpu"), 3000);
  EXPECT_EQ(amount(p.requests, "memory"), 4 * kGi);
  EXPECT_FALSE(has(p.requests, "example.com/fpga"));
  // Per dimension: max(sum of containers, each init container).
  EXPECT_EQ(amount(p.init_requests, "cpu"), 4000);
  EXPECT_EQ(amount(p.init_requests, "memory"), 6 * kGi);
  EXPECT_EQ(amount(p.init_requests, "example.com/fpga"), 1000);
}

TEST(ObjectLoader, SidecarsRunBesideEverything) {
  const ClusterObjects o = parse(R"(
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  initContainers:
  - name: proxy
    restartPolicy: Always
    resources: {requests: {cpu: "1"}}
  - name: setup
    resources: {requests: {cpu: "3"}}
  containers:
  - name: main
    resources: {requests: {cpu: "2"}}
  overhead: {cpu: 100m}
)");
  const model::Pod& p = o.pods[0];
  EXPECT_EQ(amount(p.requests, "cpu"), 1000 + 2000 + 100);       // main + sidecar + overhead
  EXPECT_EQ(amount(p.init_requests, "cpu"), 3000 + 1000 + 100);  // setup beside the sidecar
}

TEST(ObjectLoader, LimitsStandInForMissingRequests) {
  const ClusterObjects o = parse(R"(
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: only-limits
    resources: {limits: {cpu: "2", memory: 1Gi}}
  - name: both
    resources:
      requests: {cpu: 500m}
      limits: {cpu: "1", memory: 512Mi, nvidia.com/gpu: "1"}
)");
  const model::Pod& p = o.pods[0];
  EXPECT_EQ(amount(p.requests, "cpu"), 2500);
  EXPECT_EQ(amount(p.requests, "memory"), kGi + 512 * kMi);
  EXPECT_EQ(amount(p.requests, "nvidia.com/gpu"), 1000);
}

// ---------------------------------------------------------------------------
// Completion
// ---------------------------------------------------------------------------

TEST(ObjectLoader, GivesLonePodsAnImplicitGroupAndMakesTheDefaultQueue) {
  ClusterObjects o = parse(R"(
apiVersion: v1
kind: Pod
metadata:
  namespace: web
  name: solo
  creationTimestamp: "2024-05-01T12:00:00Z"
  annotations: {volcano.sh/preemptable: "false"}
spec:
  priorityClassName: high
  containers:
  - {name: c, resources: {requests: {cpu: "1", memory: 1Gi}}}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 100
)");
  complete_objects(o);
  ASSERT_EQ(o.pod_groups.size(), 1u);
  const model::PodGroup& g = o.pod_groups[0];
  EXPECT_TRUE(g.implicit);
  EXPECT_EQ(g.namespace_, "web");
  EXPECT_EQ(g.name, "solo");
  EXPECT_EQ(g.min_member, 1);
  EXPECT_EQ(g.queue, "default");
  EXPECT_EQ(g.priority_class_name, "high");
  EXPECT_EQ(g.creation_ms, 1714564800000);
  EXPECT_EQ(g.phase, model::PodGroupPhase::Pending);
  EXPECT_TRUE(g.has_min_resources);
  EXPECT_EQ(amount(g.min_resources, "cpu"), 1000);
  EXPECT_EQ(amount(g.min_resources, "memory"), kGi);
  EXPECT_EQ(g.annotations.at("volcano.sh/preemptable"), "false");
  EXPECT_EQ(o.pods[0].group_name, "solo");

  ASSERT_EQ(o.queues.size(), 1u);
  EXPECT_EQ(o.queues[0].name, "default");
  EXPECT_EQ(o.queues[0].weight, 1);
  EXPECT_TRUE(o.queues[0].open);

  // Completing again changes nothing.
  complete_objects(o);
  EXPECT_EQ(o.pod_groups.size(), 1u);
  EXPECT_EQ(o.queues.size(), 1u);
}

TEST(ObjectLoader, KeepsADefinedDefaultQueueAndAvoidsNameClashes) {
  ClusterObjects o = parse(R"(
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: default}
spec: {weight: 5}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: batch}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: x}
---
apiVersion: v1
kind: Pod
metadata:
  name: x
  annotations: {scheduling.volcano.sh/queue-name: batch}
spec:
  nodeName: n1
  schedulerName: default-scheduler
)");
  complete_objects(o);
  ASSERT_EQ(o.queues.size(), 2u);
  EXPECT_EQ(by_name(o.queues, "default").weight, 5);
  ASSERT_EQ(o.pods.size(), 1u);  // another scheduler's pod is kept
  ASSERT_EQ(o.pod_groups.size(), 2u);
  const model::PodGroup& g = o.pod_groups[1];
  EXPECT_TRUE(g.implicit);
  EXPECT_EQ(g.name, "podgroup-x");  // "x" is taken by a real group
  EXPECT_EQ(g.queue, "batch");
  EXPECT_EQ(g.phase, model::PodGroupPhase::Running);  // its pod is on a node
  EXPECT_EQ(o.pods[0].group_name, "podgroup-x");
}

TEST(ObjectLoader, ResolvesPriorities) {
  const std::string classes = R"(
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: base}
value: 5
globalDefault: true
---
)";
  ClusterObjects o = parse(classes + R"(
apiVersion: v1
kind: Pod
metadata: {name: explicit}
spec: {priority: 42, priorityClassName: high}
---
apiVersion: v1
kind: Pod
metadata: {name: by-class}
spec: {priorityClassName: high}
---
apiVersion: v1
kind: Pod
metadata: {name: by-default}
---
apiVersion: v1
kind: Pod
metadata: {name: builtin}
spec: {priorityClassName: system-node-critical}
)");
  complete_objects(o);
  EXPECT_EQ(by_name(o.pods, "explicit").priority, 42);
  EXPECT_EQ(by_name(o.pods, "by-class").priority, 1000);
  EXPECT_EQ(by_name(o.pods, "by-default").priority, 5);
  EXPECT_EQ(by_name(o.pods, "builtin").priority, 2000001000);

  ClusterObjects none = parse("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n");
  complete_objects(none);
  EXPECT_EQ(none.pods[0].priority, 0);
}

TEST(ObjectLoader, LoadsFilesTogetherAndCopiesTheClassPreemptionPolicy) {
  TempFiles tmp;
  const std::string a = tmp.write("a.yaml", R"(
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: gentle}
value: 10
preemptionPolicy: Never
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {namespace: ml, name: g}
spec: {queue: q}
)");
  const std::string b = tmp.write("b.yaml", R"(
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: q}
---
apiVersion: v1
kind: Pod
metadata:
  namespace: ml
  name: p
  annotations: {scheduling.k8s.io/group-name: g}
spec: {priorityClassName: gentle}
)");
  const ClusterObjects o = load_object_files({a, b});
  ASSERT_EQ(o.pods.size(), 1u);
  EXPECT_EQ(o.pods[0].priority, 10);
  EXPECT_TRUE(o.pods[0].preempt_never);
  EXPECT_EQ(o.pod_groups.size(), 1u);  // the pod has its group: no implicit one
  EXPECT_EQ(o.queues.size(), 2u);      // q and default
}

TEST(ObjectLoader, LoadsEveryStorageKindFromOneFile) {
  TempFiles tmp;
  const std::string file = tmp.write("storage.yaml", R"(
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: ebs.csi.aws.com}
spec: {storageCapacity: true}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: n1}
spec:
  drivers: [{name: ebs.csi.aws.com, nodeID: i-1, allocatable: {count: 2}}]
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {namespace: kube-system, name: cap-a}
storageClassName: local
capacity: 50Gi
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-a}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: local
  nodeAffinity:
    required:
      nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [n1]}]}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {namespace: shop, name: data}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: local
  resources: {requests: {storage: 5Gi}}
---
apiVersion: v1
kind: Pod
metadata: {namespace: shop, name: web-0}
spec:
  containers: [{name: c, image: busybox}]
  volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
)");
  const ClusterObjects o = load_object_files({file});
  ASSERT_EQ(o.storage_classes.size(), 1u);
  EXPECT_TRUE(o.storage_classes[0].is_default);
  EXPECT_EQ(o.storage_classes[0].binding_mode, model::BindingMode::WaitForFirstConsumer);
  ASSERT_EQ(o.csi_drivers.size(), 1u);
  EXPECT_TRUE(o.csi_drivers[0].storage_capacity);
  ASSERT_EQ(o.csi_nodes.size(), 1u);
  EXPECT_EQ(o.csi_nodes[0].drivers.at(0).allocatable, 2);
  ASSERT_EQ(o.storage_capacities.size(), 1u);
  EXPECT_EQ(o.storage_capacities[0].key(), "kube-system/cap-a");
  EXPECT_EQ(o.storage_capacities[0].capacity, 50 * kGi);
  ASSERT_EQ(o.volumes.size(), 1u);
  EXPECT_EQ(o.volumes[0].phase, model::VolumePhase::Available);
  EXPECT_EQ(o.volumes[0].node_affinity.size(), 1u);
  ASSERT_EQ(o.claims.size(), 1u);
  EXPECT_EQ(o.claims[0].key(), "shop/data");
  EXPECT_EQ(o.claims[0].request, 5 * kGi);
  EXPECT_EQ(o.claims[0].phase, model::ClaimPhase::Pending);
  ASSERT_EQ(o.pods.size(), 1u);
  ASSERT_EQ(o.pods[0].claims.size(), 1u);
  EXPECT_EQ(o.pods[0].claims[0].name, "data");
  // Files read together refuse a storage object named twice, as any other.
  const std::string again = tmp.write("again.yaml", R"(
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-a}
spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce]}
)");
  try {
    load_object_files({file, again});
    FAIL() << "a PersistentVolume named twice was taken";
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.what(),
                         "(PersistentVolume pv-a): field metadata.name: \"pv-a\" is "
                         "already used by document 5 of " +
                             file))
        << e.what();
  }
}

TEST(ObjectLoader, ManyDocumentsKeepTheirOrderAndNumbers) {
  std::string text;
  for (int i = 0; i < 3000; ++i)
    text += "---\napiVersion: v1\nkind: Node\nmetadata: {name: n" + std::to_string(i) + "}\n";
  const ClusterObjects o = parse(text);
  ASSERT_EQ(o.nodes.size(), 3000u);
  for (int i = 0; i < 3000; ++i) ASSERT_EQ(o.nodes[i].name, "n" + std::to_string(i));

  // An error late in a long file still names its own document.
  const std::string bad = text +
                          "---\napiVersion: v1\nkind: Node\nmetadata: {name: x}\n"
                          "status: {allocatable: {cpu: lots}}\n";
  EXPECT_TRUE(contains(parse_error(bad),
                       "cluster.yaml: document 3001 (Node x): field "
                       "status.allocatable.cpu: \"lots\" is not a quantity"))
      << parse_error(bad);
}

TEST(ObjectLoader, EmptyDocumentsAreSkippedButCounted) {
  const std::string text =
      "# a comment before anything\n---\n---\n# only a comment\n---\napiVersion: v1\n"
      "kind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: 1x}}\n";
  EXPECT_TRUE(contains(parse_error(text), "cluster.yaml: document 3 (Node n)"))
      << parse_error(text);
  const std::string bare =
      "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n...\n---\n"
      "apiVersion: v1\nkind: Node\nmetadata: {name: b}\nspec: []\n";
  EXPECT_TRUE(contains(parse_error(bare), "document 2 (Node b): field spec:")) << parse_error(bare);
}

// ---------------------------------------------------------------------------
// One test per kind of error
// ---------------------------------------------------------------------------

constexpr std::string_view kBadQuantity = R"(apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
---
apiVersion: v1
kind: Pod
metadata: {namespace: work, name: job1-0}
spec:
  containers:
  - name: c
    resources:
      requests: {cpu: 4x}
)";

TEST(ObjectLoaderErrors, BadQuantityNamesFileDocumentObjectAndField) {
  EXPECT_EQ(parse_error(kBadQuantity),
            "cluster.yaml: document 3 (Pod work/job1-0): field "
            "spec.containers[0].resources.requests.cpu: \"4x\" is not a quantity (unknown suffix "
            "\"x\": use n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei or an exponent such as "
            "e3); write e.g. \"500m\", \"2\", \"1.5Gi\" or \"1e3\"");
}

TEST(ObjectLoaderErrors, NegativeQuantity) {
  const std::string msg = parse_error(R"(apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {nvidia.com/gpu: "-1"}}
)");
  EXPECT_TRUE(contains(msg,
                       "cluster.yaml: document 1 (Node n1): field "
                       "status.allocatable[nvidia.com/gpu]: \"-1\" is negative"))
      << msg;
}

TEST(ObjectLoaderErrors, RequestAboveLimit) {
  const std::string msg = parse_error(R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - resources: {requests: {cpu: "2"}, limits: {cpu: "1"}}
)");
  EXPECT_TRUE(contains(msg,
                       "document 1 (Pod default/p): field "
                       "spec.containers[0].resources.requests.cpu: request 2 is more than "
                       "the limit 1"))
      << msg;
}

TEST(ObjectLoaderErrors, UnknownKindNamesTheSupportedOnes) {
  const std::string msg = parse_error(R"(apiVersion: v1
kind: Node
metadata: {name: n}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
)");
  EXPECT_TRUE(contains(msg,
                       "cluster.yaml: document 2 (Deployment web): field kind: \"Deployment\" is "
                       "not supported; use one of v1 Node, v1 Pod, "
                       "scheduling.volcano.sh/v1beta1 PodGroup, scheduling.volcano.sh/v1beta1 "
                       "Queue, scheduling.k8s.io/v1 PriorityClass"))
      << msg;
}

TEST(ObjectLoaderErrors, MissingKindAndWrongApiVersion) {
  EXPECT_TRUE(contains(parse_error("metadata: {name: x}\n"),
                       "cluster.yaml: document 1 (object): field kind: is missing"))
      << parse_error("metadata: {name: x}\n");
  const std::string msg = parse_error("apiVersion: batch/v1\nkind: Pod\nmetadata: {name: x}\n");
  EXPECT_TRUE(contains(msg,
                       "document 1 (Pod x): field apiVersion: \"batch/v1\" is not an "
                       "apiVersion of Pod; write apiVersion: v1"))
      << msg;
}

TEST(ObjectLoaderErrors, YamlSyntaxNamesFileAndLine) {
  const std::string msg = parse_error(
      "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Node\n"
      "metadata:\n  name: b\n labels: x\n",
      "nodes.yaml");
  EXPECT_TRUE(contains(msg, "nodes.yaml: document 2: line 9, column")) << msg;
  EXPECT_TRUE(contains(msg, "invalid YAML")) << msg;
}

TEST(ObjectLoaderErrors, DuplicateNamesBothDocuments) {
  const std::string msg = parse_error(R"(apiVersion: v1
kind: Pod
metadata: {namespace: a, name: p}
---
apiVersion: v1
kind: Pod
metadata: {namespace: b, name: p}
---
apiVersion: v1
kind: Pod
metadata: {namespace: a, name: p}
)");
  EXPECT_EQ(msg,
            "cluster.yaml: document 3 (Pod a/p): field metadata.name: \"p\" is already used by "
            "document 1; give each Pod in namespace \"a\" its own name");
}

TEST(ObjectLoaderErrors, TheFirstDuplicateReadIsTheOneNamed) {
  // Document 4 names a Pod again before document 5 names a Node again:
  // the Pod is the one refused, whatever the order the kinds are checked.
  const std::string msg = parse_error(R"(apiVersion: v1
kind: Node
metadata: {name: n}
---
apiVersion: v1
kind: Pod
metadata: {namespace: a, name: p}
---
apiVersion: v1
kind: Pod
metadata: {namespace: b, name: p}
---
apiVersion: v1
kind: Pod
metadata: {namespace: b, name: p}
---
apiVersion: v1
kind: Node
metadata: {name: n}
)");
  EXPECT_EQ(msg,
            "cluster.yaml: document 4 (Pod b/p): field metadata.name: \"p\" is already used by "
            "document 3; give each Pod in namespace \"b\" its own name");
}

TEST(ObjectLoaderErrors, AStorageDuplicateReadFirstIsNamedBeforeANodeOne) {
  // The storage kinds are checked on a core of their own: the earlier of
  // the two duplicates is still the one named.
  const std::string node = "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n";
  const std::string pv =
      "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv-a}\n"
      "spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce]}\n";
  EXPECT_EQ(parse_error(node + "---\n" + pv + "---\n" + pv + "---\n" + node),
            "cluster.yaml: document 3 (PersistentVolume pv-a): field metadata.name: \"pv-a\" is "
            "already used by document 2; give each PersistentVolume its own name");
  EXPECT_EQ(parse_error(node + "---\n" + pv + "---\n" + node + "---\n" + pv),
            "cluster.yaml: document 3 (Node n): field metadata.name: \"n\" is already used by "
            "document 1; give each Node its own name");
}

TEST(ObjectLoaderErrors, ADuplicateOfAnObjectGivenBeforeIsRefusedAndNothingAdded) {
  model::ClusterObjects out;
  parse_objects("apiVersion: v1\nkind: Node\nmetadata: {name: n}\n", "first.yaml", out);
  try {
    parse_objects(
        "apiVersion: v1\nkind: Node\nmetadata: {name: m}\n---\n"
        "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n",
        "second.yaml", out);
    FAIL() << "duplicate accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "second.yaml: document 2 (Node n): field metadata.name: \"n\" is already used by "
              "an object given before; give each Node its own name");
  }
  ASSERT_EQ(out.nodes.size(), 1u);
  EXPECT_EQ(out.nodes[0].name, "n");
}

TEST(ObjectLoaderErrors, DuplicateAcrossFilesNamesBothFiles) {
  TempFiles tmp;
  const std::string a = tmp.write("a.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n");
  const std::string b =
      tmp.write("b.yaml", "---\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n}\n");
  try {
    load_object_files({a, b});
    FAIL() << "duplicate accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), b +
                                         ": document 2 (Node n): field metadata.name: \"n\" is "
                                         "already used by document 1 of " +
                                         a + "; give each Node its own name");
  }
}

TEST(ObjectLoaderErrors, MissingNameAndWrongShapes) {
  EXPECT_TRUE(contains(parse_error("apiVersion: v1\nkind: Node\nmetadata: {}\n"),
                       "document 1 (Node): field metadata.name: is missing"));
  const std::string shape = parse_error(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: {name: c}\n");
  EXPECT_TRUE(contains(shape,
                       "document 1 (Pod default/p): field spec.containers: is a mapping, "
                       "not a list"))
      << shape;
  const std::string labels =
      parse_error("apiVersion: v1\nkind: Node\nmetadata: {name: n, labels: [a]}\n");
  EXPECT_TRUE(contains(labels, "field metadata.labels: is a list, not a mapping")) << labels;
  const std::string top = parse_error("- a\n- b\n");
  EXPECT_TRUE(contains(top, "cluster.yaml: document 1 (object): is a list, not an object")) << top;
}

TEST(ObjectLoaderErrors, BadValues) {
  const auto pod = [](const std::string& spec_and_more) {
    return parse_error("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n" + spec_and_more);
  };
  EXPECT_TRUE(contains(pod("status: {phase: Runing}\n"),
                       "field status.phase: \"Runing\" is not a pod phase; use Pending"));
  EXPECT_TRUE(contains(pod("spec: {priority: high}\n"),
                       "field spec.priority: \"high\" is not a whole number"));
  EXPECT_TRUE(contains(pod("spec: {priority: 99999999999}\n"),
                       "field spec.priority: 99999999999 is out of range"));
  EXPECT_TRUE(contains(pod("spec: {preemptionPolicy: Sometimes}\n"),
                       "field spec.preemptionPolicy: \"Sometimes\" is not a preemption policy"));
  EXPECT_TRUE(contains(pod("spec:\n  tolerations: [{key: k, operator: Exists, value: v}]\n"),
                       "field spec.tolerations[0].value: must be empty with operator Exists"));
  EXPECT_TRUE(contains(
      pod("spec:\n  affinity:\n    nodeAffinity:\n      "
          "requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - "
          "matchExpressions: [{key: k, operator: Near, values: [a]}]\n"),
      "field spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
      "nodeSelectorTerms[0].matchExpressions[0].operator: \"Near\" is not an operator"));
  EXPECT_TRUE(contains(pod("metadata: {name: q}\n"),
                       "document 1 (object): field metadata: appears twice; keep one"));
  EXPECT_TRUE(contains(pod("spec:\n  containers:\n  - resources: {requests: {cpu: 1, cpu: 2}}\n"),
                       "field spec.containers[0].resources.requests.cpu: appears twice"));
  EXPECT_TRUE(
      contains(parse_error("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  creationTimestamp: "
                           "yesterday\n"),
               "field metadata.creationTimestamp: \"yesterday\" is not an RFC 3339 time"));
  EXPECT_TRUE(
      contains(parse_error("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations: "
                           "{volcano.sh/preemptable: maybe}\n"),
               "field metadata.annotations[volcano.sh/preemptable]: \"maybe\" is not a boolean"));
  EXPECT_TRUE(
      contains(parse_error("apiVersion: v1\nkind: Node\nmetadata: {name: n}\nspec: {unschedulable: "
                           "often}\n"),
               "document 1 (Node n): field spec.unschedulable: \"often\" is not a boolean"));
  EXPECT_TRUE(contains(
      parse_error("apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: "
                  "g}\nspec: {minMember: -1}\n"),
      "document 1 (PodGroup default/g): field spec.minMember: -1 is negative"));
  EXPECT_TRUE(contains(
      parse_error("apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: "
                  "q}\nstatus: {state: Ajar}\n"),
      "document 1 (Queue q): field status.state: \"Ajar\" is not a queue state"));
}

TEST(ObjectLoaderErrors, UnknownPriorityClassNamesPodAndClass) {
  TempFiles tmp;
  const std::string f = tmp.write("pods.yaml", R"(apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {namespace: ml, name: ok}
  spec: {priorityClassName: high}
- apiVersion: v1
  kind: Pod
  metadata: {namespace: ml, name: p}
  spec: {priorityClassName: urgent}
)");
  try {
    load_object_files({f});
    FAIL() << "unknown class accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              f + ": document 2 (Pod ml/p): field items[1].spec.priorityClassName: no "
                  "PriorityClass \"urgent\" is defined; define it (kind: PriorityClass) or "
                  "remove priorityClassName");
  }
}

// No admission checks a PodGroup's class: as Volcano's scheduler, the job
// takes the default priority, and the load says so.
TEST(ObjectLoaderErrors, UnknownPriorityClassOfAPodGroupIsWarnedOf) {
  TempFiles tmp;
  const std::string f =
      tmp.write("groups.yaml",
                "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: g}\n"
                "spec: {priorityClassName: urgent}\n");
  std::vector<std::string> warnings;
  FieldChecks checks;
  checks.warn = [&](const std::string& w) { warnings.push_back(w); };
  const ClusterObjects o = load_object_files({f}, checks);
  ASSERT_EQ(o.pod_groups.size(), 1u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_TRUE(contains(warnings[0], f + ": document 1 (PodGroup default/g): field "
                                        "spec.priorityClassName: no PriorityClass \"urgent\" is "
                                        "defined; the job takes the default priority"))
      << warnings[0];
  ClusterObjects quiet = parse(
      "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: g}\n"
      "spec: {priorityClassName: urgent}\n");
  EXPECT_NO_THROW(complete_objects(quiet));
}

TEST(ObjectLoaderErrors, MissingPodGroupNamesPodAndGroup) {
  TempFiles tmp;
  const std::string f = tmp.write("pods.yaml", R"(apiVersion: v1
kind: Pod
metadata:
  namespace: ml
  name: worker-0
  annotations: {scheduling.k8s.io/group-name: trian}
)");
  try {
    load_object_files({f});
    FAIL() << "missing group accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              f + ": document 1 (Pod ml/worker-0): field "
                  "metadata.annotations[scheduling.k8s.io/group-name]: no PodGroup \"trian\" in "
                  "namespace \"ml\"; define it (kind: PodGroup) or remove the annotation");
  }
}

TEST(ObjectLoaderErrors, MissingQueueAndBadParent) {
  ClusterObjects g = parse(
      "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: g}\n"
      "spec: {queue: gone}\n");
  EXPECT_THROW(complete_objects(g), InputError);
  ClusterObjects q = parse(
      "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: a}\n"
      "spec: {parent: nowhere}\n");
  try {
    complete_objects(q);
    FAIL() << "missing parent accepted";
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.what(), "Queue a: field spec.parent: no Queue \"nowhere\"")) << e.what();
  }
}

TEST(ObjectLoaderErrors, TwoGlobalDefaults) {
  ClusterObjects o = parse(R"(apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: a}
globalDefault: true
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: b}
globalDefault: true
)");
  try {
    complete_objects(o);
    FAIL() << "two global defaults accepted";
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.what(),
                         "PriorityClass b: field globalDefault: PriorityClass \"a\" is "
                         "already the global default"))
        << e.what();
  }
}

TEST(ObjectLoaderErrors, NothingIsHalfApplied) {
  ClusterObjects out = parse("apiVersion: v1\nkind: Node\nmetadata: {name: keep}\n");
  EXPECT_THROW(parse_objects(kBadQuantity, "cluster.yaml", out), InputError);
  ASSERT_EQ(out.nodes.size(), 1u);  // n1 and n2 were fine, yet not appended
  EXPECT_EQ(out.nodes[0].name, "keep");
  EXPECT_TRUE(out.pods.empty());

  // A name already in `out` is a duplicate too.
  EXPECT_THROW(
      parse_objects("apiVersion: v1\nkind: Node\nmetadata: {name: keep}\n", "more.yaml", out),
      InputError);
  EXPECT_EQ(out.nodes.size(), 1u);

  // complete_objects checks everything before changing anything.
  ClusterObjects o = parse(R"(apiVersion: v1
kind: Pod
metadata: {name: lone}
---
apiVersion: v1
kind: Pod
metadata: {name: bad}
spec: {priorityClassName: nope}
)");
  EXPECT_THROW(complete_objects(o), InputError);
  EXPECT_TRUE(o.pod_groups.empty());
  EXPECT_TRUE(o.queues.empty());
  EXPECT_TRUE(o.pods[0].group_name.empty());
  EXPECT_FALSE(o.pods[0].priority.has_value());
}

TEST(ObjectLoaderErrors, UnreadableFile) {
  TempFiles tmp;
  const std::string missing = tmp.write("x.yaml", "") + ".absent";
  try {
    load_object_files({missing});
    FAIL() << "missing file accepted";
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.what(), missing + ": cannot open it")) << e.what();
  }
}

TEST(ObjectLoaderPods, FeatureBitsGatesAndNomination) {
  const ClusterObjects o = parse(R"(apiVersion: v1
kind: Pod
metadata: {namespace: ns, name: rich}
spec:
  schedulingGates: [{name: wait}]
  affinity:
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - {labelSelector: {matchLabels: {app: db}}, topologyKey: zone}
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 10
        podAffinityTerm: {labelSelector: {matchLabels: {app: web}}, topologyKey: zone}
  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}
  initContainers:
  - name: init
    ports: [{containerPort: 80, hostPort: 8080}]
  containers: [{name: main}]
status: {nominatedNodeName: node-a}
---
apiVersion: v1
kind: Pod
metadata: {namespace: ns, name: plain}
spec:
  affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: []}}
  containers:
  - name: main
    ports: [{containerPort: 80}]
)");
  const model::Pod& rich = by_name(o.pods, "rich");
  EXPECT_EQ(rich.features, model::kPodAffinity | model::kPreferredPodAffinity |
                               model::kTopologySpread | model::kHostPorts);
  EXPECT_TRUE(rich.scheduling_gated);
  EXPECT_EQ(rich.nominated_node, "node-a");
  const model::Pod& plain = by_name(o.pods, "plain");
  EXPECT_EQ(plain.features, 0u) << "an empty term list and a port without hostPort use nothing";
  EXPECT_FALSE(plain.scheduling_gated);
  EXPECT_EQ(plain.nominated_node, "");
}

TEST(ObjectLoaderGroups, PreemptableFromAnnotationElseLabel) {
  const ClusterObjects o = parse(R"(apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {namespace: ns, name: pinned, annotations: {volcano.sh/preemptable: "false"}}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {namespace: ns, name: labelled, labels: {volcano.sh/preemptable: "0"}}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {namespace: ns, name: plain}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {namespace: ns, name: open, labels: {volcano.sh/preemptable: "true"}}
)");
  EXPECT_FALSE(by_name(o.pod_groups, "pinned").preemptable);
  EXPECT_FALSE(by_name(o.pod_groups, "labelled").preemptable);
  EXPECT_TRUE(by_name(o.pod_groups, "open").preemptable);
  // Unset, a PodGroup is not preemptable (Volcano's JobInfo.extractPreemptable;
  // a pod is, unless it says otherwise).
  EXPECT_FALSE(by_name(o.pod_groups, "plain").preemptable);
  EXPECT_TRUE(contains(parse_error(R"(apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {namespace: ns, name: bad, annotations: {volcano.sh/preemptable: "maybe"}}
)"),
                       "metadata.annotations[volcano.sh/preemptable]: \"maybe\" is not a boolean"));
}

TEST(ObjectLoaderQueues, AnnotationsKept) {
  const ClusterObjects o = parse(R"(apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  name: eng
  annotations: {volcano.sh/hierarchy: root/eng, volcano.sh/hierarchy-weights: 1/2}
)");
  const model::Queue& q = by_name(o.queues, "eng");
  ASSERT_EQ(q.annotations.size(), 2u);
  EXPECT_EQ(q.annotations.at("volcano.sh/hierarchy"), "root/eng");
  EXPECT_EQ(q.annotations.at("volcano.sh/hierarchy-weights"), "1/2");
}

}  // namespace
}  // namespace scoria::source

namespace scoria::source {
namespace {

TEST(ObjectLoaderErrors, NamesAreValidatedAsTheApiServerDoes) {
  for (const std::string bad : {"a b", "a?b", "a#b", "a%2f", "Upper", "-lead", "trail-", "a_b"}) {
    const std::string msg =
        parse_error("apiVersion: v1\nkind: Node\nmetadata: {name: \"" + bad + "\"}\n");
    EXPECT_TRUE(contains(msg, "field metadata.name: \"" + bad + "\" is not a valid name")) << msg;
  }
  const std::string newline =
      parse_error("apiVersion: v1\nkind: Node\nmetadata: {name: \"a\\nb\"}\n");
  EXPECT_TRUE(contains(newline, "\"a\\x0ab\" is not a valid name")) << newline;
  const std::string ns =
      parse_error("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: team.a}\n");
  EXPECT_TRUE(contains(ns, "field metadata.namespace: \"team.a\" is not a valid namespace")) << ns;
  EXPECT_EQ(parse_error("apiVersion: v1\nkind: Node\nmetadata: {name: node-1.zone-a}\n"), "");
}

TEST(ObjectLoaderErrors, HostileTextIsOneMessage) {
  EXPECT_TRUE(
      contains(parse_error(",\n"), "cluster.yaml: document 1: line 1, column 1: invalid YAML"));
  EXPECT_TRUE(contains(parse_error("apiVersion: v1\nkind: Pod\nmetadata: {name: \"p\xe9\"}\n"),
                       "cluster.yaml: byte 44 (line 3, column 20) is not valid UTF-8"));
}

}  // namespace
}  // namespace scoria::source
