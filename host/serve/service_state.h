// The state of a running `scoria serve` and what the event loop does with
// it: sessions, config reloads, dumps, the config watch and the signals.
// Internal to host/serve (service.cpp and api_routes.cpp).
#pragma once

#include "serve/service.h"

#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <boost/asio/post.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <utility>

#include "cache/cluster_cache.h"
#include "config/config_changes.h"
#include "config/scheduler_config.h"
#include "log/log.h"
#include "log/throttle.h"
#include "metrics/scheduler_metrics.h"
#include "model/error.h"
#include "plugin/plugin_registry.h"
#include "scheduler/scheduler.h"
#include "serve/cache_dump.h"
#include "serve/config_reloads.h"
#include "serve/config_watch.h"
#include "serve/explain_waits.h"
#include "serve/group_commit.h"
#include "serve/kube_api.h"
#include "serve/loaded_config.h"
#include "serve/local_cluster.h"
#include "serve/session_runner.h"
#include "serve/session_watchdog.h"
#include "serve/shared_cache.h"
#include "serve/state_dir_lock.h"
#include "serve/watch_hub.h"
#include "store/object_store.h"

namespace scoria::serve {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

namespace state_detail {

inline constexpr std::string_view kWho = "serve";
// Log entries kept for watchers to resume from; older resumes must relist.
inline constexpr size_t kEventsKept = 200000;

// Binds a session's record writes per turn of the loop (one transaction
// each): a few milliseconds of the loop at a time.
inline constexpr size_t kRecordPiece = 256;

// How long a write waits for others before it starts a session early.
inline constexpr std::chrono::milliseconds kWakeDelay{10};

// A session failing every period is logged once per this, with a count.
inline constexpr std::chrono::seconds kFailureLogInterval{10};

inline void info(const std::string& message) { log::write(log::kInfo, kWho, message); }
inline void warn(const std::string& message) { log::write(log::kWarning, kWho, message); }

}  // namespace state_detail

struct Service::State {
  State(asio::io_context& loop, ServeOptions o)
      : options(std::move(o)),
        lock(options.state_dir),
        io(loop),
        store(options.state_dir / "store.db"),
        watchers(store, options.watch_memory),
        cluster(store, &watchers),
        timer(io),
        signals(io, SIGTERM, SIGINT, SIGHUP),
        config_watch(io),
        watchdog(io,
                 [this] {
                   return SessionWatchdog::Limits{std::chrono::milliseconds(period_ms()),
                                                  options.watchdog_periods};
                 }),
        commits(io, store, watchers),
        kube(store, watchers, cluster.written(), options.field_validation, options.token),
        session_failures(state_detail::kFailureLogInterval) {
    signals.add(SIGUSR2);
    commits.on_commit([this] { wake(); });
    kube.set_queue_admission_gates(options.queue_admission_gates);
    cluster.set_queue_admission_gates(options.queue_admission_gates);
  }

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
  asio::steady_timer timer;
  asio::signal_set signals;
  ConfigWatch config_watch;
  SessionWatchdog watchdog;
  GroupCommit commits;
  KubeApi kube;
  cycle::Outcome last;
  ExplainWaits explain_waits;
  // Not ready while set: the store's cluster cannot be loaded, or the last
  // session failed (a store write, say, with the disk full).
  std::optional<std::string> sync_error = std::string("no session has run yet");
  log::Throttle session_failures;
  Clock::time_point session_start;
  // What the loop spent before the session under way (for the -v 3 line).
  double refresh_ms = 0;
  double snapshot_ms = 0;
  // The timer is set for the next session (none is under way or starting).
  bool armed = false;
  // A write was committed since the last refresh (see wake()).
  bool woken = false;
  Clock::time_point last_finish{};
  // The loop's time on the last session: tick() up to its start, and
  // finish(); tick_busy is the first part for the session under way.
  Clock::duration last_loop_busy{};
  Clock::duration tick_busy{};
  bool in_flight = false;
  bool abandoned = false;  // stopping with a hung session: exit without it
  bool notified_ready = false;
  bool stopping = false;
  bool dump_waits = false;  // SIGUSR2 came while a session held the cache
  // Destroyed before the options and loop it uses.
  ConfigReloads reloads{
      io, [this] { return load_config_and_plugins(options); },
      [this](LoadedConfig loaded, const std::string& why) {
        const config::SchedulerConfig before =
            scheduler ? scheduler->config() : config::SchedulerConfig();
        adopt(std::move(loaded));
        metrics.count_config_reload(true);
        state_detail::info("config " + options.config.string() + " reloaded (" + why +
                           "): " + config::describe_changes(before, scheduler->config()));
      },
      [this](const std::string& error) {
        metrics.count_config_reload(false);
        state_detail::warn("config rejected, scheduling goes on with the last good one: " + error);
      }};
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
  void adopt(LoadedConfig loaded) {
    if (registry) log_plugin_upgrades(*registry, *loaded.registry);
    loaded.scheduler->set_tracker(&watchdog.tracker());
    scheduler = std::move(loaded.scheduler);
    registry = std::move(loaded.registry);
  }

