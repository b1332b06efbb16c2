// The parts of a running `scoria serve`, each with one owner, and what the
// event loop does with them: a session's turn (refresh on the loop, run on
// the session thread, record on the loop), stopping, dumps and signals.
// When sessions start is the cadence's, the record the recorder's, the
// hung-session watch the watchdog's, reloads the reloads'. Internal to
// host/serve (service.cpp, service_state.cpp and api_routes.cpp).
#pragma once

#include "serve/service.h"

#include <boost/asio/signal_set.hpp>

#include <csignal>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "cache/cluster_cache.h"
#include "config/scheduler_config.h"
#include "log/throttle.h"
#include "metrics/scheduler_metrics.h"
#include "plugin/plugin_registry.h"
#include "scheduler/scheduler.h"
#include "serve/config_reloads.h"
#include "serve/config_watch.h"
#include "serve/explain_waits.h"
#include "serve/group_commit.h"
#include "serve/kube_api.h"
#include "serve/loaded_config.h"
#include "serve/local_cluster.h"
#include "serve/outcome_recorder.h"
#include "serve/session_cadence.h"
#include "serve/session_runner.h"
#include "serve/session_watchdog.h"
#include "serve/shared_cache.h"
#include "serve/state_dir_lock.h"
#include "serve/watch_hub.h"
#include "store/object_store.h"

namespace scoria::serve {

namespace asio = boost::asio;

struct Service::State {
  State(asio::io_context& loop, ServeOptions o);

  ServeOptions options;
  // Taken before the store is opened; released when the process ends.
  StateDirLock lock;
  asio::io_context& io;  // the service's, which outlives this
  store::ObjectStore store;
  WatchHub watchers;
  LocalCluster cluster;
  // The kubernetes source, when the service schedules a Kubernetes cluster
  // instead of the local store's.
  std::unique_ptr<kube::KubeCluster> kube_source;
  SharedCache cache;
  std::unique_ptr<plugin::PluginRegistry> registry;
  // Shared with the session under way, which a reload must not free.
  std::shared_ptr<scheduler::Scheduler> scheduler;
  metrics::SchedulerMetrics metrics;
  std::unique_ptr<http::Server> server;
  asio::signal_set signals;
  ConfigWatch config_watch;
  SessionWatchdog watchdog;
  GroupCommit commits;
  KubeApi kube;
  ExplainWaits explain_waits;
  SessionCadence cadence;
  OutcomeRecorder recorder;
  // Not ready while set: the store's cluster cannot be loaded, or the last
  // session failed (a store write, say, with the disk full).
  std::optional<std::string> sync_error = std::string("no session has run yet");
  log::Throttle session_failures;
  // A session is under way: from its refresh to the end of its record.
  bool in_flight = false;
  bool abandoned = false;  // stopping with a hung session: exit without it
  bool notified_ready = false;
  bool stopping = false;
  bool dump_waits = false;  // SIGUSR2 came while a session held the cache
  // Destroyed before the options and loop it uses.
  ConfigReloads reloads;
  // Declared last, so destroyed first: its thread stops before anything it
  // uses goes away.
  SessionRunner runner;

  cache::ClusterSource& source() {
    if (kube_source) return *kube_source;
    return cluster;
  }
  const cache::ClusterSource& source() const {
    if (kube_source) return *kube_source;
    return cluster;
  }

  int64_t period_ms() const {
    return options.period_ms.value_or(scheduler ? scheduler->config().schedule_period_ms : 1000);
  }

  // Schedules with `loaded` from now on; the session under way, if any,
  // keeps the scheduler it started with. A plugin whose build changed is
  // logged, old and new.
  void adopt(LoadedConfig loaded);
  void reload_config(std::string_view why) { reloads.request(std::string(why)); }
  void session_failed(const std::string& what);

  // Loads what changed into the cache on the loop, then runs the session on
  // the session thread; finish() takes the outcome back on the loop, and
  // the recorder writes it.
  void tick();
  struct Run;
  void finish(std::shared_ptr<scheduler::Scheduler> sched, Run& run);
  void end_session(OutcomeRecorder::Clock::duration loop_busy);
  // Housekeeping between sessions, then the cadence's timer for the next
  // one (`after` the start of the last; a period by default).
  void schedule_next(std::optional<std::chrono::milliseconds> after = std::nullopt);
  // The Kubernetes source's leadership and writes, as metrics.
  void report_source();
  // Stopping while a session hangs: the thread cannot be stopped, so the
  // process ends without it (Service::run exits at once).
  void abandon();
  // The cache as the store holds it, written whole: only while no session
  // holds the cache, so a dump asked for meanwhile waits for its end.
  void dump();
  void stop();
  void wait_signal();
};

}  // namespace scoria::serve
