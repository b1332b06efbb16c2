// The usage plugin (Volcano's usage): keeps pods off nodes whose measured
// load is over a threshold and prefers the least loaded nodes.
//
// Load comes from three Node annotations a metrics adapter keeps current
// (Volcano asks its metrics source for the average over its metrics period,
// 10m, and reads the time the sample was taken):
//
//   scoria.io/cpu-usage-avg-10m     CPU in use, percent of the node (0-100),
//                                   averaged over the last 10 minutes, e.g. "42.5"
//   scoria.io/memory-usage-avg-10m  memory in use, percent of the node (0-100),
//                                   averaged likewise
//   scoria.io/usage-metrics-time    when the adapter took them, RFC 3339
//                                   (e.g. "2026-01-01T12:00:00Z")
//
// A node has usage data when all three are present and well formed and the
// time is at most 5 minutes before the session's clock (Volcano's
// MetricsActiveTime); otherwise the node has none, as a node without fresh
// metrics has none in Volcano: it passes the predicate and scores 0. A
// malformed or incomplete set (a value that is not a number from 0 to 100, a
// time that is not RFC 3339, one value without the others) is logged once,
// naming the node, and the node treated as having no usage data.
//
// Predicate: a node with usage data whose CPU is over thresholds.cpu percent
// ("the CPU load of the node exceeds the upper limit."), or else whose memory
// is over thresholds.mem ("the memory load of the node exceeds the upper
// limit."), is unschedulable and unresolvable. (The config's enablePredicate:
// false turns this off, as in Volcano.)
//
// Score, for a node with usage data, as Volcano's estimator computes it: the
// load of each of cpu and memory is the measured percentage of the node plus
// the estimated use of "shadow" pods, those placed on it that the metrics do
// not show yet (Allocated, Binding, Bound, or Running for less than the
// metrics interval, 30s, Volcano's default), as a fraction u of the node
// (capped at 1); the score is
//   ((1 - u_cpu) * cpu.weight + (1 - u_mem) * memory.weight)
//     / (cpu.weight + memory.weight) * 100 * usage.weight.
// A shadow pod's estimate is (request * estimator.request_ratio + (limit -
// request) * estimator.burst_ratio) * risk, capped at its limit (its request
// without one); a best-effort pod counts as estimator.be_cpu and
// estimator.be_mem times risk. `risk` is estimator.risk_factor once the node's
// weighted load ((u_cpu * cpu.weight + u_mem * memory.weight) / (cpu.weight +
// memory.weight)) reaches estimator.risk_threshold, else 1. Pods allocated in
// the session count as shadow pods from then on (and stop counting if the
// allocation is undone).
//
// Differences from Volcano, where Scoria has no equivalent: the node's size
// is its allocatable (Volcano: status.capacity); the metrics interval is
// fixed at Volcano's default 30s (Volcano reads the config's metrics.interval,
// which Scoria's plugins do not see); out-of-range arguments are refused when
// the config is loaded (Volcano keeps the default). estimator.be_cpu and
// estimator.be_mem written as plain numbers are millicores and MiB, as
// Volcano reads integers there; with a unit they are quantities ("500m",
// "300Mi").
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;
using scoria::api;
using scoria::log_line;
using scoria::str;
using scoria::view;

constexpr std::string_view kCpuKey = "scoria.io/cpu-usage-avg-10m";
constexpr std::string_view kMemKey = "scoria.io/memory-usage-avg-10m";
constexpr std::string_view kTimeKey = "scoria.io/usage-metrics-time";
constexpr int64_t kMetricsActiveMs = 5 * 60 * 1000;  // Volcano's MetricsActiveTime
constexpr int64_t kMetricsIntervalMs = 30 * 1000;    // Volcano's defaultMetricsInterval
constexpr double kMaxNodeScore = 100;

