#include "kube/connection.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <array>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#include "model/error.h"

namespace scoria::kube {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using boost::system::error_code;

// An answer (a list page, an object) larger than this is not one we asked
// for (a page is 500 objects; an object at most the API server's 3 MiB
// request, and a pod far less); a watch event line likewise.
constexpr uint64_t kMaxBody = uint64_t{256} << 20;
constexpr size_t kMaxLine = size_t{64} << 20;
constexpr size_t kMaxErrorBody = size_t{1} << 20;

bool is_address(const std::string& host) {
  error_code ec;
  (void)asio::ip::make_address(host, ec);
  return !ec;
}

std::optional<std::chrono::seconds> retry_after(const bhttp::fields& fields) {
  const auto it = fields.find(bhttp::field::retry_after);
  if (it == fields.end()) return std::nullopt;
  const std::string v(it->value());
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 6)
    return std::nullopt;
  return std::chrono::seconds(std::atol(v.c_str()));
}

}  // namespace

std::shared_ptr<ssl::context> make_tls_context(const ClientConfig& config) {
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_client);
  try {
    ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                     ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
    if (config.insecure_skip_tls_verify) {
      ctx->set_verify_mode(ssl::verify_none);
    } else {
      ctx->set_verify_mode(ssl::verify_peer);
      if (config.ca_pem.empty())
        ctx->set_default_verify_paths();
      else
        ctx->add_certificate_authority(asio::buffer(config.ca_pem));
    }
  } catch (const boost::system::system_error& e) {
    throw InputError(config.origin + ": the certificate authority does not load (" +
                     std::string(e.what()) + "); give the server's CA as PEM");
  }
  if (!config.client_cert_pem.empty()) {
    try {
      ctx->use_certificate_chain(asio::buffer(config.client_cert_pem));
      ctx->use_private_key(asio::buffer(config.client_key_pem), ssl::context::pem);
    } catch (const boost::system::system_error& e) {
      throw InputError(config.origin + ": the client certificate or its key does not load (" +
                       std::string(e.what()) + "); give both as PEM, the key unencrypted");
    }
  }
  return ctx;
}

TokenSource::TokenSource(const ClientConfig& config)
    : file_(config.token_file), token_(config.token) {
  std::error_code ec;
  if (!file_.empty()) seen_ = std::filesystem::last_write_time(file_, ec);
  checked_ = Clock::now();
}

std::string TokenSource::current() {
  std::lock_guard lock(mutex_);
  // Projected service-account tokens are replaced well before they expire;
  // a look at the file once a second finds a new one in time.
  if (file_.empty() || Clock::now() - checked_ < std::chrono::seconds(1)) return token_;
  checked_ = Clock::now();
  std::error_code ec;
  const auto when = std::filesystem::last_write_time(file_, ec);
  if (ec || when == seen_) return token_;
  std::ifstream in(file_, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  std::string token = text.str();
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' '))
    token.pop_back();
  if (!token.empty()) {
    token_ = std::move(token);
    seen_ = when;
  }
  return token_;
}

void TokenSource::rejected() {
  std::lock_guard lock(mutex_);
  checked_ = {};
}

struct Connection::Io {
  ClientConfig config;
  std::shared_ptr<ssl::context> tls;
  std::shared_ptr<TokenSource> token;
  asio::io_context io;
  tcp::resolver resolver{io};
  std::optional<beast::tcp_stream> plain;
  std::optional<beast::ssl_stream<beast::tcp_stream>> secure;
  beast::flat_buffer buffer;
  std::optional<bhttp::response_parser<bhttp::buffer_body>> stream;
  std::array<char, 64 * 1024> chunk{};
  std::string pending;
  size_t pending_at = 0;
  std::atomic<bool> cancelled{false};

  bool open() const { return plain.has_value() || secure.has_value(); }

  void close() {
    error_code ignored;
    if (plain) plain->socket().close(ignored);
    if (secure) beast::get_lowest_layer(*secure).socket().close(ignored);
  }
  void drop() {
    close();
    plain.reset();
    secure.reset();
    stream.reset();
    buffer.clear();
  }

