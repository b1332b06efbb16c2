// The equivalence cache's promise, checked on clusters nobody wrote by hand:
// randomized clusters (gangs and singletons of alike pods, several queues,
// priorities, taints and tolerations, node selectors and affinity, pod
// affinity and anti-affinity, topology spread, running pods to preempt and
// reclaim; in some, GPU nodes and pods asking for a share of a card, with
// the deviceshare plugin in its vGPU, gpushare or gpu-number mode) go
// through several sessions with the cache on and with it off
// (equivalence_cache = false, the plain path, which also writes each
// session's snapshot whole instead of keeping it up to date), in process
// with the real built-in plugins, and every session must decide the same to
// the byte.
//
// SCORIA_DIFFERENTIAL_CLUSTERS sets how many (1000 by default) and
// SCORIA_DIFFERENTIAL_SEED the first seed (1): a run is reproducible, and
// scripts/differential.sh runs longer ones from other seeds.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "abi/host_api.h"
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

// Which GPUs a cluster carries, and so which mode of deviceshare its config
// enables. Drawn from a dice of its own so that the clusters without GPUs
// are the ones the generator made before GPUs were added.
enum class Gpu { kNone, kVgpu, kShare, kNumber };

Gpu gpu_of(uint64_t seed) {
  Dice d(seed ^ 0x27d4eb2f165667c5u);
  const int64_t roll = d.between(1, 100);
  return roll <= 15   ? Gpu::kVgpu
         : roll <= 23 ? Gpu::kShare
         : roll <= 30 ? Gpu::kNumber
                      : Gpu::kNone;
}

// A node's GPU cards (memory in MB, by card index); none for a node without.
using Cards = std::vector<int64_t>;

// Gives node `n` GPU cards in the cluster's mode, as Volcano's vGPU device
// plugin registers them (volcano.sh/node-vgpu-register and the vgpu
// resources) or as gpushare's volcano.sh/gpu-memory and gpu-number.
Cards add_gpus(Dice& d, json& n, Gpu gpu) {
  Cards cards;
  if (gpu == Gpu::kNone || !d.chance(75)) return cards;
  const std::string name = n["metadata"]["name"].get<std::string>();
  json& alloc = n["status"]["allocatable"];
  const int count = static_cast<int>(d.between(1, 4));
  if (gpu == Gpu::kVgpu) {
    std::string reg;
    int64_t pods = 0, memory = 0;
    for (int c = 0; c < count; ++c) {
      const int64_t share = d.between(2, 10);  // pods that may share the card
      const int64_t mb = d.pick(std::vector<int64_t>{8192, 16384, 32768});
      reg += "GPU-" + name + "-" + std::to_string(c) + "," + std::to_string(share) + "," +
             std::to_string(mb) + "," + (d.chance(80) ? "NVIDIA-A100" : "NVIDIA-Tesla V100") + "," +
             (d.chance(95) ? "true" : "false") + ",hami-core:";
      pods += share;
      memory += mb;
      cards.push_back(mb);
    }
    n["metadata"]["annotations"]["volcano.sh/node-vgpu-register"] = reg;
    alloc["volcano.sh/vgpu-number"] = std::to_string(pods);
    alloc["volcano.sh/vgpu-memory"] = std::to_string(memory);
    alloc["volcano.sh/vgpu-cores"] = std::to_string(100 * count);
  } else {
    const int64_t mb = d.pick(std::vector<int64_t>{8000, 16000});
    cards.assign(static_cast<size_t>(count), mb);
    alloc["volcano.sh/gpu-memory"] = std::to_string(mb * count);
    alloc["volcano.sh/gpu-number"] = std::to_string(count);
    if (d.chance(10)) n["metadata"]["annotations"]["volcano.sh/gpu-unhealthy-ids"] = "0";
  }
  return cards;
}

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

// A job's pod template: its spec, labels and annotations; the pods of a
// job share it, and in GPU clusters so do some jobs (their pods are then
// of one equivalence class although their PodGroups differ).
struct Template {
  json spec;
  json labels;
  json annotations = json::object();
  std::string app;
  int64_t gpu_mb = 0;  // what its pods take on one card (0: no GPU)
  int64_t gpu_cores = 0;
};