constexpr scoria_arg_spec kArgs[] = {
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_INT, "usage.weight", "5",
                                         "weight of the plugin's score (0-100 per node before it)"),
                     0),
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_INT, "cpu.weight", "1",
                                         "weight of CPU load in the score and the risk load"),
                     0),
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_INT, "memory.weight", "1",
                                         "weight of memory load in the score and the risk load"),
                     0),
    scoria::with_max(
        scoria::with_min(scoria::declare_arg(SCORIA_ARG_INT, "thresholds.cpu", "80",
                                             "a node whose measured CPU use is over this "
                                             "percentage takes no more pods"),
                         0),
        100),
    scoria::with_max(
        scoria::with_min(scoria::declare_arg(SCORIA_ARG_INT, "thresholds.mem", "80",
                                             "a node whose measured memory use is over this "
                                             "percentage takes no more pods"),
                         0),
        100),
    scoria::with_max(
        scoria::with_min(scoria::declare_arg(SCORIA_ARG_FLOAT, "estimator.request_ratio", "0.7",
                                             "share of a shadow pod's request counted as its use"),
                         0),
        1),
    scoria::with_max(
        scoria::with_min(scoria::declare_arg(SCORIA_ARG_FLOAT, "estimator.burst_ratio", "0",
                                             "share of a shadow pod's limit above its request "
                                             "counted as its use"),
                         0),
        1),
    scoria::with_max(
        scoria::with_min(scoria::declare_arg(SCORIA_ARG_FLOAT, "estimator.risk_threshold", "0.6",
                                             "weighted node load (0-1) from which shadow pods' "
                                             "estimates are multiplied by risk_factor"),
                         0),
        1),
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_FLOAT, "estimator.risk_factor", "1.2",
                                         "multiplier of shadow pods' estimates on a loaded node"),
                     1),
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_QUANTITY, "estimator.be_cpu", "250m",
                                         "CPU a best-effort shadow pod is counted as using (a "
                                         "plain number is millicores)"),
                     0),
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_QUANTITY, "estimator.be_mem", "200Mi",
                                         "memory a best-effort shadow pod is counted as using (a "
                                         "plain number is MiB)"),
                     0),
};

// A Kubernetes quantity ("3", "500m", "8Gi", "1e3") as a plain number, and
// whether it had a unit (a suffix or an exponent).
struct Quantity {
  double value = 0;
  bool has_unit = false;
};

std::optional<Quantity> parse_quantity(std::string_view text) {
  const std::optional<double> value = scoria::parse_quantity(text);
  if (!value) return std::nullopt;
  const bool unit = std::any_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  });
  return Quantity{*value, unit};
}

// A percentage as the adapter writes it: a finite number from 0 to 100.
std::optional<double> parse_percent(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  if (text.empty()) return std::nullopt;
  double v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || ptr != text.data() + text.size() || !std::isfinite(v) || v < 0 ||
      v > 100)
    return std::nullopt;
  return v;
}

struct NodeLoad {
  bool metrics = false;  // usage data present and fresh
  double cpu_pct = 0, mem_pct = 0;
  double cpu_cap = 0, mem_cap = 0;  // allocatable: millicores, bytes
  double cpu_est = 0, mem_est = 0;  // shadow pods: millicores, bytes
};

struct Snapshot {
  size_t node = 0;
  double cpu = 0, mem = 0;
};

struct Instance {
  explicit Instance(const scoria_args* args)
      : usage_weight(scoria::arg_int(args, "usage.weight", 5)),
        cpu_weight(scoria::arg_int(args, "cpu.weight", 1)),
        mem_weight(scoria::arg_int(args, "memory.weight", 1)),
        cpu_threshold(static_cast<double>(scoria::arg_int(args, "thresholds.cpu", 80))),
        mem_threshold(static_cast<double>(scoria::arg_int(args, "thresholds.mem", 80))),
        request_ratio(scoria::arg_float(args, "estimator.request_ratio", 0.7)),
        burst_ratio(scoria::arg_float(args, "estimator.burst_ratio", 0)),
        risk_threshold(scoria::arg_float(args, "estimator.risk_threshold", 0.6)),
        risk_factor(scoria::arg_float(args, "estimator.risk_factor", 1.2)),
        be_cpu(best_effort(args, "estimator.be_cpu", 250, 1000)),
        be_mem(best_effort(args, "estimator.be_mem", 200 * 0x1p20, 1)),
        r_cpu(api().reason_intern(str("the CPU load of the node exceeds the upper limit."))),
        r_mem(api().reason_intern(str("the memory load of the node exceeds the upper limit."))) {}

