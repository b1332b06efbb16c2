// A scheduler built from one config: the action and plugin instances it
// names, and the running of one session over a snapshot (Volcano's
// runOnce: open, plugins register, actions run in order, close).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/scheduler_config.h"
#include "log/report_once.h"
#include "plugin/plugin_instance.h"
#include "plugin/plugin_registry.h"
#include "scheduler/hook_tracker.h"
#include "session/session.h"
#include "session/worker_pool.h"

namespace scoria::scheduler {

/// Where one session's time went, in milliseconds.
struct SessionTimings {
  double open_ms = 0;
  /// The session kept the last one's records, written again only where
  /// they changed (session::SessionMemory).
  bool kept_records = false;
  /// Its close wrote again only the PodGroup entries of the jobs that may
  /// have changed (session::ClosedEntries).
  bool kept_entries = false;
  std::vector<std::pair<std::string, double>> actions_ms;
  double close_ms = 0;
  double total_ms = 0;
  /// Per plugin: its name, "OnSessionOpen" or "OnSessionClose", and the
  /// time its callback took (Volcano's plugin_scheduling_latency).
  struct PluginTime {
    std::string plugin;
    const char* event;
    double ms;
  };
  std::vector<PluginTime> plugins_ms;
  /// Each node search and each scoring of a task's candidates, in ms
  /// (Volcano's scheduling_stage_duration{stage="Predicate"|"Scoring"}).
  std::vector<double> predicate_ms, scoring_ms;
};

class Scheduler {
 public:
  /// Resolves every action and plugin of `config` in `registry` and creates
  /// their instances. Throws InputError naming an unknown name and listing
  /// those available, or a plugin that refused its arguments.
  Scheduler(const plugin::PluginRegistry& registry, config::SchedulerConfig config,
            size_t threads = 0);
  ~Scheduler();

  /// Runs one session over `snapshot` and returns its outcome.
  cycle::Outcome run_once(const cycle::Snapshot& snapshot, SessionTimings* timings = nullptr);
  /// The same, written over `out` (Session::close(Outcome&): a caller that
  /// runs session after session hands back the last outcome's storage).
  /// `out` must be fresh or come from sessions over snapshots of the same
  /// writer (cache): an entry whose source ids match a job keeps its key.
  void run_once(const cycle::Snapshot& snapshot, cycle::Outcome& out,
                SessionTimings* timings = nullptr);

  const config::SchedulerConfig& config() const { return config_; }

  /// Tells `tracker` (which must outlive the scheduler's sessions) which
  /// action or plugin callback each session is in; none by default.
  void set_tracker(HookTracker* tracker) { tracker_ = tracker; }

  /// Explains, in each following session, where the task "ns/name" went and
  /// why (Outcome::explanation); std::nullopt stops.
  void set_explain(std::optional<std::string> task) { explain_ = std::move(task); }

  /// Tests: each session that keeps the last one's records checks them
  /// against records written anew (SessionMemory::verify).
  void set_verify_kept_records(bool on) { memory_.verify = on; }

  /// Hook failures counted so far, per action and plugin instance.
  std::vector<std::pair<std::string, uint64_t>> plugin_errors() const;

 private:
  struct TierPlugin {
    size_t tier;
    const config::PluginOption* option;
    std::unique_ptr<plugin::PluginInstance> instance;
  };
  struct Action {
    std::string name;
    std::unique_ptr<plugin::PluginInstance> instance;
  };

  config::SchedulerConfig config_;
  std::vector<Action> actions_;
  std::vector<TierPlugin> plugins_;
  session::WorkerPool workers_;
  session::SessionMemory memory_;  // the sessions' arrays, one session at a time
  // Where each session lives: always at this address, since the records
  // the next one keeps (SessionMemory) point at their session.
  std::optional<session::Session> session_;
  log::ReportOnce topology_problems_;  // HyperNodes' unresolved members
  HookTracker* tracker_ = nullptr;
  std::optional<std::string> explain_;
};

}  // namespace scoria::scheduler
