// `scoria serve`: the long-running scheduler on one Boost.Asio event loop.
// The loop runs the session timer (every schedule_period, measured from the
// start of each run, as Volcano's wait.Until), the HTTP API over the local
// store, the config watch (inotify and SIGHUP) and the signals: SIGTERM and
// SIGINT stop after the running session, SIGUSR2 dumps the cache. Sessions
// run on a thread of their own; systemd hears READY once the first session
// ran and WATCHDOG after each one, so a session that hangs stops the pings.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "http/server.h"
#include "kube/kube_cluster.h"
#include "plugin/plugin_registry.h"
#include "schema/unknown_fields.h"
#include "serve/watch_hub.h"

namespace scoria::serve {

struct ServeOptions {
  std::filesystem::path config;
  std::filesystem::path state_dir;  // holds store.db (the command line resolves a default)
  std::filesystem::path dump_dir;   // SIGUSR2 dumps; the state dir if empty
  std::string address = "127.0.0.1";
  unsigned short port = 8080;  // 0: ephemeral; the bound port is logged
  std::string token;           // bearer token for writes (required beyond loopback)
  std::vector<std::filesystem::path> plugin_dirs;
  bool allow_writable_plugins = false;
  // Loads the plugin files a config names in a trial process first, at
  // start and at every reload (plugin/trial_load.h); none: loaded directly.
  plugin::PluginRegistry::Trial plugin_trial;
  std::optional<int64_t> period_ms;  // overrides the config's schedule_period
  // Override the config's node sampling keys (Volcano's flags of these names).
  struct NodesToFind {
    std::optional<int64_t> min_nodes;       // --minimum-feasible-nodes
    std::optional<int64_t> min_percentage;  // --minimum-percentage-nodes-to-find
    std::optional<int64_t> percentage;      // --percentage-nodes-to-find
  } nodes_to_find;
  // What an object written through the API, or applied, with fields its
  // kind does not have gets when the request names no fieldValidation: a
  // warning (the API server's default), or refused (--strict-fields).
  schema::FieldValidation field_validation = schema::FieldValidation::kWarn;
  // A write through the API starts the next session early (see
  // SessionCadence); false keeps Volcano's fixed cadence.
  bool schedule_on_change = true;
  // Connection limits and timeouts (its address and port are the above).
  http::ServerOptions http;
  // A plugin callback running longer than this many schedule periods is
  // reported, and the systemd watchdog (and /healthz) stop saying healthy.
  int64_t watchdog_periods = 10;
  // How often a watch that allows bookmarks gets one (the API server's is
  // about a minute).
  std::chrono::milliseconds bookmark_interval{60000};
  // What all watch streams together may hold queued for their clients
  // (each also has http.stream_buffer): past it a watcher that is behind
  // is cut off.
  size_t watch_memory = WatchHub::kDefaultMemory;
  // Where the cluster comes from: the local store (false) or a Kubernetes
  // API server (true, with `kube` saying which and how).
  bool kubernetes = false;
  kube::KubeSourceOptions kube;
  // Which nodes this instance schedules on (--scheduler-sharding-mode,
  // --scheduler-sharding-name, --shard-name).
  model::Sharding sharding;
  // Volcano's SchedulingGatesQueueAdmission (--feature-gates): the local API
  // gates opted-in pods as Volcano's webhook does, and sessions lift the
  // gate once the queue has room.
  bool queue_admission_gates = false;
};

class Service {
 public:
  /// Loads the config and plugins and binds the listener, then takes the
  /// state directory and opens the store: nothing is written there unless
  /// everything else is sound. Throws InputError (bad config, unsafe
  /// options, a state directory another serve holds), ListenError or
  /// StoreError.
  explicit Service(ServeOptions options);
  ~Service();
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  /// Runs until SIGTERM or SIGINT; returns the exit code.
  int run();

 private:
  struct State;
  http::Reply route(const http::Request& request, const boost::asio::ip::tcp::endpoint& peer);
  http::Reply answer(const http::Request& request, const boost::asio::ip::tcp::endpoint& peer);

  // Declared first, so destroyed last: everything in State uses it.
  boost::asio::io_context io_;
  std::unique_ptr<State> state_;
};

/// True for 127.0.0.0/8, ::1 and names that resolve only to loopback
/// addresses ("localhost").
bool is_loopback(std::string_view address);

}  // namespace scoria::serve