  // A plain number is Volcano's integer form (millicores, MiB); with a unit it
  // is a quantity, in millicores (scale 1000) or bytes (scale 1).
  static double best_effort(const scoria_args* args, std::string_view key, double def,
                            double scale) {
    const auto text = scoria::arg_string(args, key);
    if (!text) return def;
    const auto q = parse_quantity(*text);
    if (!q || q->value < 0) return def;
    if (!q->has_unit) return scale == 1 ? q->value * 0x1p20 : q->value;
    return q->value * scale;
  }

  int64_t usage_weight, cpu_weight, mem_weight;
  double cpu_threshold, mem_threshold;
  double request_ratio, burst_ratio, risk_threshold, risk_factor;
  double be_cpu, be_mem;  // millicores, bytes
  uint32_t r_cpu, r_mem;

  // Per session.
  const scoria_session* ssn = nullptr;
  int64_t now = 0;
  std::vector<NodeLoad> nodes;                    // by node index
  std::unordered_map<uint32_t, Snapshot> shadow;  // by task index
  // Malformed annotations already logged (node + values), so each once.
  std::set<std::string> reported;
};

double composite(double pct, double est, double cap) {
  if (cap <= 0) return 0;
  return std::clamp((pct / 100.0 * cap + est) / cap, 0.0, 1.0);
}

double weighted_load(const Instance& self, const NodeLoad& n) {
  const int64_t total = self.cpu_weight + self.mem_weight;
  if (total == 0) return 0;
  return (composite(n.cpu_pct, n.cpu_est, n.cpu_cap) * static_cast<double>(self.cpu_weight) +
          composite(n.mem_pct, n.mem_est, n.mem_cap) * static_cast<double>(self.mem_weight)) /
         static_cast<double>(total);
}

double node_score(const Instance& self, const NodeLoad& n) {
  if (self.cpu_weight + self.mem_weight == 0) return 0;
  return (1.0 - weighted_load(self, n)) * kMaxNodeScore * static_cast<double>(self.usage_weight);
}

double applied_risk(const Instance& self, const NodeLoad& n) {
  if (self.risk_factor < 1.0) return 1.0;
  return weighted_load(self, n) >= self.risk_threshold ? self.risk_factor : 1.0;
}

double estimate(double request, double limit, double request_ratio, double burst_ratio,
                double risk) {
  request = std::max(request, 0.0);
  const double effective_limit = (limit <= 0 || limit < request) ? request : limit;
  const double burst = std::max(effective_limit - request, 0.0);
  return std::clamp((request * request_ratio + burst * burst_ratio) * risk, 0.0, effective_limit);
}

// What the task's Pod says that task_info does not: its cpu and memory
// limits (containers, sidecars and init containers as Kubernetes adds them,
// pod-level limits and overhead) and status.startTime.
struct PodFacts {
  double cpu_limit = 0, mem_limit = 0;
  std::optional<int64_t> start_ms;
};

void add_limits(const json& container, double& cpu, double& mem) {
  if (!container.is_object()) return;
  const auto res = container.find("resources");
  if (res == container.end() || !res->is_object()) return;
  const auto lim = res->find("limits");
  if (lim == res->end() || !lim->is_object()) return;
  for (const char* name : {"cpu", "memory"}) {
    const auto v = lim->find(name);
    if (v == lim->end() || !v->is_string()) continue;
    const auto q = parse_quantity(v->get<std::string>());
    if (!q) continue;
    if (name[0] == 'c')
      cpu += q->value * 1000;
    else
      mem += q->value;
  }
}