// A share of a card in the cluster's mode for about two pods in three:
// vGPU cards (one or two, with memory or the whole card, sometimes cores,
// sometimes a second container, sometimes the podgroup spread policy or a
// card type), gpushare memory on one card, or whole cards by number.
void ask_gpu(Dice& d, Template& t, Gpu gpu) {
  if (gpu == Gpu::kNone || !d.chance(70)) return;
  json& limits = t.spec["containers"][0]["resources"]["limits"];
  if (gpu == Gpu::kVgpu) {
    limits["volcano.sh/vgpu-number"] = d.chance(80) ? "1" : "2";
    t.gpu_mb = d.pick(std::vector<int64_t>{1024, 2048, 4096, 8192});
    if (d.chance(90))
      limits["volcano.sh/vgpu-memory"] = std::to_string(t.gpu_mb);
    else
      t.gpu_mb = 0;  // the whole card
    if (d.chance(30)) {
      t.gpu_cores = d.pick(std::vector<int64_t>{25, 50, 100});
      limits["volcano.sh/vgpu-cores"] = std::to_string(t.gpu_cores);
    }
    if (d.chance(10))
      t.spec["containers"].push_back(
          {{"name", "side"},
           {"image", "busybox"},
           {"resources",
            {{"limits", {{"volcano.sh/vgpu-number", "1"}, {"volcano.sh/vgpu-memory", "1024"}}}}}});
    if (d.chance(20)) t.annotations["volcano.sh/vgpu-podgroup-policy"] = "spread";
    if (d.chance(10)) t.annotations["nvidia.com/use-gputype"] = "A100";
    if (d.chance(40)) t.labels["workload"] = "train";
  } else if (gpu == Gpu::kShare) {
    t.gpu_mb = d.pick(std::vector<int64_t>{1000, 2000, 4000, 8000});
    limits["volcano.sh/gpu-memory"] = std::to_string(t.gpu_mb);
  } else {
    limits["volcano.sh/gpu-number"] = d.chance(70) ? "1" : "2";
    t.gpu_mb = 1;  // asks: a running pod holds a card
  }
}

// A running pod's cards, as the device plugin wrote them: one card of its
// node (vGPU: with the memory and cores it asked for).
void hold_gpu(Dice& d, json& pod, const Template& t, const Cards& cards, const std::string& node,
              Gpu gpu) {
  if (t.gpu_mb == 0 && gpu != Gpu::kVgpu) return;
  if (cards.empty() || !t.spec["containers"][0]["resources"].contains("limits")) return;
  const int64_t c = d.between(0, static_cast<int64_t>(cards.size()) - 1);
  json& ann = pod["metadata"]["annotations"];
  if (gpu == Gpu::kVgpu) {
    const int64_t mb = t.gpu_mb > 0 ? t.gpu_mb : cards[static_cast<size_t>(c)];
    ann["volcano.sh/vgpu-ids-new"] = "GPU-" + node + "-" + std::to_string(c) + ",NVIDIA," +
                                     std::to_string(mb) + "," + std::to_string(t.gpu_cores) + ":";
  } else {
    ann["volcano.sh/gpu-index"] = std::to_string(c);
  }
}

std::string cluster(uint64_t seed) {
  Dice d(seed);
  const Gpu gpu = gpu_of(seed);
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
  // Some clusters are wider than the adaptive search's minimum of 100
  // nodes, so that the search rotates (and allocate's choice index with it).
  const int nodes = static_cast<int>(d.chance(15) ? d.between(110, 220) : d.between(3, 24));
  const int zones = static_cast<int>(d.between(1, 3));
  std::vector<Cards> cards;
  for (int i = 0; i < nodes; ++i) {
    objects.push_back(node(d, i, zones));
    cards.push_back(add_gpus(d, objects.back(), gpu));
  }
  const int jobs = static_cast<int>(nodes > 100 ? d.between(16, 48) : d.between(2, 16));
  std::vector<Template> templates;
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
    if (gpu != Gpu::kNone && !templates.empty() && d.chance(50)) {
      Template alike = d.pick(templates);  // alike pods in another PodGroup
      templates.push_back(std::move(alike));
    } else {
      Template t;
      t.app = "app" + std::to_string(d.between(0, 3));
      t.spec = pod_spec(d, t.app);
      t.labels = {{"app", t.app}};
      ask_gpu(d, t, gpu);
      templates.push_back(std::move(t));
    }
    const Template& t = templates.back();
    for (int k = 0; k < size; ++k) {
      json pod = {{"apiVersion", "v1"},
                  {"kind", "Pod"},
                  {"metadata",
                   {{"namespace", "work"},
                    {"name", job + "-" + std::to_string(k)},
                    {"labels", t.labels},
                    {"annotations", t.annotations}}},
                  {"spec", t.spec},
                  {"status", {{"phase", "Pending"}}}};
      pod["metadata"]["annotations"]["scheduling.k8s.io/group-name"] = job;
      if (gpu != Gpu::kNone) {
        // As a Volcano Job's pods carry it; the equivalence class leaves it out.
        pod["metadata"]["labels"]["volcano.sh/task-index"] = std::to_string(k);
        pod["metadata"]["annotations"]["volcano.sh/task-index"] = std::to_string(k);
      }
      if (running) {
        const int64_t on = d.between(0, nodes - 1);
        pod["spec"]["nodeName"] = "n" + std::to_string(on);
        pod["status"]["phase"] = "Running";
        if (gpu != Gpu::kNone)
          hold_gpu(d, pod, t, cards[static_cast<size_t>(on)], "n" + std::to_string(on), gpu);
      }
      objects.push_back(std::move(pod));
    }
  }
  std::string text;
  for (const json& o : objects) text += "---\n" + o.dump() + "\n";
  return text;
}

