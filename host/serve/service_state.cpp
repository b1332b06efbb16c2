#include "serve/service_state.h"

#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <boost/asio/post.hpp>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>

#include "config/config_changes.h"
#include "log/log.h"
#include "serve/cache_dump.h"

namespace scoria::serve {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::string_view kWho = "serve";

// A session failing every period is logged once per this, with a count.
constexpr std::chrono::seconds kFailureLogInterval{10};

void log_info(const std::string& message) { log::write(log::kInfo, kWho, message); }
void log_warning(const std::string& message) { log::write(log::kWarning, kWho, message); }

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

Service::State::State(asio::io_context& loop, ServeOptions o)
    : options(std::move(o)),
      lock(options.state_dir),
      io(loop),
      store(options.state_dir / "store.db"),
      watchers(store, options.watch_memory),
      cluster(store, &watchers),
      signals(io, SIGTERM, SIGINT, SIGHUP),
      config_watch(io),
      watchdog(io,
               [this] {
                 return SessionWatchdog::Limits{std::chrono::milliseconds(period_ms()),
                                                options.watchdog_periods};
               }),
      commits(io, store, watchers),
      kube(store, watchers, cluster.written(), options.field_validation, options.token),
      cadence(io, options.schedule_on_change, [this] { tick(); }),
      recorder(io, commits, cache, watchers, store, metrics),
      session_failures(kFailureLogInterval),
      reloads(
          io, [this] { return load_config_and_plugins(options); },
          [this](LoadedConfig loaded, const std::string& why) {
            const config::SchedulerConfig before =
                scheduler ? scheduler->config() : config::SchedulerConfig();
            adopt(std::move(loaded));
            metrics.count_config_reload(true);
            log_info("config " + options.config.string() + " reloaded (" + why +
                     "): " + config::describe_changes(before, scheduler->config()));
          },
          [this](const std::string& error) {
            metrics.count_config_reload(false);
            log_warning("config rejected, scheduling goes on with the last good one: " + error);
          }) {
  signals.add(SIGUSR2);
  commits.on_commit([this] { cadence.wake(); });
  kube.set_queue_admission_gates(options.queue_admission_gates);
  cluster.set_queue_admission_gates(options.queue_admission_gates);
}

void Service::State::adopt(LoadedConfig loaded) {
  if (registry) log_plugin_upgrades(*registry, *loaded.registry);
  loaded.scheduler->set_tracker(&watchdog.tracker());
  scheduler = std::move(loaded.scheduler);
  registry = std::move(loaded.registry);
}

void Service::State::session_failed(const std::string& what) {
  sync_error = "the last session failed: " + what;
  if (const auto n = session_failures.admit())
    log_warning(
        "session failed" +
        (*n > 1 ? " (" + std::to_string(*n) + " times since the last line)" : std::string()) +
        ": " + what);
}

// What a session carries from the loop to the session thread and back.
struct Service::State::Run {
  std::optional<SharedCache::Loan> cache;  // returned on the loop
  cycle::Outcome outcome;
  std::optional<std::string> error;
  OutcomeRecorder::Session record;  // its timings, and the loop's so far
};

void Service::State::tick() {
  if (stopping) return;
  cadence.begin();
  const Clock::time_point start = cadence.session_start();
  report_source();
  auto run = std::make_shared<Run>();
  try {
    // The cache takes only what is committed.
    commits.flush();
    const Clock::time_point refresh_start = Clock::now();
    cache.change().set_sharding(scheduler->config().sharding);
    auto error = source().refresh(cache.change());
    cadence.caught_up();  // this session sees every write committed so far
    run->record.refresh_ms = ms_since(refresh_start);
    if (error) {
      if (sync_error != error) log_warning("the cluster cannot be scheduled: " + *error);
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
  // Set on the loop, while no session runs: the session thread reads it.
  scheduler->set_explain(explain_waits.next());
  in_flight = true;
  run->record.loop_busy = Clock::now() - start;
  // The snapshot is taken on the session thread, off the loop, through the
  // loan: until it is returned the loop cannot change the cache.
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
      run->record.snapshot_ms = ms_since(snapshot_start);
      run->outcome = sched->run_once(snapshot, &run->record.timings);
      metrics.observe_decisions(run->outcome);
      source().prepare(run->outcome, run->cache->read());
    } catch (const std::exception& e) {
      run->error = e.what();
    }
    asio::post(io, [this, sched = std::move(sched), run]() mutable {
      run->cache.reset();
      finish(std::move(sched), *run);
    });
  });
  watchdog.watch(start, [this] {
    if (stopping) abandon();
  });
}

void Service::State::finish(std::shared_ptr<scheduler::Scheduler> sched, Run& run) {
  const Clock::time_point finish_start = Clock::now();
  watchdog.finished();
  run.record.sched = std::move(sched);
  if (run.error) {
    session_failed(*run.error);
    explain_waits.fail("the session failed: " + *run.error);
    end_session(run.record.loop_busy + (Clock::now() - finish_start));
    return;
  }
  if (run.outcome.explanation) explain_waits.answer(*run.outcome.explanation);
  run.outcome.explanation.reset();
  run.record.loop_busy += Clock::now() - finish_start;
  recorder.record(source(), std::move(run.record), std::move(run.outcome),
                  [this](Clock::duration loop_busy, const std::optional<std::string>& error) {
                    if (error)
                      session_failed(*error);
                    else
                      sync_error.reset();
                    end_session(loop_busy);
                  });
}

void Service::State::end_session(Clock::duration loop_busy) {
  in_flight = false;
  if (stopping) {
    io.stop();
    return;
  }
  if (std::exchange(dump_waits, false)) dump();
  cadence.finished(loop_busy);
  schedule_next();
}

void Service::State::report_source() {
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

void Service::State::schedule_next(std::optional<std::chrono::milliseconds> after) {
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
  cadence.next(after.value_or(std::chrono::milliseconds(period_ms())));
}

void Service::State::abandon() {
  abandoned = true;
  log::write(log::kError, kWho,
             "exiting with a hung session, in " + watchdog.where() +
                 "; acknowledged writes are in the store");
  io.stop();
}

void Service::State::dump() {
  if (cache.lent()) {
    dump_waits = true;
    return;
  }
  const std::filesystem::path dir = options.dump_dir.empty() ? options.state_dir : options.dump_dir;
  const std::string name = "scoria-dump-" + std::to_string(std::time(nullptr)) + "-" +
                           std::to_string(::getpid()) + ".json";
  std::ofstream out(dir / name);
  out << dump_cache(cache.change().snapshot(), recorder.last()).dump(2) << "\n";
  if (out)
    log_info("cache dumped to " + (dir / name).string());
  else
    log_warning("cannot write the cache dump to " + (dir / name).string());
}

void Service::State::stop() {
  if (stopping) return;
  stopping = true;
  log_info("stopping");
  sd_notify(0, "STOPPING=1");
  cadence.stop();
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
    log_info("waiting for the running session to finish");
  }
}

void Service::State::wait_signal() {
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

}  // namespace scoria::serve
