// /metrics as Volcano exports it, after a session that preempted, with
// capacity's queues, and with the Kubernetes source's binds: each metric by
// name, type, labels and value, read as Prometheus reads them.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>

#include "serve_process.h"

namespace scoria::test {
namespace {

// Volcano's default plugins (drf without its preemptable vote), and preempt.
constexpr const char* kConfig = R"(actions = ["enqueue", "allocate", "preempt"]
[[tiers]]
plugins = [{ name = "priority" }, { name = "gang" }, { name = "conformance" }]
[[tiers]]
plugins = [{ name = "overcommit" }, { name = "drf", enablePreemptable = false },
           { name = "predicates" }, { name = "proportion" }, { name = "nodeorder" }]
)";

// Two PriorityClasses and one 4-cpu node.
std::string base_cluster() {
  std::ifstream in(std::string(SCORIA_SOURCE_DIR) + "/tests/serve/fixtures/preemption_base.yaml");
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string job(const std::string& name, int pods, const std::string& cpu,
                const std::string& priority, int min_member) {
  std::string out =
      "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: " + name +
      ", namespace: ns, creationTimestamp: \"2026-01-01T00:00:00Z\"}\nspec: {minMember: " +
      std::to_string(min_member) + ", priorityClassName: " + priority + "}\n";
  for (int i = 0; i < pods; ++i)
    out += "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + name + "-" + std::to_string(i) +
           ", namespace: ns, annotations: {scheduling.k8s.io/group-name: " + name +
           "}}\nspec: {priorityClassName: " + priority +
           ", containers: [{name: c, resources: {requests: {cpu: \"" + cpu + "\"}}}]}\n";
  return out;
}

// The samples of a scrape, "name{labels}" to value, and the TYPE lines.
struct Scrape {
  std::map<std::string, double> samples;
  std::map<std::string, std::string> types;
  std::optional<double> operator()(const std::string& series) const {
    const auto it = samples.find(series);
    if (it == samples.end()) return std::nullopt;
    return it->second;
  }
};

Scrape scrape(unsigned short port) {
  Scrape s;
  std::istringstream lines(http(port, "GET", "/metrics").body);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("# TYPE ", 0) == 0) {
      std::istringstream words(line.substr(7));
      std::string name, type;
      words >> name >> type;
      s.types[name] = type;
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.rfind(' ');
    s.samples[line.substr(0, space)] = std::stod(line.substr(space + 1));
  }
  return s;
}

// How many bucket series start with `prefix`.
size_t buckets(const Scrape& m, const std::string& prefix) {
  size_t n = 0;
  for (const auto& [series, value] : m.samples) n += series.rfind(prefix, 0) == 0 ? 1 : 0;
  return n;
}

TEST(Metrics, AsVolcanoExportsThemAfterAPreemption) {
  TempDir dir;
  const auto config = dir.path() / "scheduler.toml";
  std::ofstream(config) << kConfig;
  ServeProcess serve(dir.path() / "state",
                     {"--config", config.string(), "--schedule-period", "100"});
  ASSERT_EQ(http(serve.port(), "POST", "/api/v1/objects", base_cluster()).status, 200u);
  ASSERT_EQ(http(serve.port(), "POST", "/api/v1/objects", job("low", 2, "2", "low", 1)).status,
            200u);
  ASSERT_TRUE(eventually([&] {
    return scrape(serve.port())(R"(volcano_queue_allocated_milli_cpu{queue_name="default"})") ==
           4000.0;
  }));
  // Its pods run (a kubelet would say so); only running pods are victims,
  // and its gang keeps the one it needs.
  for (const char* pod : {"low-0", "low-1"})
    ASSERT_EQ(http(serve.port(), "PUT", std::string("/api/v1/pods/ns/") + pod + "/status",
                   R"({"phase": "Running"})")
                  .status,
              200u);
  // A high-priority job preempts the low one; a third can never fit.
  ASSERT_EQ(http(serve.port(), "POST", "/api/v1/objects", job("high", 1, "2", "high", 1)).status,
            200u);
  ASSERT_EQ(http(serve.port(), "POST", "/api/v1/objects", job("stuck", 2, "3", "low", 2)).status,
            200u);
  // Both have been seen: the preemption, and a session that has had the
  // stuck job (it may come a session after the preemption, under load).
  ASSERT_TRUE(eventually([&] {
    const Scrape now = scrape(serve.port());
    return now(R"(volcano_eviction_transactions_total{action="preempt"})").value_or(0) >= 1 &&
           now(R"(volcano_unschedule_task_count{job_id="stuck"})").has_value();
  })) << serve.log();
  const Scrape m = scrape(serve.port());

  // Latencies in milliseconds with Volcano's buckets: actions from 1 ms,
  // plugins from 0.1 ms, sessions from 1 ms to 5 s.
  EXPECT_EQ(m.types.at("volcano_action_scheduling_latency_milliseconds"), "histogram");
  EXPECT_TRUE(
      m(R"(volcano_action_scheduling_latency_milliseconds_bucket{action="allocate",le="1"})"));
  EXPECT_TRUE(m(
      R"(volcano_plugin_scheduling_latency_milliseconds_bucket{OnSession="OnSessionOpen",plugin="gang",le="0.1"})"));
  EXPECT_TRUE(m(R"(volcano_e2e_scheduling_latency_milliseconds_bucket{le="1"})"));
  // ExponentialBucketsRange(1, 2000, 20) and (1, 5000, 20): 20 bounds and +Inf.
  EXPECT_EQ(
      buckets(m, R"(volcano_action_scheduling_latency_milliseconds_bucket{action="preempt",)"),
      21u);
  EXPECT_EQ(buckets(m, "volcano_e2e_scheduling_latency_milliseconds_bucket{"), 21u);
  EXPECT_EQ(
      buckets(
          m,
          R"(volcano_plugin_scheduling_latency_milliseconds_bucket{OnSession="OnSessionOpen",plugin="gang",)"),
      16u);
  EXPECT_GE(m(R"(volcano_e2e_scheduling_latency_milliseconds_count)").value_or(0), 2);
  EXPECT_EQ(m.types.at("volcano_open_session_duration_milliseconds"), "histogram");
  EXPECT_GE(m(R"(volcano_task_scheduling_latency_milliseconds_count{stage="Bound"})").value_or(0),
            1);

  // Preemption.
  EXPECT_EQ(m.types.at("volcano_pod_preemption_victims"), "gauge");
  EXPECT_EQ(m.types.at("volcano_total_preemption_attempts"), "counter");
  EXPECT_GE(m("volcano_total_preemption_attempts").value_or(0), 1);
  EXPECT_TRUE(m("volcano_pod_preemption_victims"));

  // The job that can never fit: 2 tasks short, retried every session.
  EXPECT_EQ(m(R"(volcano_unschedule_task_count{job_id="stuck"})"), 2.0);
  EXPECT_GE(m(R"(volcano_job_retry_counts{job_id="stuck"})").value_or(0), 1);
  EXPECT_GE(m("volcano_unschedule_job_count").value_or(0), 1);
  // The placed job's e2e latency, from its creation.
  EXPECT_TRUE(m(
      R"(volcano_e2e_job_scheduling_duration{job_name="low",job_namespace="ns",queue="default"})"));
  EXPECT_GE(m(R"(volcano_e2e_job_scheduling_latency_milliseconds_count)").value_or(0), 1);
  EXPECT_TRUE(m(
      R"(volcano_e2e_job_scheduling_start_time{job_name="low",job_namespace="ns",queue="default"})"));

  // Each job's dominant share, as drf keeps it: low and high hold 2 of the
  // node's 4 cpu each once low's victim is gone; stuck holds nothing.
  EXPECT_EQ(m.types.at("volcano_job_share"), "gauge");
  EXPECT_TRUE(eventually([&] {
    const Scrape now = scrape(serve.port());
    return now(R"(volcano_job_share{job_id="low",job_ns="ns"})") == 0.5 &&
           now(R"(volcano_job_share{job_id="high",job_ns="ns"})") == 0.5 &&
           now(R"(volcano_job_share{job_id="stuck",job_ns="ns"})") == 0.0;
  })) << http(serve.port(), "GET", "/metrics").body;

  // The queue family.
  for (const char* name :
       {"volcano_queue_allocated_milli_cpu", "volcano_queue_allocated_memory_bytes",
        "volcano_queue_request_milli_cpu", "volcano_queue_request_memory_bytes",
        "volcano_queue_deserved_milli_cpu", "volcano_queue_inqueue_milli_cpu",
        "volcano_queue_share", "volcano_queue_weight", "volcano_queue_overused",
        "volcano_queue_pod_group_inqueue_count", "volcano_queue_pod_group_pending_count",
        "volcano_queue_pod_group_running_count", "volcano_queue_pod_group_unknown_count"})
    EXPECT_TRUE(m(std::string(name) + R"({queue_name="default"})")) << name;
  EXPECT_EQ(m(R"(volcano_queue_weight{queue_name="default"})"), 1.0);
  // What the queue's jobs ask for: high's 2 cpu and stuck's 2 x 3, besides
  // what runs.
  EXPECT_GE(m(R"(volcano_queue_request_milli_cpu{queue_name="default"})").value_or(0), 8000);

  // A queue's and a job's series go with them.
  ASSERT_EQ(http(serve.port(), "POST", "/api/v1/objects",
                 "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: "
                 "q2}\nspec: {weight: 3}\n")
                .status,
            200u);
  ASSERT_TRUE(eventually(
      [&] { return scrape(serve.port())(R"(volcano_queue_weight{queue_name="q2"})") == 3.0; }));
  ASSERT_EQ(http(serve.port(), "DELETE", "/apis/scheduling.volcano.sh/v1beta1/queues/q2").status,
            200u);
  for (const char* pod : {"stuck-0", "stuck-1"})
    ASSERT_EQ(http(serve.port(), "DELETE", std::string("/api/v1/namespaces/ns/pods/") + pod).status,
              200u);
  ASSERT_EQ(http(serve.port(), "DELETE",
                 "/apis/scheduling.volcano.sh/v1beta1/namespaces/ns/podgroups/stuck")
                .status,
            200u);
  EXPECT_TRUE(eventually([&] {
    const Scrape after = scrape(serve.port());
    return !after(R"(volcano_queue_weight{queue_name="q2"})") &&
           !after(R"(volcano_queue_allocated_milli_cpu{queue_name="q2"})") &&
           !after(R"(volcano_unschedule_task_count{job_id="stuck"})") &&
           !after(R"(volcano_job_retry_counts{job_id="stuck"})") &&
           !after(R"(volcano_job_share{job_id="stuck",job_ns="ns"})") &&
           after(R"(volcano_queue_weight{queue_name="default"})");
  })) << http(serve.port(), "GET", "/metrics").body;
}

// capacity reports each queue's real capability, shown as Volcano's
// volcano_queue_real_capacity_*: the cluster less the other queues'
// guarantees, plus the queue's own, capped by its capability. And the
// session's stages, timed as Volcano times them.
TEST(Metrics, RealCapacityOfEachQueueAndTheStagesOfASession) {
  TempDir dir;
  const auto config = dir.path() / "scheduler.toml";
  std::ofstream(config) << R"(actions = ["enqueue", "allocate"]
[[tiers]]
plugins = [{ name = "priority" }, { name = "gang" }]
[[tiers]]
plugins = [{ name = "predicates" }, { name = "capacity" }, { name = "nodeorder" }]
)";
  ServeProcess serve(dir.path() / "state",
                     {"--config", config.string(), "--schedule-period", "100"});
  // Two nodes of 2 cpu, 4Gi and 2 GPUs; q-a is guaranteed 1 cpu and capped
  // at 3 cpu and 1 GPU, q-b is guaranteed 2 cpu and capped at nothing. A
  // pod of q-b fits either node: its nodes are searched and scored.
  std::string cluster;
  for (const char* node : {"n1", "n2"})
    cluster += std::string("apiVersion: v1\nkind: Node\nmetadata: {name: ") + node +
               "}\nstatus: {allocatable: {cpu: \"2\", memory: 4Gi, pods: \"110\", "
               "nvidia.com/gpu: \"2\"}}\n---\n";
  cluster += R"(apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: q-a}
spec: {guarantee: {resource: {cpu: "1"}}, capability: {cpu: "3", nvidia.com/gpu: "1"}}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: q-b}
spec: {guarantee: {resource: {cpu: "2"}}}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: b, namespace: ns}
spec: {minMember: 1, queue: q-b}
---
apiVersion: v1
kind: Pod
metadata: {name: b-0, namespace: ns, annotations: {scheduling.k8s.io/group-name: b}}
spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
)";
  ASSERT_EQ(http(serve.port(), "POST", "/api/v1/objects", cluster).status, 200u);
  const auto real = [](const char* what, const char* queue) {
    return std::string("volcano_queue_real_capacity_") + what + "{queue_name=\"" + queue + "\"}";
  };
  ASSERT_TRUE(eventually([&] {
    const Scrape now = scrape(serve.port());
    return now(real("milli_cpu", "q-b")).has_value() &&
           now(R"(volcano_queue_allocated_milli_cpu{queue_name="q-b"})") == 1000.0;
  })) << serve.log();
  const Scrape m = scrape(serve.port());
  EXPECT_EQ(m.types.at("volcano_queue_real_capacity_milli_cpu"), "gauge");
  EXPECT_EQ(m.types.at("volcano_queue_real_capacity_memory_bytes"), "gauge");
  EXPECT_EQ(m.types.at("volcano_queue_real_capacity_scalar_resources"), "gauge");
  // 4 cpu less the 3 guaranteed, plus the queue's own guarantee; q-a's
  // capability caps its 2 at 3.
  EXPECT_EQ(m(real("milli_cpu", "q-a")), 2000.0);
  EXPECT_EQ(m(real("milli_cpu", "q-b")), 3000.0);
  EXPECT_EQ(m(real("milli_cpu", "default")), 1000.0);
  // No guarantee of memory, no cap: the whole cluster's.
  EXPECT_EQ(m(real("memory_bytes", "q-a")), 8.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(m(real("memory_bytes", "q-b")), 8.0 * 1024 * 1024 * 1024);
  // GPUs in milli-units, as Volcano's Resource keeps them: q-a's capped at 1.
  EXPECT_EQ(
      m(R"(volcano_queue_real_capacity_scalar_resources{queue_name="q-a",resource="nvidia.com/gpu"})"),
      1000.0);
  EXPECT_EQ(
      m(R"(volcano_queue_real_capacity_scalar_resources{queue_name="q-b",resource="nvidia.com/gpu"})"),
      4000.0);
  // The pod count is left out, as of every queue resource here.
  EXPECT_FALSE(
      m(R"(volcano_queue_real_capacity_scalar_resources{queue_name="q-a",resource="pods"})"));

  // The pod's node search and the scoring of the two nodes, with Volcano's
  // buckets (ExponentialBucketsRange(0.1, 500, 20): 20 bounds and +Inf).
  EXPECT_EQ(m.types.at("volcano_scheduling_stage_duration_milliseconds"), "histogram");
  for (const char* stage : {"Predicate", "Scoring"}) {
    const std::string series = std::string("volcano_scheduling_stage_duration_milliseconds_");
    const std::string label = std::string("stage=\"") + stage + "\"";
    EXPECT_GE(m(series + "count{" + label + "}").value_or(0), 1) << stage;
    EXPECT_TRUE(m(series + "bucket{" + label + ",le=\"0.1\"}")) << stage;
    EXPECT_TRUE(m(series + "bucket{" + label + ",le=\"+Inf\"}")) << stage;
    EXPECT_EQ(buckets(m, series + "bucket{" + label + ","), 21u) << stage;
  }
  // The local store binds a session's pods in one transaction: no bind of
  // its own to time (the Kubernetes source times each).
  EXPECT_FALSE(m(R"(volcano_scheduling_stage_duration_milliseconds_count{stage="Bind"})"));

  // A guarantee that changes changes every other queue's real capacity.
  ASSERT_EQ(http(serve.port(), "POST", "/api/v1/objects",
                 "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: "
                 "q-b}\nspec: {guarantee: {resource: {cpu: \"1\"}}}\n")
                .status,
            200u);
  EXPECT_TRUE(eventually([&] {
    const Scrape now = scrape(serve.port());
    return now(real("milli_cpu", "q-b")) == 3000.0 && now(real("milli_cpu", "q-a")) == 3000.0 &&
           now(real("milli_cpu", "default")) == 2000.0;
  })) << http(serve.port(), "GET", "/metrics").body;
}