// The tiers, with `extra` (more plugins of the second tier) added.
std::string tiers(const std::string& extra) {
  return R"(
[[tiers]]
plugins = [{ name = "priority" }, { name = "gang" }, { name = "conformance" }]

[[tiers]]
plugins = [
  { name = "overcommit" }, { name = "drf" }, { name = "predicates" }, { name = "proportion" },
  { name = "nodeorder" }, { name = "binpack" },)" +
         extra + "\n]\n";
}

// deviceshare in the cluster's mode: vGPU with a card order, a node score
// or none, and sometimes GPU exclusivity (by a label some templates carry,
// or by the task index the equivalence class leaves out).
std::string deviceshare(Dice& d, Gpu gpu) {
  if (gpu == Gpu::kShare) return R"({ "deviceshare.GPUSharingEnable" = true })";
  if (gpu == Gpu::kNumber) return R"({ "deviceshare.GPUNumberEnable" = true })";
  std::string args = R"({ "deviceshare.VGPUEnable" = true)";
  if (d.chance(70))
    args += R"(, "deviceshare.SchedulePolicy" = ")" +
            std::string(d.chance(50) ? "binpack" : "spread") + "\"";
  if (d.chance(70))
    args += R"(, "deviceshare.ScheduleWeight" = )" + std::to_string(d.between(1, 10));
  if (d.chance(40))
    args += d.chance(80)
                ? R"(, "deviceshare.GPUExclusiveRules" = [{ workload = "train" }])"
                : R"(, "deviceshare.GPUExclusiveRules" = [{ "volcano.sh/task-index" = "0" }])";
  return args + " }";
}

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
  const Gpu gpu = gpu_of(seed);
  if (gpu == Gpu::kNone) return text + tiers("");
  return text + tiers(R"(
  { name = "deviceshare", arguments = )" +
                      deviceshare(d, gpu) + " },");
}

// Everything a session decided, as one string.
std::string describe(const cycle::Outcome& o) {
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
  // Sessions that keep the last one's records check them against records
  // written anew (the plain path never keeps them).
  sched.set_verify_kept_records(true);
  model::ClusterObjects objects;
  source::parse_objects(objects_text, "cluster.yaml", objects);
  source::complete_objects(objects);
  cache::ClusterCache cache_;
  cache_.reset(std::move(objects));
  std::string out;
  for (int cycle = 0; cycle < 3; ++cycle) {
    // The cached path keeps its snapshot up to date from cycle to cycle;
    // the plain one writes it whole each time.
    const cycle::Snapshot& snapshot =
        cache_.refresh_snapshot(1'700'000'000'000 + cycle * 1000, cache);
    const cycle::Outcome outcome = sched.run_once(snapshot);
    out += "cycle " + std::to_string(cycle) + "\n" + describe(outcome);
    cache_.apply(outcome);
  }
  return out;
}

TEST(Differential, RandomClustersDecideAlikeWithAndWithoutTheEquivalenceCache) {
  plugin::PluginRegistry registry{scoria::abi::host_api()};
  registry.set_allow_writable(true);  // the build tree's plugins
  registry.scan({SCORIA_PLUGIN_DIR});
  const char* env = std::getenv("SCORIA_DIFFERENTIAL_CLUSTERS");
  const int clusters = env != nullptr ? std::atoi(env) : 1000;
  const char* seed_env = std::getenv("SCORIA_DIFFERENTIAL_SEED");
  const uint64_t first = seed_env != nullptr ? std::strtoull(seed_env, nullptr, 10) : 1;
  int binding = 0, vgpu_binding = 0, share_binding = 0;
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
    // deviceshare wrote the cards it chose on a bound pod.
    if (cached.find("volcano.sh/vgpu-ids-new=") != std::string::npos) ++vgpu_binding;
    if (cached.find("volcano.sh/gpu-index=") != std::string::npos) ++share_binding;
  }
  // A generator that places nothing would compare empty outputs.
  EXPECT_GT(binding, clusters / 2);
  // Nor would one whose GPU pods never get a card (15% of the clusters are
  // vGPU ones, 15% gpushare or gpu-number).
  EXPECT_GT(vgpu_binding, clusters / 10);
  EXPECT_GT(share_binding, clusters / 10);
  std::cout << binding << " of " << clusters << " clusters bind pods, " << vgpu_binding
            << " vGPU cards and " << share_binding << " gpushare cards\n";
}

}  // namespace
