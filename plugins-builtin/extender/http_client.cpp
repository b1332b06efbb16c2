#include "http_client.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <optional>
#include <utility>

namespace scoria_extender {

namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using boost::system::error_code;
using Clock = std::chrono::steady_clock;

// Errors that mean a reused connection had been closed by the server
// before it saw our request: worth one more try on a new connection.
bool stale_connection(const error_code& ec) {
  return ec == http::error::end_of_stream || ec == asio::error::eof ||
         ec == asio::error::connection_reset || ec == asio::error::broken_pipe ||
         ec == http::error::partial_message;
}

}  // namespace

struct HttpClient::Impl {
  asio::io_context ioc{1};
  tcp::resolver resolver{ioc};
  std::optional<tcp::socket> socket;
  boost::beast::flat_buffer buffer;
  std::chrono::milliseconds timeout;
  size_t max_body;

  // One exchange on the current connection, connecting first if there is
  // none. Runs the io_context until the exchange ends or `deadline`, then
  // cancels whatever is still pending. `reused` tells whether the
  // connection existed before.
  HttpResult exchange(const Endpoint& ep, const http::request<http::string_body>& req,
                      Clock::time_point deadline, bool& reused) {
    HttpResult out;
    error_code failure;
    const char* stage = "connect";
    std::optional<http::response_parser<http::string_body>> parser;
    parser.emplace();
    parser->body_limit(max_body);
    reused = socket.has_value();

    auto on_read = [&](error_code ec, size_t) {
      if (ec) {
        failure = ec;
        return;
      }
      out.transport_ok = true;
    };
    auto on_write = [&](error_code ec, size_t) {
      if (ec) {
        failure = ec;
        return;
      }
      stage = "read";
      http::async_read(*socket, buffer, *parser, on_read);
    };
    auto send = [&] {
      stage = "write";
      http::async_write(*socket, req, on_write);
    };
    auto on_connect = [&](error_code ec, const tcp::endpoint&) {
      if (ec) {
        failure = ec;
        return;
      }
      socket->set_option(tcp::no_delay(true), ec);
      send();
    };
    auto on_resolve = [&](error_code ec, tcp::resolver::results_type results) {
      if (ec) {
        failure = ec;
        return;
      }
      stage = "connect";
      asio::async_connect(*socket, results, on_connect);
    };

    if (socket) {
      send();
    } else {
      socket.emplace(ioc);
      buffer.clear();
      stage = "resolve";
      resolver.async_resolve(ep.host, ep.port, on_resolve);
    }
    ioc.restart();
    ioc.run_until(deadline);
    if (!ioc.stopped()) {
      // Out of time: cancel what is pending and let its handler run.
      resolver.cancel();
      error_code ignored;
      socket->close(ignored);
      ioc.restart();
      ioc.run();
      out = HttpResult{};
      out.error =
          std::string("timed out (") + stage + ") after " + std::to_string(timeout.count()) + "ms";
      socket.reset();
      return out;
    }
    if (!out.transport_ok) {
      out.error = std::string(stage) + ": " + failure.message();
      if (failure == http::error::body_limit)
        out.error = "response body larger than " + std::to_string(max_body) + " bytes";
      // A stale keep-alive connection is retried by the caller.
      if (!(reused && stale_connection(failure))) reused = false;
      error_code ignored;
      socket->close(ignored);
      socket.reset();
      return out;
    }
    reused = false;
    http::response<http::string_body> res = parser->release();
    // The parser's own limit was seen to let a body through now and then
    // under load; the size is checked again here.
    if (res.body().size() > max_body) {
      out = HttpResult{};
      out.error = "response body larger than " + std::to_string(max_body) + " bytes";
      error_code ignored;
      socket->close(ignored);
      socket.reset();
      return out;
    }
    out.status = static_cast<int>(res.result_int());
    out.body = std::move(res.body());
    if (!res.keep_alive()) {
      error_code ignored;
      socket->close(ignored);
      socket.reset();
    }
    return out;
  }
};

HttpClient::HttpClient(Endpoint endpoint, std::chrono::milliseconds timeout, size_t max_body)
    : endpoint_(std::move(endpoint)), impl_(std::make_unique<Impl>()) {
  impl_->timeout = timeout;
  impl_->max_body = max_body;
}

HttpClient::~HttpClient() = default;

void HttpClient::close() {
  if (impl_->socket) {
    error_code ignored;
    impl_->socket->close(ignored);
    impl_->socket.reset();
  }
}

HttpResult HttpClient::post(std::string_view path, std::string_view body) {
  http::request<http::string_body> req{http::verb::post,
                                       endpoint_.base_path + "/" + std::string(path), 11};
  // An IPv6 address goes in brackets, as in the URL.
  const std::string host =
      endpoint_.host.find(':') != std::string::npos ? "[" + endpoint_.host + "]" : endpoint_.host;
  req.set(http::field::host, endpoint_.port == "80" ? host : host + ":" + endpoint_.port);
  req.set(http::field::content_type, "application/json");
  req.set(http::field::user_agent, "scoria-extender");
  req.keep_alive(true);
  req.body() = std::string(body);
  req.prepare_payload();

  const Clock::time_point deadline = Clock::now() + impl_->timeout;
  bool reused = false;
  HttpResult result = impl_->exchange(endpoint_, req, deadline, reused);
  if (!result.transport_ok && reused && Clock::now() < deadline)
    result = impl_->exchange(endpoint_, req, deadline, reused);
  return result;
}

}  // namespace scoria_extender