PodFacts pod_facts(const scoria_task* task) {
  PodFacts f;
  const std::string_view text = view(api().task_object_json(task));
  const json pod = json::parse(text.begin(), text.end(), nullptr, false);
  if (!pod.is_object()) return f;
  const auto spec = pod.find("spec");
  if (spec != pod.end() && spec->is_object()) {
    double cpu = 0, mem = 0;
    if (const auto cs = spec->find("containers"); cs != spec->end() && cs->is_array())
      for (const auto& c : *cs) add_limits(c, cpu, mem);
    if (const auto is = spec->find("initContainers"); is != spec->end() && is->is_array()) {
      double side_cpu = 0, side_mem = 0;
      for (const auto& c : *is) {
        double ic = 0, im = 0;
        add_limits(c, ic, im);
        const auto rp = c.is_object() ? c.find("restartPolicy") : c.end();
        if (c.is_object() && rp != c.end() && rp->is_string() &&
            rp->get<std::string>() == "Always") {
          cpu += ic;
          mem += im;
          side_cpu += ic;
          side_mem += im;
        } else {
          cpu = std::max(cpu, ic + side_cpu);
          mem = std::max(mem, im + side_mem);
        }
      }
    }
    if (const auto pr = spec->find("resources"); pr != spec->end() && pr->is_object()) {
      double pc = 0, pm = 0;
      add_limits(json{{"resources", *pr}}, pc, pm);
      if (pc > 0) cpu = pc;
      if (pm > 0) mem = pm;
    }
    if (const auto oh = spec->find("overhead"); oh != spec->end() && oh->is_object()) {
      double oc = 0, om = 0;
      add_limits(json{{"resources", {{"limits", *oh}}}}, oc, om);
      if (cpu != 0) cpu += oc;
      if (mem != 0) mem += om;
    }
    f.cpu_limit = cpu;
    f.mem_limit = mem;
  }
  const auto status = pod.find("status");
  if (status != pod.end() && status->is_object()) {
    const auto st = status->find("startTime");
    if (st != status->end() && st->is_string())
      f.start_ms = scoria::parse_rfc3339(st->get<std::string>());
  }
  return f;
}

// Counts `task`, placed on node `ni`, as a shadow pod there.
void add_shadow(Instance& self, const scoria_task_info& ti, size_t ni, const PodFacts& facts) {
  NodeLoad& n = self.nodes[ni];
  const double risk = applied_risk(self, n);
  double cpu = 0, mem = 0;
  if (ti.best_effort != 0) {
    cpu = std::max(self.be_cpu, 0.0) * risk;
    mem = std::max(self.be_mem, 0.0) * risk;
  } else {
    const double* req = ti.init_resreq != nullptr ? ti.init_resreq : ti.resreq;
    const double cpu_req = req != nullptr ? req[SCORIA_DIM_CPU] : 0;
    const double mem_req = req != nullptr ? req[SCORIA_DIM_MEMORY] : 0;
    cpu = estimate(cpu_req, facts.cpu_limit, self.request_ratio, self.burst_ratio, risk);
    mem = estimate(mem_req, facts.mem_limit, self.request_ratio, self.burst_ratio, risk);
  }
  if (const auto old = self.shadow.find(ti.index); old != self.shadow.end()) {
    NodeLoad& o = self.nodes[old->second.node];
    o.cpu_est = std::max(o.cpu_est - old->second.cpu, 0.0);
    o.mem_est = std::max(o.mem_est - old->second.mem, 0.0);
  }
  n.cpu_est += cpu;
  n.mem_est += mem;
  self.shadow[ti.index] = Snapshot{ni, cpu, mem};
  log_line(SCORIA_LOG_V4, "shadow pod ", view(ti.uid), " on node ", view(ti.node_name), ": cpu ",
           cpu, "m, memory ", mem, " bytes (risk ", risk, ")");
}

std::optional<size_t> node_index(const Instance& self, scoria_str name) {
  if (name.len == 0) return std::nullopt;
  const scoria_node* node = api().node_find(self.ssn, name);
  if (node == nullptr) return std::nullopt;
  const uint32_t i = scoria::info(node).index;
  if (i >= self.nodes.size()) return std::nullopt;
  return i;
}

