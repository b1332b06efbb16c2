// The tdm plugin (Volcano's time-division multiplexing): nodes labelled
// volcano.sh/revocable-zone=ZONE are lent to preemptable work during ZONE's
// daily window (argument tdm.revocable-zone.ZONE: "10:00-21:00", the
// scheduler's local time).
//   - Predicate: outside its window a revocable node takes nothing; inside
//     it, only tasks that may use revocable nodes (annotation
//     volcano.sh/revocable-zone "*", or volcano.sh/preemptable "true").
//   - Node order: such tasks prefer an open revocable node (100).
//   - Preemptable: a non-preemptable task may evict preemptable running
//     tasks on ordinary nodes, within each victim job's disruption budget
//     (PodGroup annotations volcano.sh/jdb-min-available or
//     volcano.sh/jdb-max-unavailable; one task per job without one).
//   - Victim tasks (the shuffle action): when a window has closed, the
//     preemptable tasks on its nodes are evicted, job by job within their
//     budgets, at most once per tdm.evict.period.
//   - Jobs: non-preemptable jobs go first; a non-preemptable job with
//     pending tasks is starving; a job is pipelined when its waiting and
//     ready tasks reach minAvailable.
// Time is the session's clock, so a simulated run sees windows open and
// close as a live one would.
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <iterator>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "revocable_zone.h"

namespace {

using scoria::api;
using scoria::log_line;
using scoria::str;
using scoria::view;
using scoria_tdm::Window;

constexpr std::string_view kZonePrefix = "tdm.revocable-zone.";
constexpr std::string_view kEvictPeriod = "tdm.evict.period";
constexpr std::string_view kZoneKey = "volcano.sh/revocable-zone";
constexpr std::string_view kPreemptableKey = "volcano.sh/preemptable";
constexpr std::string_view kJdbMinAvailable = "volcano.sh/jdb-min-available";
constexpr std::string_view kJdbMaxUnavailable = "volcano.sh/jdb-max-unavailable";
constexpr std::string_view kNotAllowed = "not allow to dispatch to revocable node";

struct Instance {
  explicit Instance(const scoria_args* args) {
    const size_t n = api().args_count(args);
    for (size_t i = 0; i < n; ++i) {
      const std::string key(view(api().args_key_at(args, i)));
      if (!key.starts_with(kZonePrefix)) continue;
      const std::string text = scoria::arg_string(args, key).value_or("");
      const std::optional<Window> w = scoria_tdm::parse_window(text);
      if (!w)
        throw std::invalid_argument(key + ": \"" + text +
                                    "\" is not a time window; write HH:MM-HH:MM, e.g. 10:00-21:00");
      zones.emplace(key.substr(kZonePrefix.size()), Window{*w});
      texts.emplace(key.substr(kZonePrefix.size()), text);
    }
    if (const auto d = scoria::arg_duration(args, kEvictPeriod))
      evict_period_ms = std::chrono::duration_cast<std::chrono::milliseconds>(*d).count();
  }

  std::map<std::string, Window, std::less<>> zones;
  std::map<std::string, std::string, std::less<>> texts;  // as configured, for messages
  int64_t evict_period_ms = 60'000;
  std::optional<int64_t> last_evict_ms;  // Volcano's lastEvictAt