// With the Kubernetes source each bind's writes before the binding
// (PreBind) and the binding itself (Bind) are timed, as Volcano's binder
// times them. The API server is a second serve, whose own sessions leave
// alone the pods that name the scheduler under test.
TEST(Metrics, BindStagesWithTheKubernetesSource) {
  TempDir dir;
  const auto config = dir.path() / "scheduler.toml";
  std::ofstream(config) << R"(actions = ["enqueue", "allocate"]
[[tiers]]
plugins = [{ name = "priority" }, { name = "gang" }]
[[tiers]]
plugins = [{ name = "predicates" }, { name = "proportion" }, { name = "nodeorder" }]
)";
  ServeProcess apiserver(dir.path() / "apiserver",
                         {"--config", config.string(), "--schedule-period", "3600000"});
  ServeProcess scheduler(
      dir.path() / "scheduler",
      {"--config", config.string(), "--schedule-period", "100", "--source", "kubernetes",
       "--master", "http://127.0.0.1:" + std::to_string(apiserver.port()), "--scheduler-name",
       "scoria-under-test"});
  ASSERT_EQ(http(apiserver.port(), "POST", "/api/v1/objects", R"(apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: default}
spec: {weight: 1}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: j, namespace: ns}
spec: {minMember: 1}
---
apiVersion: v1
kind: Pod
metadata: {name: j-0, namespace: ns, annotations: {scheduling.k8s.io/group-name: j}}
spec:
  schedulerName: scoria-under-test
  containers: [{name: c, resources: {requests: {cpu: "1"}}}]
)")
                .status,
            200u);
  const std::string series = "volcano_scheduling_stage_duration_milliseconds_";
  EXPECT_TRUE(eventually([&] {
    const Scrape m = scrape(scheduler.port());
    return m(series + R"(count{stage="Bind"})").value_or(0) >= 1 &&
           m(series + R"(count{stage="PreBind"})").value_or(0) >= 1;
  })) << scheduler.log()
      << http(scheduler.port(), "GET", "/metrics").body;
  const Scrape m = scrape(scheduler.port());
  EXPECT_EQ(buckets(m, series + R"(bucket{stage="Bind",)"), 21u);
  EXPECT_GT(m(series + R"(sum{stage="Bind"})").value_or(0), 0);
  // The pod is bound on the server.
  const auto pod = nlohmann::json::parse(http(apiserver.port(), "GET", "/api/v1/pods/ns/j-0").body);
  EXPECT_EQ(pod["spec"].value("nodeName", ""), "n1") << pod.dump();
}

}  // namespace
}  // namespace scoria::test
