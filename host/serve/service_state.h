// The state of a running `scoria serve` and what the event loop does with
// it: sessions, config reloads, dumps, the config watch and the signals.
// Internal to host/serve (service.cpp and api_routes.cpp).
#pragma once

#include "serve/service.h"

#include <sys/inotify.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <array>
#include <chrono>
#include <csignal>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cache/cluster_cache.h"
#include "cli/plugin_dirs.h"
#include "config/scheduler_config.h"
#include "log/log.h"
#include "metrics/scheduler_metrics.h"
#include "model/error.h"
#include "plugin/plugin_registry.h"
#include "scheduler/scheduler.h"
#include "serve/cache_dump.h"
#include "serve/kube_api.h"
#include "serve/local_cluster.h"
#include "serve/watch_hub.h"
#include "store/object_store.h"

namespace scoria::serve {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

namespace state_detail {

inline constexpr std::string_view kWho = "serve";
// Log entries kept for watchers to resume from; older resumes must relist.
inline constexpr size_t kEventsKept = 200000;

inline void info(const std::string& message) { log::write(log::kInfo, kWho, message); }
inline void warn(const std::string& message) { log::write(log::kWarning, kWho, message); }

}  // namespace state_detail

struct Service::State {
  explicit State(ServeOptions o)
      : options(std::move(o)),
        store(options.state_dir / "store.db"),
        cluster(store),
        timer(io),
        signals(io, SIGTERM, SIGINT, SIGHUP),
        config_watch(io),
        watchers(store),
        kube(store, watchers) {
    signals.add(SIGUSR2);
  }

  ServeOptions options;
  asio::io_context io;
  store::ObjectStore store;
  LocalCluster cluster;
  cache::ClusterCache cache;
  std::unique_ptr<plugin::PluginRegistry> registry;
  std::unique_ptr<scheduler::Scheduler> scheduler;
  metrics::SchedulerMetrics metrics;
  std::unique_ptr<http::Server> server;
  asio::steady_timer timer;
  asio::signal_set signals;
  asio::posix::stream_descriptor config_watch;
  std::array<char, 4096> watch_buffer{};
  WatchHub watchers;
  KubeApi kube;
  session::Outcome last;
  std::optional<std::string> sync_error = std::string("no session has run yet");
  bool notified_ready = false;
  bool stopping = false;

  int64_t period_ms() const {
    return options.period_ms.value_or(scheduler ? scheduler->config().schedule_period_ms : 1000);
  }

  // A config and the plugins it names; InputError if either is bad.
  void load_config() {
    config::SchedulerConfig conf = config::load_config(options.config);
    auto fresh = std::make_unique<plugin::PluginRegistry>();
    fresh->set_allow_writable(options.allow_writable_plugins);
    std::vector<std::filesystem::path> dirs = options.plugin_dirs;
    dirs.insert(dirs.end(), conf.plugin_dirs.begin(), conf.plugin_dirs.end());
    cli::scan_plugins(*fresh, dirs);
    auto made = std::make_unique<scheduler::Scheduler>(*fresh, std::move(conf));
    scheduler = std::move(made);
    registry = std::move(fresh);
  }

  void reload_config(std::string_view why) {
    try {
      load_config();
      metrics.count_config_reload(true);
      state_detail::info("config " + options.config.string() + " reloaded (" + std::string(why) +
                         ")");
    } catch (const InputError& e) {
      metrics.count_config_reload(false);
      state_detail::warn(
          std::string("config rejected, scheduling goes on with the last good one: ") + e.what());
    }
  }

  void run_session() {
    if (auto error = cluster.refresh(cache)) {
      if (sync_error != error)
        state_detail::warn("the stored cluster cannot be scheduled: " + *error);
      sync_error = error;
      return;
    }
    sync_error.reset();
    scheduler::SessionTimings timings;
    last = scheduler->run_once(cache.snapshot(), &timings);
    const size_t decided = last.binds.size() + last.evictions.size();
    for (const double ms : cluster.record(last, cache)) metrics.observe_task_bound(ms);
    metrics.observe_session(timings, last);
    for (const auto& [plugin, errors] : scheduler->plugin_errors())
      metrics.set_plugin_errors(plugin, static_cast<double>(errors));
    if (decided > 0) metrics.count_store_writes("session", static_cast<double>(decided));
    watchers.pump();
  }

  void tick() {
    if (stopping) return;
    const Clock::time_point start = Clock::now();
    try {
      run_session();
    } catch (const std::exception& e) {
      state_detail::warn(std::string("session failed: ") + e.what());
    }
    if (!notified_ready) {
      sd_notify(0, "READY=1");
      notified_ready = true;
    }
    sd_notify(0, "WATCHDOG=1");
    store.compact_events(state_detail::kEventsKept);
    kube.reap(std::chrono::system_clock::now());
    watchers.expire(Clock::now());
    timer.expires_at(start + std::chrono::milliseconds(period_ms()));
    timer.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) tick();
    });
  }

  void dump() {
    const std::filesystem::path dir =
        options.dump_dir.empty() ? options.state_dir : options.dump_dir;
    const std::string name = "scoria-dump-" + std::to_string(std::time(nullptr)) + "-" +
                             std::to_string(::getpid()) + ".json";
    std::ofstream out(dir / name);
    out << dump_cache(cache.snapshot(), last).dump(2) << "\n";
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
    if (server) server->stop();
    watchers.close_all();
    io.stop();
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

  // inotify on the config's directory: a save (close after write, or a
  // rename into place as editors and ConfigMaps do) of the config reloads it.
  void watch_config() {
    const int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd < 0) {
      state_detail::warn("inotify is not available; the config reloads on SIGHUP only");
      return;
    }
    const std::filesystem::path dir = options.config.parent_path().empty()
                                          ? std::filesystem::path(".")
                                          : options.config.parent_path();
    if (inotify_add_watch(fd, dir.c_str(), IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE) < 0) {
      ::close(fd);
      state_detail::warn("cannot watch " + dir.string() + "; the config reloads on SIGHUP only");
      return;
    }
    config_watch.assign(fd);
    read_config_events();
  }

  void read_config_events() {
    config_watch.async_read_some(
        asio::buffer(watch_buffer), [this](const boost::system::error_code& ec, size_t n) {
          if (ec) return;
          bool ours = false;
          const std::string file = options.config.filename().string();
          for (size_t at = 0; at + sizeof(inotify_event) <= n;) {
            const auto* event = reinterpret_cast<const inotify_event*>(watch_buffer.data() + at);
            if (event->len > 0 && file == event->name) ours = true;
            at += sizeof(inotify_event) + event->len;
          }
          if (ours) reload_config("the file changed");
          read_config_events();
        });
  }
};

}  // namespace scoria::serve