  void load_config() { adopt(load_config_and_plugins(options)); }

  void reload_config(std::string_view why) { reloads.request(std::string(why)); }

  void session_failed(const std::string& what) {
    sync_error = "the last session failed: " + what;
    if (const auto n = session_failures.admit())
      state_detail::warn(
          "session failed" +
          (*n > 1 ? " (" + std::to_string(*n) + " times since the last line)" : std::string()) +
          ": " + what);
  }

  // Loads what changed into the cache on the loop, then runs the session on
  // the session thread; finish() takes the outcome back on the loop.
  void tick() {
    if (stopping) return;
    armed = false;
    session_start = Clock::now();
    report_source();
    try {
      // The cache takes only what is committed.
      commits.flush();
      const Clock::time_point refresh_start = Clock::now();
      cache.change().set_sharding(scheduler->config().sharding);
      auto error = source().refresh(cache.change());
      woken = false;  // this session sees every write committed so far
      refresh_ms = ms_since(refresh_start);
      if (error) {
        if (sync_error != error) state_detail::warn("the cluster cannot be scheduled: " + *error);
        sync_error = error;
        explain_waits.fail(*error);
        // Not a period's wait: the first session starts as soon as it can.
        schedule_next(std::chrono::milliseconds(std::min<int64_t>(period_ms(), 50)));
        return;
      }
    } catch (const std::exception& e) {
      session_failed(e.what());
      explain_waits.fail(e.what());
      schedule_next();
      return;
    }
    // A standby keeps its cache current, so that it can take over at once,
    // but runs no session.
    if (!source().may_schedule()) {
      sync_error.reset();
      explain_waits.fail("this replica is a standby; ask the leader");
      schedule_next();
      return;
    }
    struct Run {
      std::optional<SharedCache::Loan> cache;  // returned on the loop
      cycle::Outcome outcome;
      scheduler::SessionTimings timings;
      std::optional<std::string> error;
      double snapshot_ms = 0;
    };
    auto run = std::make_shared<Run>();
    // Set on the loop, while no session runs: the session thread reads it.
    scheduler->set_explain(explain_waits.next());
    in_flight = true;
    tick_busy = Clock::now() - session_start;
    // The snapshot is taken on the session thread, off the loop, through
    // the loan: until it is returned the loop cannot change the cache.
    run->cache.emplace(cache.lend());
    runner.run([this, sched = scheduler, run]() mutable {
      try {
        const Clock::time_point snapshot_start = Clock::now();
        // The cache keeps it from session to session and writes again only
        // the jobs that changed since the last one.
        const cycle::Snapshot& snapshot =
            run->cache->refresh_snapshot(std::chrono::duration_cast<std::chrono::milliseconds>(
                                             std::chrono::system_clock::now().time_since_epoch())
                                             .count(),
                                         sched->config().equivalence_cache);
        run->snapshot_ms = ms_since(snapshot_start);
        run->outcome = sched->run_once(snapshot, &run->timings);
        metrics.observe_decisions(run->outcome);
        source().prepare(run->outcome, run->cache->read());
      } catch (const std::exception& e) {
        run->error = e.what();
      }
      asio::post(io, [this, sched = std::move(sched), run]() mutable {
        run->cache.reset();
        snapshot_ms = run->snapshot_ms;
        finish(std::move(sched), std::move(run->outcome), run->timings, run->error);
      });
    });
    watchdog.watch(session_start, [this] {
      if (stopping) abandon();
    });
  }

  // What a session's record carries from one piece to the next.
  struct Recording {
    std::shared_ptr<scheduler::Scheduler> sched;  // for its plugins' error counts
    scheduler::SessionTimings timings;
    size_t next = 0;  // the first bind not yet recorded
    size_t pieces = 0;
    double record_ms = 0;
    Clock::duration loop_busy{};  // the loop's time on this session so far
  };

  void finish(std::shared_ptr<scheduler::Scheduler> sched, cycle::Outcome outcome,
              const scheduler::SessionTimings& timings, const std::optional<std::string>& error) {
    const Clock::time_point finish_start = Clock::now();
    watchdog.finished();
    auto rec = std::make_shared<Recording>();
    rec->sched = std::move(sched);
    rec->timings = timings;
    rec->loop_busy = tick_busy + (Clock::now() - finish_start);
    if (error) {
      session_failed(*error);
      explain_waits.fail("the session failed: " + *error);
      end_session(*rec);
      return;
    }
    if (outcome.explanation) explain_waits.answer(*outcome.explanation);
    outcome.explanation.reset();
    last = std::move(outcome);
    record_piece(rec);
  }