// Reads a node's usage annotations; a malformed set is logged once.
void read_node(Instance& self, const scoria_node* node, NodeLoad& n) {
  const scoria_node_info info = scoria::info(node);
  n.cpu_cap = info.allocatable != nullptr ? info.allocatable[SCORIA_DIM_CPU] : 0;
  n.mem_cap = info.allocatable != nullptr ? info.allocatable[SCORIA_DIM_MEMORY] : 0;
  scoria_str cpu{}, mem{}, time{};
  const bool has_cpu = api().node_annotation(node, str(kCpuKey), &cpu) == SCORIA_OK;
  const bool has_mem = api().node_annotation(node, str(kMemKey), &mem) == SCORIA_OK;
  const bool has_time = api().node_annotation(node, str(kTimeKey), &time) == SCORIA_OK;
  if (!has_cpu && !has_mem && !has_time) return;  // no metrics: nothing to say

  std::string problem;
  std::optional<double> cpu_pct, mem_pct;
  std::optional<int64_t> at;
  if (has_cpu && !(cpu_pct = parse_percent(view(cpu))))
    problem = std::string(kCpuKey) + "=\"" + std::string(view(cpu)) +
              "\" is not a percentage from 0 to 100";
  else if (has_mem && !(mem_pct = parse_percent(view(mem))))
    problem = std::string(kMemKey) + "=\"" + std::string(view(mem)) +
              "\" is not a percentage from 0 to 100";
  else if (has_time && !(at = scoria::parse_rfc3339(view(time))))
    problem = std::string(kTimeKey) + "=\"" + std::string(view(time)) +
              "\" is not an RFC 3339 time (e.g. 2026-01-01T12:00:00Z)";
  else if (!has_cpu || !has_mem || !has_time)
    problem = std::string("has ") + (has_cpu ? "" : "no ") + std::string(kCpuKey) + ", " +
              (has_mem ? "" : "no ") + std::string(kMemKey) + " and " + (has_time ? "" : "no ") +
              std::string(kTimeKey) + "; the three come together";
  if (!problem.empty()) {
    const std::string name(view(info.name));
    std::string key = name + "\n" + std::string(view(cpu)) + "\n" + std::string(view(mem)) + "\n" +
                      std::string(view(time)) + "\n" + std::to_string(has_cpu) +
                      std::to_string(has_mem) + std::to_string(has_time);
    if (self.reported.size() > 10000) self.reported.clear();
    if (self.reported.insert(std::move(key)).second)
      log_line(SCORIA_LOG_WARNING, "node ", name, ": usage annotation ", problem,
               "; the node is treated as having no usage data");
    return;
  }
  if (self.now - *at > kMetricsActiveMs) {
    log_line(SCORIA_LOG_V4, "node ", view(info.name), ": usage metrics of ", view(time),
             " are older than 5m; the node is treated as having no usage data");
    return;
  }
  n.metrics = true;
  n.cpu_pct = *cpu_pct;
  n.mem_pct = *mem_pct;
}

scoria_code on_predicate(void* user_data, const scoria_task* /*task*/, const scoria_node* node,
                         uint32_t* reason) {
  const auto& self = *static_cast<const Instance*>(user_data);
  const uint32_t i = scoria::info(node).index;
  if (i >= self.nodes.size() || !self.nodes[i].metrics) return SCORIA_OK;
  const NodeLoad& n = self.nodes[i];
  if (n.cpu_pct > self.cpu_threshold) {
    *reason = self.r_cpu;
    return SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE;
  }
  if (n.mem_pct > self.mem_threshold) {
    *reason = self.r_mem;
    return SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE;
  }
  return SCORIA_OK;
}

scoria_code on_node_order(void* user_data, const scoria_task* /*task*/, const scoria_node* node,
                          double* score) {
  const auto& self = *static_cast<const Instance*>(user_data);
  const uint32_t i = scoria::info(node).index;
  *score = i < self.nodes.size() && self.nodes[i].metrics ? node_score(self, self.nodes[i]) : 0;
  return SCORIA_OK;
}

void on_allocate(void* user_data, const scoria_task* task) {
  auto& self = *static_cast<Instance*>(user_data);
  (void)scoria::guarded([&] {
    const scoria_task_info ti = scoria::info(task);
    const auto ni = node_index(self, ti.node_name);
    // Only a node with usage data has a score the estimate can change.
    if (!ni || !self.nodes[*ni].metrics) return;
    add_shadow(self, ti, *ni, pod_facts(task));
  });
}

