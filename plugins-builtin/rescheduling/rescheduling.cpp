// The rescheduling plugin (Volcano's rescheduling): chooses running tasks
// for the shuffle action to evict, so that a busy node's pods can be placed
// again on nodes with room. It runs at most once per `interval` (default
// 5m; the first session always runs) and offers Volcano's one strategy,
// lowNodeUtilization:
//
//   - a node is *low* when it is schedulable and every resource is used
//     below `thresholds`, *high* when some resource is used above
//     `targetThresholds` (percent of allocatable; cpu and memory);
//   - with some low nodes, some high nodes and not every node low, the high
//     nodes are drained busiest first (cpu% + memory%), their pods lowest
//     priority first and best-effort before the rest, while the node stays at
//     or above a target threshold and the low nodes still have room below
//     their targets to take what is evicted.
//
// Volcano reads usage from a metrics source; with none here, usage is what
// the pods request, as kube-descheduler's LowNodeUtilization measures it.
//
// Arguments, as Volcano's (see kArgs; nested maps are read through their
// flattened keys): interval ("5m", "30s", "1h"), strategies.<i>.name,
// strategies.<i>.params.thresholds.{cpu,memory} (default 100) and
// strategies.<i>.params.targetThresholds.{cpu,memory} (default 100).
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

using scoria::api;
using scoria::log_line;

constexpr std::string_view kLowNodeUtilization = "lowNodeUtilization";
constexpr std::chrono::seconds kDefaultInterval{300};
// cpu and memory, the two resources Volcano's strategy weighs.
constexpr std::array<size_t, 2> kDims = {SCORIA_DIM_CPU, SCORIA_DIM_MEMORY};
constexpr std::array<std::string_view, 2> kNames = {"cpu", "memory"};

// Every argument Volcano's rescheduling reads, with its defaults, and the two
// selectors its design document shows (which its code does not read).
constexpr scoria_arg_spec kArgs[] = {
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_DURATION, "interval", "5m",
                                         "how often the strategies run (the first session always "
                                         "runs them)"),
                     0),
    scoria::declare_arg(SCORIA_ARG_STRING, "metricsPeriod", "5m",
                        "accepted for Volcano configs (the window of Volcano's node usage "
                        "metrics); Scoria measures use by the pods' requests: no effect"),
    scoria::declare_arg(SCORIA_ARG_LIST, "strategies", nullptr,
                        "the strategies, each {name, params}: lowNodeUtilization with "
                        "params.thresholds and params.targetThresholds (cpu and memory percent, "
                        "default 100); other names are ignored with a warning; "
                        "lowNodeUtilization when left out"),
    scoria::declare_arg(SCORIA_ARG_LIST, "queueSelector", nullptr,
                        "accepted for configs copied from Volcano's rescheduling design; read by "
                        "neither Volcano nor Scoria: no effect"),
    scoria::declare_arg(SCORIA_ARG_MAP, "labelSelector", nullptr,
                        "accepted for configs copied from Volcano's rescheduling design; read by "
                        "neither Volcano nor Scoria: no effect"),
};

struct Rescheduling {
  explicit Rescheduling(const scoria_args* args) {
    if (args == nullptr) return;
    // The host has checked it is a duration of at least 0 and passes the
    // default (5m) when the config leaves it out.
    if (const auto text = scoria::arg_string(args, "interval"))
      interval = scoria::parse_go_duration(*text).value_or(interval);
    // strategies.<i>.name; without any, lowNodeUtilization with defaults.
    bool named = false;
    for (int i = 0;; ++i) {
      const std::string prefix = "strategies." + std::to_string(i) + ".";
      const auto name = scoria::arg_string(args, prefix + "name");
      if (!name) break;
      named = true;
      if (*name != kLowNodeUtilization) {
        log_line(SCORIA_LOG_WARNING, "strategy \"", *name, "\" is not offered; ignored");
        continue;
      }
      low_node_utilization = true;
      for (size_t r = 0; r < kNames.size(); ++r) {
        low[r] =
            scoria::arg_float(args, prefix + "params.thresholds." + std::string(kNames[r]), low[r]);
        target[r] = scoria::arg_float(
            args, prefix + "params.targetThresholds." + std::string(kNames[r]), target[r]);
      }
    }
    if (!named) low_node_utilization = true;
  }

  std::chrono::nanoseconds interval = kDefaultInterval;
  bool low_node_utilization = false;
  std::array<double, 2> low = {100, 100};     // thresholds, percent
  std::array<double, 2> target = {100, 100};  // targetThresholds, percent
  std::optional<int64_t> last_run_ms;         // the session clock when the strategies last ran
  const scoria_session* ssn = nullptr;        // per session
};

struct NodeUse {
  const scoria_node* node = nullptr;
  std::array<double, 2> percent{};
  std::array<double, 2> allocatable{};
};

