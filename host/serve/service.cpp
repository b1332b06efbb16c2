#include "serve/service.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>

#include <cstdlib>
#include <string>

#include "log/log.h"
#include "model/error.h"
#include "plugin/crash_report.h"
#include "serve/request_guard.h"
#include "serve/service_state.h"

namespace scoria::serve {

namespace {
void info(const std::string& message) { log::write(log::kInfo, "serve", message); }
}  // namespace

bool is_loopback(std::string_view address) {
  boost::system::error_code ec;
  const auto ip = asio::ip::make_address(std::string(address), ec);
  if (!ec) return ip.is_loopback();
  asio::io_context io;
  asio::ip::tcp::resolver resolver(io);
  const auto results = resolver.resolve(std::string(address), "0", ec);
  if (ec || results.empty()) return false;
  for (const auto& entry : results)
    if (!entry.endpoint().address().is_loopback()) return false;
  return true;
}

Service::Service(ServeOptions options) {
  // Whatever can be checked is, before the state directory is touched: the
  // config and its plugins, the source, the address to listen on.
  LoadedConfig loaded = load_config_and_plugins(options);
  std::unique_ptr<kube::KubeCluster> kube_source;
  if (options.kubernetes) kube_source = std::make_unique<kube::KubeCluster>(options.kube);
  http::ServerOptions http_options = options.http;
  http_options.address = options.address;
  http_options.port = options.port;
  auto guard = std::make_shared<RequestGuard>(options.address, false, std::string());
  // Requests are handled once run() runs the loop, by then with state_ set.
  auto server = std::make_unique<http::Server>(
      io_, http_options,
      [this, guard](const http::Request& request, const asio::ip::tcp::endpoint& peer) {
        if (auto refused = guard->check(request)) return std::move(*refused);
        return route(request, peer);
      });
  // Whether the bound address is loopback, not what the flag looked like: a
  // name may resolve anywhere.
  const bool loopback = server->address().is_loopback();
  if (!loopback && options.token.empty())
    throw InputError("--listen " + options.address +
                     " reaches beyond this machine: give a bearer token for writes "
                     "(--token-file FILE or SCORIA_TOKEN), or listen on 127.0.0.1");
  *guard = RequestGuard(options.address, loopback, options.token);
  // State takes the state directory's lock before it opens the store.
  state_ = std::make_unique<State>(io_, std::move(options));
  // A crash from here on names its plugin, and the next start says so.
  const std::filesystem::path& dir = state_->options.state_dir;
  if (const auto crash = plugin::take_crash_report(dir))
    log::write(log::kWarning, "serve",
               "restarted after a crash (" + std::to_string(crash->count) +
                   " so far in this state directory): " + crash->line);
  plugin::install_crash_handler(dir);
  state_->adopt(std::move(loaded));
  state_->kube_source = std::move(kube_source);
  state_->server = std::move(server);
}

Service::~Service() = default;

int Service::run() {
  State& s = *state_;
  // Signals and the config watch first: a change made as soon as the
  // service says it listens must not be missed.
  s.wait_signal();
  s.config_watch.start(s.options.config, [&s] { s.reload_config("the file changed"); });
  // Before the first request: what the store has from the start is there
  // for it.
  if (!s.kube_source) s.kube.create_builtin_objects();
  s.server->start();
  info("listening on " + s.options.address + ":" + std::to_string(s.server->port()) + " (" +
       s.server->address().to_string() + "), " +
       (s.kube_source ? "scheduling the cluster of " + s.options.kube.client.origin
                      : "store " + (s.options.state_dir / "store.db").string()) +
       ", at most " + std::to_string(s.server->max_connections()) + " connections" +
       (s.server->tls() ? ", over TLS" : ""));
  {
    // What schedules: the config (and the flags that override it).
    const config::SchedulerConfig& c = s.scheduler->config();
    std::string actions;
    for (const auto& a : c.actions) actions += (actions.empty() ? "" : ", ") + a;
    info("config " + s.options.config.string() + ": actions " + actions + ", " +
         std::to_string(c.tiers.size()) + " tiers, a session every " +
         std::to_string(s.period_ms()) + "ms; nodes to find: " +
         (c.percentage_of_nodes_to_find > 0
              ? std::to_string(c.percentage_of_nodes_to_find) + "%"
              : "adaptive, at least " + std::to_string(c.min_percentage_of_nodes_to_find) + "%") +
         " and at least " + std::to_string(c.min_nodes_to_find) + " nodes");
    if (c.queue_admission_gates)
      info(
          "feature gate SchedulingGatesQueueAdmission: pods annotated "
          "scheduling.volcano.sh/queue-allocation-gate: \"true\" wait behind that gate until "
          "their queue has room");
  }
  if (s.kube_source) s.kube_source->start();
  asio::post(io_, [&s] { s.tick(); });
  io_.run();
  if (s.abandoned) {
    // The session thread cannot be joined, and nothing it uses may be
    // destroyed under it: end the process here. Every acknowledged write is
    // already synced to the store.
    std::_Exit(1);
  }
  return 0;
}

}  // namespace scoria::serve