  // Runs the operation `start` begins until it completes, `deadline` passes
  // or cancel() is called; the operation's error code, if it completed.
  template <class Start>
  error_code run(Start&& start, Clock::time_point deadline, const char* what) {
    if (cancelled) throw Cancelled();
    bool done = false;
    error_code result;
    start([&](error_code ec, auto&&...) {
      result = ec;
      done = true;
    });
    io.restart();
    bool expired = false;
    while (!done) {
      if (io.run_one_until(deadline) > 0) continue;
      if (done) break;
      // The deadline passed: closing the socket ends the operation.
      expired = true;
      close();
      io.restart();
      while (!done) io.run_one();
    }
    if (cancelled) {
      drop();
      throw Cancelled();
    }
    if (expired) {
      drop();
      throw TransportError(std::string("no answer from ") + config.host + ":" + config.port +
                           " while " + what + " before the deadline");
    }
    return result;
  }

  void check(error_code ec, const char* what) {
    if (!ec) return;
    drop();
    throw TransportError(std::string(what) + " " + config.host + ":" + config.port + ": " +
                         ec.message());
  }

  void connect(Clock::time_point deadline) {
    if (open()) return;
    tcp::resolver::results_type endpoints;
    check(run(
              [&](auto handler) {
                resolver.async_resolve(config.host, config.port,
                                       [&endpoints, handler](error_code ec, auto results) mutable {
                                         endpoints = results;
                                         handler(ec);
                                       });
              },
              deadline, "resolving"),
          "cannot resolve");
    if (!config.tls) {
      plain.emplace(io);
      check(run([&](auto handler) { plain->async_connect(endpoints, handler); }, deadline,
                "connecting"),
            "cannot connect to");
      return;
    }
    secure.emplace(io, *tls);
    const std::string& name = config.server_name.empty() ? config.host : config.server_name;
    if (!is_address(name)) SSL_set_tlsext_host_name(secure->native_handle(), name.c_str());
    if (!config.insecure_skip_tls_verify)
      secure->set_verify_callback(ssl::host_name_verification(name));
    check(run(
              [&](auto handler) {
                beast::get_lowest_layer(*secure).async_connect(endpoints, handler);
              },
              deadline, "connecting"),
          "cannot connect to");
    const error_code ec =
        run([&](auto handler) { secure->async_handshake(ssl::stream_base::client, handler); },
            deadline, "in the TLS handshake");
    if (ec) {
      drop();
      throw TransportError("TLS handshake with " + config.host + ":" + config.port +
                           " failed: " + ec.message() +
                           (config.insecure_skip_tls_verify
                                ? std::string()
                                : "; check the CA (certificate-authority) and that the server's "
                                  "certificate names " +
                                      name));
    }
  }

  bhttp::request<bhttp::string_body> make(std::string_view method, const std::string& target,
                                          const std::string& body, std::string_view content_type) {
    bhttp::request<bhttp::string_body> req;
    const bhttp::verb verb =
        bhttp::string_to_verb(beast::string_view(method.data(), method.size()));
    req.method(verb);
    req.target(config.base_path + target);
    req.version(11);
    req.set(bhttp::field::host, config.host + ":" + config.port);
    req.set(bhttp::field::user_agent, "scoria");
    req.set(bhttp::field::accept, "application/json");
    if (token) {
      const std::string t = token->current();
      if (!t.empty()) req.set(bhttp::field::authorization, "Bearer " + t);
    }
    if (!body.empty() || verb == bhttp::verb::post || verb == bhttp::verb::put ||
        verb == bhttp::verb::patch) {
      req.set(bhttp::field::content_type,
              beast::string_view(content_type.data(), content_type.size()));
      req.body() = body;
    }
    req.keep_alive(true);
    req.prepare_payload();
    return req;
  }

  template <class Fn>
  error_code on_stream(Fn&& fn, Clock::time_point deadline, const char* what) {
    if (plain) return run([&](auto handler) { fn(*plain, handler); }, deadline, what);
    return run([&](auto handler) { fn(*secure, handler); }, deadline, what);
  }

  void send(bhttp::request<bhttp::string_body>& req, Clock::time_point deadline) {
    check(on_stream([&](auto& s, auto handler) { bhttp::async_write(s, req, handler); }, deadline,
                    "sending"),
          "cannot send to");
  }
};

Connection::Connection(const ClientConfig& config, std::shared_ptr<ssl::context> tls,
                       std::shared_ptr<TokenSource> token)
    : io_(std::make_unique<Io>()) {
  io_->config = config;
  io_->tls = std::move(tls);
  io_->token = std::move(token);
}

