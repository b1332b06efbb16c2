// /metrics as Volcano exports it, after a session that preempted: each
// metric by name, type, labels and value, read as Prometheus reads them.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
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

}  // namespace
}  // namespace scoria::test
