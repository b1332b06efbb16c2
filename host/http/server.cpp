#include "http/server.h"

#include <sys/resource.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <cerrno>
#include <utility>
#include <vector>

#include "http/connection.h"
#include "http/server_tls.h"
#include "log/log.h"
#include "log/throttle.h"

namespace scoria::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;

Response make_response(unsigned status, std::string body, std::string_view content_type,
                       unsigned version, bool keep_alive) {
  Response res{static_cast<bhttp::status>(status), version};
  res.set(bhttp::field::server, "scoria");
  res.set(bhttp::field::content_type, std::string(content_type));
  res.keep_alive(keep_alive);
  res.body() = std::move(body);
  res.prepare_payload();
  return res;
}

namespace {

// File descriptors kept for what is not a connection: the store and its
// WAL, the config watch, plugins, logs, a refused connection's brief fd.
constexpr rlim_t kReservedFds = 64;
// Past this an automatic limit stops growing with the fd limit: a
// scheduler's API has a handful of clients, not a crowd.
constexpr size_t kMaxAutoConnections = 4096;
// How long accept waits when the process or the system is out of file
// descriptors (or memory) before it tries again: at once would spin.
constexpr std::chrono::milliseconds kAcceptBackoff{100};

size_t connection_limit(size_t asked) {
  rlimit nofile{};
  if (::getrlimit(RLIMIT_NOFILE, &nofile) != 0 || nofile.rlim_cur == RLIM_INFINITY)
    return asked == 0 ? kMaxAutoConnections : asked;
  const size_t below_fds =
      nofile.rlim_cur > kReservedFds * 2 ? nofile.rlim_cur - kReservedFds : nofile.rlim_cur / 2;
  if (asked == 0) return std::max<size_t>(1, std::min(below_fds, kMaxAutoConnections));
  // Asked for more than the descriptors allow: as asked (the operator may
  // know better), with a warning; accept backs off if descriptors run out.
  if (asked > below_fds)
    log::write(log::kWarning, "http",
               "--max-connections " + std::to_string(asked) +
                   " is above what the file descriptor limit (" + std::to_string(nofile.rlim_cur) +
                   ") leaves for connections (" + std::to_string(below_fds) + ")");
  return asked;
}

bool out_of_descriptors(const beast::error_code& ec) {
  if (ec.category() != boost::system::system_category()) return false;
  const int e = ec.value();
  return e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM;
}

tcp::endpoint resolve(asio::io_context& io, const std::string& address, unsigned short port) {
  boost::system::error_code ec;
  const auto ip = asio::ip::make_address(address, ec);
  if (!ec) return {ip, port};
  // A name (localhost, a host name): its first address, as a client
  // connecting to the name would try first.
  tcp::resolver resolver(io);
  const auto results =
      resolver.resolve(address, std::to_string(port),
                       tcp::resolver::passive | tcp::resolver::address_configured, ec);
  if (ec || results.empty())
    throw ListenError("cannot resolve --listen " + address + ": " +
                      (ec ? ec.message() : std::string("no address")));
  return results.begin()->endpoint();
}

}  // namespace

struct Server::State : std::enable_shared_from_this<Server::State> {
  State(asio::io_context& io, ServerOptions opts, Router r)
      : acceptor(io),
        backoff(io),
        options(std::make_shared<ServerOptions>(std::move(opts))),
        router(std::make_shared<const Router>(std::move(r))),
        accept_failures(std::chrono::seconds(10)) {
    options->max_connections = connection_limit(options->max_connections);
  }

  void accept() {
    auto self = shared_from_this();
    acceptor.async_accept([self](beast::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted || !self->acceptor.is_open()) return;
      if (out_of_descriptors(ec)) {
        if (const auto n = self->accept_failures.admit())
          log::write(log::kWarning, "http",
                     "cannot accept connections (" + ec.message() + ", " + std::to_string(*n) +
                         " times since the last line); trying again in " +
                         std::to_string(kAcceptBackoff.count()) + "ms");
        self->backoff.expires_after(kAcceptBackoff);
        self->backoff.async_wait([self](beast::error_code error) {
          if (!error && self->acceptor.is_open()) self->accept();
        });
        return;
      }
      if (!ec) self->admit(std::move(socket));
      self->accept();
    });
  }

  void admit(tcp::socket socket) {
    std::erase_if(connections, [](const auto& w) { return w.expired(); });
    std::shared_ptr<detail::Connection> conn;
    if (tls) {
      std::shared_ptr<asio::ssl::context> ctx = tls->current();
      conn = std::make_shared<detail::BasicConnection<detail::TlsSocket>>(
          detail::TlsSocket(std::move(socket), *ctx), ctx, router, options);
    } else {
      conn = std::make_shared<detail::BasicConnection<tcp::socket>>(std::move(socket), nullptr,
                                                                    router, options);
    }
    if (connections.size() >= options->max_connections) {
      conn->refuse_busy();
      return;
    }
    connections.push_back(conn);
    conn->start();
  }

  tcp::acceptor acceptor;
  asio::steady_timer backoff;
  std::shared_ptr<ServerOptions> options;
  std::shared_ptr<const Router> router;
  std::vector<std::weak_ptr<detail::Connection>> connections;
  std::unique_ptr<detail::ServerTls> tls;  // null: plain HTTP
  log::Throttle accept_failures;
};

Server::Server(asio::io_context& io, ServerOptions options, Router router)
    : state_(std::make_shared<State>(io, std::move(options), std::move(router))) {
  if (!state_->options->tls_cert_file.empty() || !state_->options->tls_key_file.empty()) {
    if (state_->options->tls_cert_file.empty() || state_->options->tls_key_file.empty())
      throw ListenError(
          "TLS needs both --tls-cert-file and --tls-private-key-file; give both, or neither "
          "for plain HTTP");
    state_->tls = std::make_unique<detail::ServerTls>(state_->options->tls_cert_file,
                                                      state_->options->tls_key_file);
  }
  const tcp::endpoint endpoint = resolve(io, state_->options->address, state_->options->port);
  boost::system::error_code ec;
  state_->acceptor.open(endpoint.protocol(), ec);
  if (!ec) state_->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) state_->acceptor.bind(endpoint, ec);
  if (!ec) state_->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    throw ListenError("cannot listen on " + state_->options->address + ":" +
                      std::to_string(state_->options->port) + ": " + ec.message());
}

Server::~Server() { stop(); }

void Server::start() { state_->accept(); }

void Server::stop() {
  boost::system::error_code ec;
  state_->acceptor.close(ec);
  state_->backoff.cancel();
  for (const auto& weak : state_->connections) {
    if (auto conn = weak.lock()) conn->shutdown();
  }
  state_->connections.clear();
}

unsigned short Server::port() const {
  boost::system::error_code ec;
  return state_->acceptor.local_endpoint(ec).port();
}

asio::ip::address Server::address() const {
  boost::system::error_code ec;
  return state_->acceptor.local_endpoint(ec).address();
}

size_t Server::max_connections() const { return state_->options->max_connections; }

bool Server::tls() const { return state_->tls != nullptr; }

}  // namespace scoria::http