  // A session's decisions are written a piece at a time, each piece one
  // transaction on a turn of the loop of its own: requests are answered
  // between pieces, so a session that bound thousands of pods does not hold
  // the API for the whole of its record. The session counts as under way
  // (in_flight) until the last piece is written.
  void record_piece(const std::shared_ptr<Recording>& rec) {
    const Clock::time_point start = Clock::now();
    bool done = true;
    try {
      // The session's writes are committed on their own, before the cache
      // takes them: a group's failure must not leave the cache ahead.
      commits.flush();
      const size_t to = std::min(last.binds.size(), rec->next + state_detail::kRecordPiece);
      done = to == last.binds.size();
      // Most sessions are one piece: the outcome as it is, not a copy.
      const bool whole = rec->next == 0 && done;
      const cycle::Outcome piece = whole ? cycle::Outcome() : piece_of(last, rec->next, to);
      for (const double ms : source().record(whole ? last : piece, cache.change()))
        metrics.observe_task_bound(ms);
      rec->next = to;
      ++rec->pieces;
      watchers.pump();
      if (done) {
        metrics.observe_session(rec->timings);
        for (const auto& [plugin, errors] : rec->sched->plugin_errors())
          metrics.set_plugin_errors(plugin, static_cast<double>(errors));
        const size_t decided = last.binds.size() + last.evictions.size();
        if (decided > 0) metrics.count_store_writes("session", static_cast<double>(decided));
        store.compact_events(state_detail::kEventsKept);
        sync_error.reset();
      }
    } catch (const std::exception& e) {
      session_failed(e.what());
      done = true;
    }
    const Clock::duration spent = Clock::now() - start;
    rec->loop_busy += spent;
    rec->record_ms += std::chrono::duration<double, std::milli>(spent).count();
    if (!done) {
      asio::post(io, [this, rec] { record_piece(rec); });
      return;
    }
    log_session(rec->timings, rec->record_ms, rec->pieces);
    end_session(*rec);
  }

  /// Binds [from, to) of `outcome`; the last piece carries the rest of it.
  static cycle::Outcome piece_of(const cycle::Outcome& outcome, size_t from, size_t to) {
    cycle::Outcome piece;
    piece.dims = outcome.dims;
    piece.binds.assign(outcome.binds.begin() + static_cast<std::ptrdiff_t>(from),
                       outcome.binds.begin() + static_cast<std::ptrdiff_t>(to));
    if (to == outcome.binds.size()) {
      piece.pipelined = outcome.pipelined;
      piece.evictions = outcome.evictions;
      piece.pod_groups = outcome.pod_groups;
      piece.queues = outcome.queues;
      piece.unschedulable_tasks = outcome.unschedulable_tasks;
    }
    return piece;
  }

  void end_session(const Recording& rec) {
    in_flight = false;
    if (stopping) {
      io.stop();
      return;
    }
    if (std::exchange(dump_waits, false)) dump();
    last_finish = Clock::now();
    last_loop_busy = rec.loop_busy;
    schedule_next();
  }

  // A committed write (a pod created, a node added...) may make work: the
  // next session starts soon instead of a whole period after the last one,
  // as kube-scheduler takes a pod as it arrives. It waits a moment, so that
  // a burst of writes lands in one session, and at least as long as the
  // last session held the loop (its refresh and its record; the session
  // itself runs on its own thread), so that sessions never take more than
  // half of the loop's time from the API however fast writes come; never
  // later than the period.
  void wake() {
    if (!options.schedule_on_change || stopping) return;
    woken = true;
    if (!armed) return;  // a session is under way: schedule_next looks at `woken`
    const Clock::time_point early = earliest_wake();
    if (early >= timer.expiry()) return;
    arm(early);
  }

  Clock::time_point earliest_wake() const {
    return std::max(Clock::now() + state_detail::kWakeDelay, last_finish + last_loop_busy);
  }