bool is_low(const Rescheduling& self, const NodeUse& n, const scoria_node_info& ni) {
  if (ni.unschedulable != 0) return false;
  for (size_t r = 0; r < kDims.size(); ++r)
    if (n.percent[r] >= self.low[r]) return false;
  return true;
}

bool is_high(const Rescheduling& self, const NodeUse& n) {
  for (size_t r = 0; r < kDims.size(); ++r)
    if (n.percent[r] > self.target[r]) return true;
  return false;
}

// Lower priority first, then best-effort pods before the others.
bool evict_first(const scoria_task* l, const scoria_task* r) {
  const scoria_task_info li = scoria::info(l);
  const scoria_task_info ri = scoria::info(r);
  if (li.priority != ri.priority) return li.priority < ri.priority;
  return li.best_effort > ri.best_effort;
}

void victims(void* user_data, const scoria_task* const* tasks, size_t count, uint8_t* selected) {
  const auto& self = *static_cast<const Rescheduling*>(user_data);
  const size_t node_count = api().node_count(self.ssn);
  std::vector<NodeUse> low;
  std::vector<NodeUse> high;
  for (size_t i = 0; i < node_count; ++i) {
    NodeUse n;
    n.node = api().node_at(self.ssn, i);
    const scoria_node_info ni = scoria::info(n.node);
    for (size_t r = 0; r < kDims.size(); ++r) {
      n.allocatable[r] = ni.allocatable[kDims[r]];
      n.percent[r] = n.allocatable[r] > 0 ? ni.used[kDims[r]] * 100 / n.allocatable[r] : 0;
    }
    if (is_low(self, n, ni)) {
      low.push_back(n);
    } else if (is_high(self, n)) {
      high.push_back(n);
    }
  }
  if (low.empty() || low.size() == node_count || high.empty()) {
    log_line(SCORIA_LOG_V4, "lowNodeUtilization: ", low.size(), " low and ", high.size(),
             " high nodes of ", node_count, "; nothing to move");
    return;
  }
  // Room the low nodes have below their targets.
  std::array<double, 2> room{};
  for (const NodeUse& n : low)
    for (size_t r = 0; r < kDims.size(); ++r)
      room[r] += (self.target[r] - n.percent[r]) * n.allocatable[r] / 100;

  std::stable_sort(high.begin(), high.end(), [](const NodeUse& a, const NodeUse& b) {
    return a.percent[0] + a.percent[1] > b.percent[0] + b.percent[1];
  });
  // The candidates by node, read once rather than once per high node.
  std::unordered_map<std::string_view, std::vector<size_t>> by_node;
  for (size_t i = 0; i < count; ++i)
    by_node[scoria::view(scoria::info(tasks[i]).node_name)].push_back(i);
  for (NodeUse& n : high) {
    // The candidates on this node, in eviction order.
    const auto found = by_node.find(scoria::view(scoria::info(n.node).name));
    if (found == by_node.end()) continue;
    std::vector<size_t>& here = found->second;
    std::stable_sort(here.begin(), here.end(),
                     [&](size_t a, size_t b) { return evict_first(tasks[a], tasks[b]); });
    for (const size_t i : here) {
      const bool still_high = n.percent[0] >= self.target[0] || n.percent[1] >= self.target[1];
      if (!still_high || room[0] <= 0 || room[1] <= 0) break;
      const scoria_task_info ti = scoria::info(tasks[i]);
      for (size_t r = 0; r < kDims.size(); ++r) {
        const double amount = ti.resreq[kDims[r]];
        room[r] -= amount;
        if (n.allocatable[r] > 0) n.percent[r] -= amount * 100 / n.allocatable[r];
      }
      selected[i] = 1;
      log_line(SCORIA_LOG_V3, "lowNodeUtilization: <", scoria::view(ti.uid), "> leaves node <",
               scoria::view(ti.node_name), ">");
    }
  }
}

scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  return scoria::guarded([&] {
    auto& self = *static_cast<Rescheduling*>(instance);
    // The session's clock, so that a simulated run spaces the strategies
    // as a live one would.
    const int64_t now = scoria::now_ms(ssn);
    if (self.last_run_ms && std::chrono::milliseconds(now - *self.last_run_ms) < self.interval) {
      log_line(SCORIA_LOG_V3, "not yet time to run the rescheduling strategies");
      return;
    }
    if (!self.low_node_utilization) return;
    self.last_run_ms = now;
    self.ssn = ssn;
    hooks->user_data = &self;
    hooks->on_victim_tasks = victims;
  });
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "rescheduling",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS,
    .version = "1.0.0",
    .description = "Victims for shuffle: lowNodeUtilization moves pods off busy nodes",
    .on_create = scoria::create_instance<Rescheduling>,
    .on_destroy = scoria::destroy_instance<Rescheduling>,
    .on_session_open = on_session_open,
    .on_session_close = nullptr,
    .on_execute = nullptr,
    .args = kArgs,
    .arg_count = std::size(kArgs),
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
