// The equivalence cache's promise, checked on clusters nobody wrote by hand:
// randomized clusters (gangs and singletons of alike pods, several queues,
// priorities, taints and tolerations, node selectors and affinity, pod
// affinity and anti-affinity, topology spread, running pods to preempt and
// reclaim) go through several sessions with the cache on and with it off
// (equivalence_cache = false, the plain path), in process with the real
// built-in plugins, and every session must decide the same to the byte.
//
// SCORIA_DIFFERENTIAL_CLUSTERS sets how many (1000 by default) and
// SCORIA_DIFFERENTIAL_SEED the first seed (1): a run is reproducible, and
// scripts/differential.sh runs longer ones from other seeds.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cache/cluster_cache.h"
#include "config/scheduler_config.h"
#include "plugin/plugin_registry.h"
#include "scheduler/scheduler.h"
#include "source/object_loader.h"

namespace {

using nlohmann::json;
using namespace scoria;

// A small deterministic generator: std::mt19937_64 is specified exactly,
// and the helpers below use no library distribution (whose results are
// implementation-defined).
class Dice {
 public:
  explicit Dice(uint64_t seed) : rng_(seed) {}
  int64_t between(int64_t lo, int64_t hi) {  // inclusive
    return lo + static_cast<int64_t>(rng_() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool chance(int percent) { return between(1, 100) <= percent; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(between(0, static_cast<int64_t>(v.size()) - 1))];
  }

 private:
  std::mt19937_64 rng_;
};

json node(Dice& d, int i, int zones) {
  const std::string name = "n" + std::to_string(i);
  json labels = {{"kubernetes.io/hostname", name},
                 {"topology.kubernetes.io/zone", "z" + std::to_string(i % zones)}};
  if (d.chance(40)) labels["disk"] = d.chance(50) ? "ssd" : "hdd";
  const int64_t cpu = d.pick(std::vector<int64_t>{4, 8, 16});
  json n = {{"apiVersion", "v1"},
            {"kind", "Node"},
            {"metadata", {{"name", name}, {"labels", labels}}},
            {"status",
             {{"allocatable",
               {{"cpu", std::to_string(cpu)},
                {"memory", std::to_string(cpu * 4) + "Gi"},
                {"pods", std::to_string(d.between(4, 30))}}}}}};
  json taints = json::array();
  if (d.chance(15))
    taints.push_back({{"key", "dedicated"}, {"value", "batch"}, {"effect", "NoSchedule"}});
  if (d.chance(15))
    taints.push_back({{"key", "spot"}, {"value", "yes"}, {"effect", "PreferNoSchedule"}});
  if (!taints.empty()) n["spec"]["taints"] = taints;
  if (d.chance(5)) n["spec"]["unschedulable"] = true;
  return n;
}

// The scheduling part of a pod template; the pods of a job share it.
json pod_spec(Dice& d, const std::string& app) {
  const int64_t cpu = d.pick(std::vector<int64_t>{250, 500, 1000, 2000, 3000});
  json spec = {
      {"schedulerName", "volcano"},
      {"containers",
       {{{"name", "main"},
         {"image", "busybox"},
         {"resources",
          {{"requests",
            {{"cpu", std::to_string(cpu) + "m"}, {"memory", std::to_string(cpu * 2) + "Mi"}}}}}}}}};
  if (d.chance(25)) spec["priorityClassName"] = d.chance(50) ? "high" : "low";
  if (d.chance(15)) spec["nodeSelector"] = {{"disk", d.chance(50) ? "ssd" : "hdd"}};
  if (d.chance(20))
    spec["tolerations"] = {{{"key", d.chance(50) ? "dedicated" : "spot"}, {"operator", "Exists"}}};
  const json app_selector = {{"matchLabels", {{"app", app}}}};
  const std::string key = d.chance(50) ? "kubernetes.io/hostname" : "topology.kubernetes.io/zone";
  if (d.chance(10))
    spec["affinity"]["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] = {
        {{"weight", d.between(1, 50)},
         {"preference",
          {{"matchExpressions", {{{"key", "disk"}, {"operator", "In"}, {"values", {"ssd"}}}}}}}}};
  if (d.chance(8))
    spec["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = {
        {{"labelSelector", app_selector}, {"topologyKey", key}}};
  if (d.chance(6))
    spec["affinity"]["podAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] = {
        {{"weight", 10},
         {"podAffinityTerm", {{"labelSelector", app_selector}, {"topologyKey", key}}}}};
  if (d.chance(8))
    spec["topologySpreadConstraints"] = {
        {{"maxSkew", d.between(1, 2)},
         {"topologyKey", key},
         {"whenUnsatisfiable", d.chance(50) ? "DoNotSchedule" : "ScheduleAnyway"},
         {"labelSelector", app_selector}}};
  return spec;
}

std::string cluster(uint64_t seed) {
  Dice d(seed);
  std::vector<json> objects;
  const int queues = static_cast<int>(d.between(1, 3));
  for (int q = 0; q < queues; ++q)
    objects.push_back({{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                       {"kind", "Queue"},
                       {"metadata", {{"name", "q" + std::to_string(q)}}},
                       {"spec", {{"weight", d.between(1, 4)}, {"reclaimable", true}}},
                       {"status", {{"state", "Open"}}}});
  for (const auto& [name, value] : {std::pair{"high", 1000}, std::pair{"low", 10}})
    objects.push_back({{"apiVersion", "scheduling.k8s.io/v1"},
                       {"kind", "PriorityClass"},
                       {"metadata", {{"name", name}}},
                       {"value", value}});
  const int nodes = static_cast<int>(d.between(3, 24));
  const int zones = static_cast<int>(d.between(1, 3));
  for (int i = 0; i < nodes; ++i) objects.push_back(node(d, i, zones));
  const int jobs = static_cast<int>(d.between(2, 16));
  for (int j = 0; j < jobs; ++j) {
    const std::string job = "job" + std::to_string(j);
    const int size = d.chance(40) ? 1 : static_cast<int>(d.between(2, 8));
    const int min = static_cast<int>(d.between(1, size));
    const bool running = d.chance(25);  // already placed: something to preempt
    objects.push_back(
        {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
         {"kind", "PodGroup"},
         {"metadata", {{"namespace", "work"}, {"name", job}}},
         {"spec", {{"minMember", min}, {"queue", "q" + std::to_string(d.between(0, queues - 1))}}},
         {"status", {{"phase", running ? "Running" : "Inqueue"}}}});
    const std::string app = "app" + std::to_string(d.between(0, 3));
    const json spec = pod_spec(d, app);
    for (int k = 0; k < size; ++k) {
      json pod = {{"apiVersion", "v1"},
                  {"kind", "Pod"},
                  {"metadata",
                   {{"namespace", "work"},
                    {"name", job + "-" + std::to_string(k)},
                    {"labels", {{"app", app}}},
                    {"annotations", {{"scheduling.k8s.io/group-name", job}}}}},
                  {"spec", spec},
                  {"status", {{"phase", "Pending"}}}};
      if (running) {
        pod["spec"]["nodeName"] = "n" + std::to_string(d.between(0, nodes - 1));
        pod["status"]["phase"] = "Running";
      }
      objects.push_back(std::move(pod));
    }
  }
  std::string text;
  for (const json& o : objects) text += "---\n" + o.dump() + "\n";
  return text;
}

constexpr const char* kTiers = R"(
[[tiers]]
plugins = [{ name = "priority" }, { name = "gang" }, { name = "conformance" }]

[[tiers]]
plugins = [
  { name = "overcommit" }, { name = "drf" }, { name = "predicates" }, { name = "proportion" },
  { name = "nodeorder" }, { name = "binpack" },
]
)";

std::string config_text(uint64_t seed) {
  Dice d(seed ^ 0x5bd1e995u);
  const std::vector<std::string> actions = {
      R"(actions = ["enqueue", "allocate", "backfill"])",
      R"(actions = ["enqueue", "allocate", "preempt", "reclaim", "backfill"])",
      R"(actions = ["allocate", "preempt", "backfill"])"};
  std::string text = d.pick(actions) + "\n";
  if (d.chance(50))
    text += "percentage_of_nodes_to_find = " + std::to_string(d.between(10, 100)) + "\n";
  if (d.chance(50)) text += "min_nodes_to_find = " + std::to_string(d.between(1, 10)) + "\n";
  return text + kTiers;
}

// Everything a session decided, as one string.
std::string describe(const session::Outcome& o) {
  std::ostringstream out;
  for (const auto& b : o.binds) {
    out << "bind " << b.pod << " " << b.node;
    for (const auto& [k, v] : b.annotations) out << " " << k << "=" << v;
    out << "\n";
  }
  for (const auto& b : o.pipelined) out << "pipelined " << b.pod << " " << b.node << "\n";
  for (const auto& e : o.evictions) out << "evict " << e << "\n";
  for (const auto& g : o.pod_groups) {
    out << "group " << g.key << " " << model::phase_name(g.phase) << " " << g.unschedulable << "\n";
    for (const auto& p : g.pending)
      out << "  pending " << p.pod << " " << p.reason << " " << p.message << "\n";
  }
  for (const auto& q : o.queues) {
    out << "queue " << q.name;
    for (double a : q.allocated) out << " " << a;
    out << " /";
    for (double a : q.deserved) out << " " << a;
    out << "\n";
  }
  return out.str();
}

std::string run(const plugin::PluginRegistry& registry, const std::string& conf_text,
                const std::string& objects_text, bool cache) {
  config::SchedulerConfig conf = config::parse_config(conf_text, "differential.toml");
  conf.equivalence_cache = cache;
  scheduler::Scheduler sched(registry, conf);
  model::ClusterObjects objects;
  source::parse_objects(objects_text, "cluster.yaml", objects);
  source::complete_objects(objects);
  cache::ClusterCache cache_;
  cache_.reset(std::move(objects));
  std::string out;
  for (int cycle = 0; cycle < 3; ++cycle) {
    session::Snapshot snapshot = cache_.snapshot();
    snapshot.now_ms = 1'700'000'000'000 + cycle * 1000;
    const session::Outcome outcome = sched.run_once(snapshot);
    out += "cycle " + std::to_string(cycle) + "\n" + describe(outcome);
    cache_.apply(outcome);
  }
  return out;
}

TEST(Differential, RandomClustersDecideAlikeWithAndWithoutTheEquivalenceCache) {
  plugin::PluginRegistry registry;
  registry.set_allow_writable(true);  // the build tree's plugins
  registry.scan({SCORIA_PLUGIN_DIR});
  const char* env = std::getenv("SCORIA_DIFFERENTIAL_CLUSTERS");
  const int clusters = env != nullptr ? std::atoi(env) : 1000;
  const char* seed_env = std::getenv("SCORIA_DIFFERENTIAL_SEED");
  const uint64_t first = seed_env != nullptr ? std::strtoull(seed_env, nullptr, 10) : 1;
  int binding = 0;
  for (int i = 0; i < clusters; ++i) {
    const uint64_t seed = first + static_cast<uint64_t>(i);
    const std::string objects = cluster(seed);
    const std::string conf = config_text(seed);
    const std::string cached = run(registry, conf, objects, true);
    const std::string plain = run(registry, conf, objects, false);
    ASSERT_EQ(cached, plain) << "seed " << seed << "\nconfig:\n"
                             << conf << "\ncluster:\n"
                             << objects;
    if (cached.find("bind ") != std::string::npos) ++binding;
  }
  // A generator that places nothing would compare empty outputs.
  EXPECT_GT(binding, clusters / 2);
}

}  // namespace