Connection::~Connection() = default;

Response Connection::request(std::string_view method, const std::string& target,
                             const std::string& body, std::string_view content_type,
                             Clock::duration timeout) {
  Io& c = *io_;
  const Clock::time_point deadline = Clock::now() + timeout;
  // A kept-alive connection the server has closed fails on first use: one
  // fresh connection is tried before giving up.
  for (int attempt = 0;; ++attempt) {
    const bool reused = c.open();
    c.connect(deadline);
    auto req = c.make(method, target, body, content_type);
    try {
      c.send(req, deadline);
      bhttp::response_parser<bhttp::string_body> parser;
      parser.body_limit(kMaxBody);
      parser.header_limit(64 * 1024);
      c.check(c.on_stream(
                  [&](auto& s, auto handler) { bhttp::async_read(s, c.buffer, parser, handler); },
                  deadline, "reading the answer"),
              "no answer from");
      const auto& res = parser.get();
      Response out;
      out.status = res.result_int();
      if (out.status == 401 && c.token) c.token->rejected();
      out.retry_after = retry_after(res.base());
      const bool keep = res.keep_alive();
      out.body = std::move(parser.release().body());
      if (!keep) c.drop();
      return out;
    } catch (const TransportError&) {
      if (!reused || attempt > 0) throw;
    }
  }
}

Response Connection::open_stream(const std::string& target, Clock::duration timeout) {
  Io& c = *io_;
  const Clock::time_point deadline = Clock::now() + timeout;
  // A stream has a connection of its own from start to end.
  c.drop();
  c.connect(deadline);
  auto req = c.make("GET", target, "", "");
  c.send(req, deadline);
  c.stream.emplace();
  // Unbounded, but not as boost::none: Boost 1.74's parser compares a
  // Content-Length against an empty optional as over the limit, so every
  // error answer (which has one) read as "body limit exceeded".
  c.stream->body_limit(std::numeric_limits<std::uint64_t>::max());
  c.stream->header_limit(64 * 1024);
  c.pending.clear();
  c.pending_at = 0;
  c.check(
      c.on_stream(
          [&](auto& s, auto handler) { bhttp::async_read_header(s, c.buffer, *c.stream, handler); },
          deadline, "reading the answer"),
      "no answer from");
  Response out;
  out.status = c.stream->get().result_int();
  out.retry_after = retry_after(c.stream->get().base());
  if (out.status == 200) return out;
  // An error answer: its Status body, read whole (and bounded).
  std::string line;
  while (out.body.size() < kMaxErrorBody && next_line(line, deadline - Clock::now()))
    out.body += line + "\n";
  c.drop();
  return out;
}

bool Connection::next_line(std::string& line, Clock::duration idle) {
  Io& c = *io_;
  if (!c.stream) return false;
  for (;;) {
    const size_t nl = c.pending.find('\n', c.pending_at);
    if (nl != std::string::npos) {
      line.assign(c.pending, c.pending_at, nl - c.pending_at);
      c.pending_at = nl + 1;
      if (c.pending_at > c.pending.size() / 2) {
        c.pending.erase(0, c.pending_at);
        c.pending_at = 0;
      }
      return true;
    }
    if (c.pending.size() - c.pending_at > kMaxLine) {
      c.drop();
      throw TransportError("a watch event from " + c.config.host + " is over " +
                           std::to_string(kMaxLine >> 20) + " MiB without a line end");
    }
    if (c.stream->is_done()) {
      const bool rest = c.pending_at < c.pending.size();
      line.assign(c.pending, c.pending_at);
      c.pending.clear();
      c.pending_at = 0;
      c.drop();
      return rest;
    }
    auto& body = c.stream->get().body();
    body.data = c.chunk.data();
    body.size = c.chunk.size();
    const error_code ec = c.on_stream(
        [&](auto& s, auto handler) { bhttp::async_read_some(s, c.buffer, *c.stream, handler); },
        Clock::now() + idle, "waiting for watch events");
    if (ec && ec != bhttp::error::need_buffer) c.check(ec, "the watch stream broke from");
    c.pending.append(c.chunk.data(), c.chunk.size() - body.size);
  }
}

void Connection::cancel() {
  io_->cancelled = true;
  asio::post(io_->io, [io = io_.get()] { io->close(); });
}

}  // namespace scoria::kube