  // Per session.
  int64_t now = 0;
  scoria_session* ssn = nullptr;
  // By node index: its zone (empty for an ordinary node), and the reason it
  // refuses every task now (0 when its window is open or it has no zone).
  std::vector<std::string_view> node_zone;
  std::vector<uint32_t> node_closed;
  uint32_t not_allowed = 0;
};

std::string_view node_zone(const Instance& self, const scoria_node* node) {
  const uint32_t i = scoria::info(node).index;
  return i < self.node_zone.size() ? self.node_zone[i] : std::string_view();
}

// Whether the task may use revocable nodes (Volcano's GetPodRevocableZone
// is "*"): its revocable-zone annotation is "*", or, without one, its
// preemptable annotation is true.
bool task_may_revoke(const scoria_task* task) {
  scoria_str v{};
  if (api().task_annotation(task, str(kZoneKey), &v) == SCORIA_OK) return view(v) == "*";
  if (api().task_annotation(task, str(kPreemptableKey), &v) != SCORIA_OK) return false;
  const std::string_view b = view(v);
  return b == "1" || b == "t" || b == "T" || b == "true" || b == "TRUE" || b == "True";
}

bool zone_open(const Instance& self, std::string_view zone) {
  const auto it = self.zones.find(zone);
  return it != self.zones.end() && scoria_tdm::open_at(it->second, self.now);
}

scoria_code on_predicate(void* user_data, const scoria_task* task, const scoria_node* node,
                         uint32_t* reason) {
  const auto& self = *static_cast<const Instance*>(user_data);
  const uint32_t i = scoria::info(node).index;
  if (i >= self.node_zone.size() || self.node_zone[i].empty()) return SCORIA_OK;
  if (self.node_closed[i] != 0) {
    *reason = self.node_closed[i];
    return SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE;
  }
  if (!task_may_revoke(task)) {
    *reason = self.not_allowed;
    return SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE;
  }
  return SCORIA_OK;
}

scoria_code on_node_order(void* user_data, const scoria_task* task, const scoria_node* node,
                          double* score) {
  const auto& self = *static_cast<const Instance*>(user_data);
  const uint32_t i = scoria::info(node).index;
  *score = 0;
  if (i >= self.node_zone.size() || self.node_zone[i].empty() || self.node_closed[i] != 0)
    return SCORIA_OK;
  if (task_may_revoke(task)) *score = 100;
  return SCORIA_OK;
}

// intstr as Volcano's tdm reads a budget: a whole number, or a percentage
// of `total` rounded up; anything else counts as 0.
int int_or_percent(std::string_view text, int total) {
  if (text.empty()) return 0;
  const bool percent = text.back() == '%';
  const std::string_view digits = percent ? text.substr(0, text.size() - 1) : text;
  const bool negative = !digits.empty() && digits.front() == '-';
  const std::string_view magnitude = negative ? digits.substr(1) : digits;
  if (magnitude.empty() || magnitude.size() > 9 ||
      !std::all_of(magnitude.begin(), magnitude.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return 0;
  int v = 0;
  for (const char c : magnitude) v = v * 10 + (c - '0');
  if (negative) v = -v;
  if (!percent) return v;
  return static_cast<int>(std::ceil(static_cast<double>(v) * total / 100.0));
}

// How many of the job's tasks may be evicted now (Volcano's
// getMaxPodEvictNum).
int max_evictions(const scoria_job* job) {
  const scoria_job_info ji = scoria::info(job);
  const int running = scoria::count_status(ji, SCORIA_TASK_RUNNING);
  scoria_str v{};
  if (api().job_annotation(job, str(kJdbMinAvailable), &v) == SCORIA_OK) {
    const int min_available = int_or_percent(view(v), ji.task_count);
    if (running >= min_available) return running - min_available;
  } else if (api().job_annotation(job, str(kJdbMaxUnavailable), &v) == SCORIA_OK) {
    const int max_unavailable = int_or_percent(view(v), ji.task_count);
    const int finished = scoria::count_status(ji, SCORIA_TASK_SUCCEEDED | SCORIA_TASK_FAILED);
    const int unavailable = ji.task_count - finished - running;
    return unavailable >= max_unavailable ? 0 : max_unavailable - unavailable;
  }
  return 1;
}

// The first tasks of each job, as many as its budget lets go.
std::vector<const scoria_task*> within_budgets(
    const std::vector<std::pair<const scoria_job*, std::vector<const scoria_task*>>>& by_job) {
  std::vector<const scoria_task*> out;
  for (const auto& [job, tasks] : by_job) {
    const size_t n = std::min(tasks.size(), static_cast<size_t>(std::max(0, max_evictions(job))));
    out.insert(out.end(), tasks.begin(), tasks.begin() + static_cast<std::ptrdiff_t>(n));
  }
  return out;
}

void add_by_job(std::vector<std::pair<const scoria_job*, std::vector<const scoria_task*>>>& by_job,
                const scoria_task* task, const scoria_job* job) {
  for (auto& [j, tasks] : by_job)
    if (j == job) {
      tasks.push_back(task);
      return;
    }
  by_job.push_back({job, {task}});
}

// A preemptor that is not itself preemptable, and may not use revocable
// nodes, evicts preemptable running tasks on ordinary nodes.
scoria_vote on_preemptable(void* user_data, const scoria_task* preemptor,
                           const scoria_task* const* candidates, size_t count, uint8_t* selected) {
  const auto& self = *static_cast<const Instance*>(user_data);
  try {
    const scoria_task_info pi = scoria::info(preemptor);
    if (pi.preemptable != 0 || task_may_revoke(preemptor)) return SCORIA_VOTE_REJECT;
    std::vector<std::pair<const scoria_job*, std::vector<const scoria_task*>>> by_job;
    for (size_t i = 0; i < count; ++i) {
      const scoria_task_info ci = scoria::info(candidates[i]);
      if (ci.preemptable == 0 || ci.status != SCORIA_TASK_RUNNING || ci.job == nullptr) continue;
      const scoria_node* node = api().node_find(self.ssn, ci.node_name);
      if (node == nullptr || !node_zone(self, node).empty()) continue;
      add_by_job(by_job, candidates[i], ci.job);
    }
    for (const scoria_task* t : within_budgets(by_job))
      for (size_t i = 0; i < count; ++i)
        if (candidates[i] == t) selected[i] = 1;
  } catch (const std::exception& e) {
    // Fail closed: name no victim rather than half a decision.
    std::fill(selected, selected + count, uint8_t{0});
    scoria::report_error(e.what());
  }
  return SCORIA_VOTE_PERMIT;
}

// Shuffle's victims: the preemptable running tasks on the nodes of every
// configured zone whose window has closed, at most once per evict period.
void on_victim_tasks(void* user_data, const scoria_task* const* tasks, size_t count,
                     uint8_t* selected) {
  auto& self = *static_cast<Instance*>(user_data);
  if (self.last_evict_ms && *self.last_evict_ms + self.evict_period_ms > self.now) {
    log_line(SCORIA_LOG_V4, "tdm: next eviction after ",
             *self.last_evict_ms + self.evict_period_ms);
    return;
  }
  scoria::guarded([&] {
    std::vector<const scoria_task*> victims;
    for (const auto& [zone, window] : self.zones) {
      if (scoria_tdm::open_at(window, self.now)) continue;
      std::vector<std::pair<const scoria_job*, std::vector<const scoria_task*>>> by_job;
      const size_t nodes = api().node_count(self.ssn);
      for (size_t n = 0; n < nodes; ++n) {
        const scoria_node* node = api().node_at(self.ssn, n);
        if (node_zone(self, node) != zone) continue;
        const size_t on_node = api().node_task_count(node);
        for (size_t k = 0; k < on_node; ++k) {
          const scoria_task* t = api().node_task_at(node, k);
          const scoria_task_info ti = scoria::info(t);
          if (ti.preemptable != 0 && ti.status == SCORIA_TASK_RUNNING && ti.job != nullptr)
            add_by_job(by_job, t, ti.job);
        }
      }
      const auto chosen = within_budgets(by_job);
      victims.insert(victims.end(), chosen.begin(), chosen.end());
    }
    self.last_evict_ms = self.now;
    for (const scoria_task* v : victims) {
      log_line(SCORIA_LOG_V3, "tdm: <", view(scoria::info(v).uid),
               "> leaves a revocable node whose window has closed");
      for (size_t i = 0; i < count; ++i)
        if (tasks[i] == v) selected[i] = 1;
    }
  });
}

int on_job_order(void* /*user_data*/, const scoria_job* l, const scoria_job* r) {
  const bool lp = scoria::info(l).preemptable != 0, rp = scoria::info(r).preemptable != 0;
  if (lp == rp) return 0;
  return lp ? 1 : -1;
}

scoria_vote on_job_pipelined(void* /*user_data*/, const scoria_job* job) {
  const scoria_job_info ji = scoria::info(job);
  int32_t best_effort_pending = 0;
  const size_t n = api().job_task_count(job);
  for (size_t i = 0; i < n; ++i) {
    const scoria_task_info ti = scoria::info(api().job_task_at(job, i));
    if (ti.status == SCORIA_TASK_PENDING && ti.best_effort != 0) ++best_effort_pending;
  }
  const int32_t occupied = scoria::count_status(ji, SCORIA_TASK_PIPELINED) +
                           scoria::count_status(ji, scoria::kReadyStatuses) + best_effort_pending;
  return occupied >= ji.min_available ? SCORIA_VOTE_PERMIT : SCORIA_VOTE_REJECT;
}

int on_job_starving(void* /*user_data*/, const scoria_job* job) {
  const scoria_job_info ji = scoria::info(job);
  if (ji.preemptable != 0) return 0;
  return scoria::count_status(ji, SCORIA_TASK_PENDING) > 0 ? 1 : 0;
}

scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  if (hooks == nullptr || hooks->struct_size < sizeof(scoria_hooks)) return SCORIA_INVALID_ARGUMENT;
  auto& self = *static_cast<Instance*>(instance);
  return scoria::guarded([&] {
    self.ssn = ssn;
    self.now = scoria::now_ms(ssn);
    self.not_allowed = api().reason_intern(str(kNotAllowed));
    const size_t nodes = api().node_count(ssn);
    self.node_zone.assign(nodes, {});
    self.node_closed.assign(nodes, 0);
    bool revocable_nodes = false;
    for (size_t n = 0; n < nodes; ++n) {
      const scoria_node* node = api().node_at(ssn, n);
      scoria_str zone{};
      if (api().node_label(node, str(kZoneKey), &zone) != SCORIA_OK || zone.len == 0) continue;
      const uint32_t i = scoria::info(node).index;
      if (i >= nodes) continue;
      self.node_zone[i] = view(zone);
      revocable_nodes = true;
      const auto text = self.texts.find(view(zone));
      if (text == self.texts.end()) {
        self.node_closed[i] =
            api().reason_intern(str("revocable zone " + std::string(view(zone)) + " not support"));
      } else if (!zone_open(self, view(zone))) {
        self.node_closed[i] = api().reason_intern(
            str("current time beyond revocable zone " + text->first + ":" + text->second));
      }
    }
    hooks->user_data = instance;
    // Without revocable nodes both pass every node and score nothing: left
    // out, they cost the predicate and scoring loops nothing.
    if (revocable_nodes) {
      hooks->on_predicate = on_predicate;
      hooks->on_node_order = on_node_order;
    }
    hooks->on_preemptable = on_preemptable;
    hooks->on_victim_tasks = on_victim_tasks;
    hooks->on_job_order = on_job_order;
    hooks->on_job_pipelined = on_job_pipelined;
    hooks->on_job_starving = on_job_starving;
  });
}

constexpr scoria_arg_spec kArgs[] = {
    scoria::declare_arg(SCORIA_ARG_STRING, "tdm.revocable-zone.*", nullptr,
                        "the daily window of revocable zone *, HH:MM-HH:MM in the scheduler's "
                        "local time (e.g. 10:00-21:00); nodes labelled volcano.sh/revocable-zone=* "
                        "take preemptable work only then"),
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_DURATION, "tdm.evict.period", "1m",
                                         "how often preemptable tasks are evicted from zones whose "
                                         "window has closed (by the shuffle action)"),
                     0),
};

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "tdm",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS,
    .version = "1.0.0",
    .description = "Lends revocable-zone nodes to preemptable work during their daily windows",
    .on_create = scoria::create_instance<Instance>,
    .on_destroy = scoria::destroy_instance<Instance>,
    .on_session_open = on_session_open,
    .on_session_close = nullptr,
    .on_execute = nullptr,
    .args = kArgs,
    .arg_count = std::size(kArgs),
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