  void arm(Clock::time_point at) {
    armed = true;
    timer.expires_at(at);
    timer.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) tick();
    });
  }

  static double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  }

  // One line per session at -v 3 (where Volcano logs a session's start and
  // end): where its time went, on the loop and on the session thread.
  void log_session(const scheduler::SessionTimings& timings, double record_ms,
                   size_t pieces) const {
    if (!log::enabled(3)) return;
    const auto fixed = [](double ms) {
      char text[32];
      std::snprintf(text, sizeof text, "%.1f", ms);
      return std::string(text);
    };
    std::string actions;
    for (const auto& [name, ms] : timings.actions_ms) actions += " " + name + " " + fixed(ms);
    log::write(3, state_detail::kWho,
               "session: " + std::to_string(last.binds.size()) + " binds, " +
                   std::to_string(last.evictions.size()) + " evictions; ms: refresh " +
                   fixed(refresh_ms) + ", snapshot " + fixed(snapshot_ms) + ", open " +
                   fixed(timings.open_ms) + (timings.kept_records ? " (kept)" : "") + "," +
                   actions + ", close " + fixed(timings.close_ms) + ", record " + fixed(record_ms) +
                   " in " + std::to_string(pieces) + (pieces == 1 ? " piece" : " pieces"));
  }

  // The Kubernetes source's leadership and writes, as metrics.
  void report_source() {
    if (!kube_source) return;
    const kube::KubeSourceStatus st = kube_source->status();
    if (options.kube.leader_elect) metrics.set_leader(kube_source->lease_name(), st.leading);
    metrics.set_api_writes("bind", "ok", static_cast<double>(st.writes.binds));
    metrics.set_api_writes("bind", "failed", static_cast<double>(st.writes.bind_failures));
    metrics.set_api_writes("evict", "ok", static_cast<double>(st.writes.evictions));
    metrics.set_api_writes("evict", "failed", static_cast<double>(st.writes.eviction_failures));
    metrics.set_api_writes("status", "ok", static_cast<double>(st.writes.statuses));
    metrics.set_api_writes("event", "ok", static_cast<double>(st.writes.events));
    metrics.set_api_writes("condition", "ok", static_cast<double>(st.writes.conditions));
    const kube::BindStageTimes bind_stages = kube_source->take_bind_stage_times();
    metrics.observe_stage("PreBind", bind_stages.pre_bind_ms);
    metrics.observe_stage("Bind", bind_stages.bind_ms);
  }

  void schedule_next(std::optional<std::chrono::milliseconds> after = std::nullopt) {
    // The pings come from here only: a session that never finishes stops
    // them, and systemd restarts the unit.
    if (!notified_ready) {
      sd_notify(0, "READY=1");
      notified_ready = true;
    }
    sd_notify(0, "WATCHDOG=1");
    commits.flush();
    kube.reap(std::chrono::system_clock::now());
    watchers.bookmark(Clock::now(), options.bookmark_interval);
    watchers.expire(Clock::now());
    Clock::time_point at = session_start + after.value_or(std::chrono::milliseconds(period_ms()));
    if (woken) at = std::min(at, earliest_wake());
    arm(at);
  }

  // Stopping while a session hangs: the thread cannot be stopped, so the
  // process ends without it (Service::run exits at once).
  void abandon() {
    abandoned = true;
    log::write(log::kError, state_detail::kWho,
               "exiting with a hung session, in " + watchdog.where() +
                   "; acknowledged writes are in the store");
    io.stop();
  }

  // The cache as the store holds it, written whole: only while no session
  // holds the cache, so a dump asked for meanwhile waits for its end.
  void dump() {
    if (cache.lent()) {
      dump_waits = true;
      return;
    }
    const std::filesystem::path dir =
        options.dump_dir.empty() ? options.state_dir : options.dump_dir;
    const std::string name = "scoria-dump-" + std::to_string(std::time(nullptr)) + "-" +
                             std::to_string(::getpid()) + ".json";
    std::ofstream out(dir / name);
    out << dump_cache(cache.change().snapshot(), last).dump(2) << "\n";
    if (out)
      state_detail::info("cache dumped to " + (dir / name).string());
    else
      state_detail::warn("cannot write the cache dump to " + (dir / name).string());
  }

  void stop() {
    if (stopping) return;
    stopping = true;
    state_detail::info("stopping");
    sd_notify(0, "STOPPING=1");
    timer.cancel();
    signals.cancel();
    config_watch.close();
    // Writes received are committed and answered before the connections go.
    commits.flush();
    if (server) server->stop();
    watchers.close_all();
    if (kube_source) kube_source->stop();
    if (!in_flight) {
      io.stop();
    } else if (watchdog.hung()) {
      abandon();
    } else {
      state_detail::info("waiting for the running session to finish");
    }
  }

  void wait_signal() {
    signals.async_wait([this](const boost::system::error_code& ec, int signo) {
      if (ec) return;
      switch (signo) {
        case SIGHUP:
          reload_config("SIGHUP");
          break;
        case SIGUSR2:
          dump();
          break;
        default:
          stop();
          return;
      }
      wait_signal();
    });
  }
};

}  // namespace scoria::serve