void on_deallocate(void* user_data, const scoria_task* task) {
  auto& self = *static_cast<Instance*>(user_data);
  (void)scoria::guarded([&] {
    const auto it = self.shadow.find(scoria::info(task).index);
    if (it == self.shadow.end()) return;
    NodeLoad& n = self.nodes[it->second.node];
    n.cpu_est = std::max(n.cpu_est - it->second.cpu, 0.0);
    n.mem_est = std::max(n.mem_est - it->second.mem, 0.0);
    self.shadow.erase(it);
  });
}

constexpr uint32_t kShadowStatuses =
    SCORIA_TASK_ALLOCATED | SCORIA_TASK_BINDING | SCORIA_TASK_BOUND;

scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  if (hooks == nullptr || hooks->struct_size < sizeof(scoria_hooks)) return SCORIA_INVALID_ARGUMENT;
  auto& self = *static_cast<Instance*>(instance);
  if (!SCORIA_HOST_HAS(&api(), node_annotation)) {
    scoria::report_error("the host is older than ABI 1.3 (no node_annotation)");
    return SCORIA_ERROR;
  }
  return scoria::guarded([&] {
    self.ssn = ssn;
    self.now = scoria::now_ms(ssn);
    self.shadow.clear();
    const size_t count = api().node_count(ssn);
    self.nodes.assign(count, NodeLoad{});
    for (size_t i = 0; i < count; ++i) {
      const scoria_node* node = api().node_at(ssn, i);
      const uint32_t ni = scoria::info(node).index;
      if (ni < count) read_node(self, node, self.nodes[ni]);
    }
    // Pods placed on a node that its metrics do not show yet.
    for (size_t i = 0; i < count; ++i) {
      const scoria_node* node = api().node_at(ssn, i);
      const uint32_t ni = scoria::info(node).index;
      if (ni >= count || !self.nodes[ni].metrics) continue;
      for (size_t t = 0; t < api().node_task_count(node); ++t) {
        const scoria_task* task = api().node_task_at(node, t);
        const scoria_task_info ti = scoria::info(task);
        if ((ti.status & (kShadowStatuses | SCORIA_TASK_RUNNING)) == 0) continue;
        const PodFacts facts = pod_facts(task);
        if (ti.status == SCORIA_TASK_RUNNING && facts.start_ms &&
            self.now - *facts.start_ms >= kMetricsIntervalMs)
          continue;
        add_shadow(self, ti, ni, facts);
      }
    }
    for (size_t i = 0; i < count; ++i) {
      const NodeLoad& n = self.nodes[i];
      if (n.metrics)
        log_line(SCORIA_LOG_V4, "node ", view(scoria::info(api().node_at(ssn, i)).name), ": cpu ",
                 n.cpu_pct, "%, memory ", n.mem_pct, "%, shadow cpu ", n.cpu_est,
                 "m, shadow memory ", n.mem_est, " bytes");
    }
    // Without a node that has fresh metrics every node passes and scores 0:
    // register nothing rather than hooks that run per task and node.
    hooks->user_data = instance;
    if (std::none_of(self.nodes.begin(), self.nodes.end(),
                     [](const NodeLoad& n) { return n.metrics; }))
      return;
    hooks->on_predicate = on_predicate;
    hooks->on_node_order = on_node_order;
    hooks->on_allocate = on_allocate;
    hooks->on_deallocate = on_deallocate;
  });
}

void on_session_close(void* instance, scoria_session* /*ssn*/) {
  auto& self = *static_cast<Instance*>(instance);
  self.nodes.clear();
  self.shadow.clear();
  self.ssn = nullptr;
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "usage",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS,
    .version = "1.0.0",
    .description = "Nodes over a measured load threshold take no pods; the least loaded score best",
    .on_create = scoria::create_instance<Instance>,
    .on_destroy = scoria::destroy_instance<Instance>,
    .on_session_open = on_session_open,
    .on_session_close = on_session_close,
    .on_execute = nullptr,
    .args = kArgs,
    .arg_count = std::size(kArgs),
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
