// One accepted HTTP connection of http::Server, plain or TLS: reads requests
// under the server's limits, hands each to the router, writes the answers,
// or streams a handler's chunks. Internal to host/http.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/stream_traits.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/serializer.hpp>

#include <array>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "http/server.h"

namespace scoria::http::detail {

/// What the server holds of a connection, whatever its transport.
class Connection : public Stream {
 public:
  /// Reads the first request (after the TLS handshake, for TLS).
  virtual void start() = 0;
  /// Answers 503 at once (the server is at its connection limit) and
  /// closes; a TLS connection is closed without an answer.
  virtual void refuse_busy() = 0;
  /// Closes at once, whatever is under way.
  virtual void shutdown() = 0;
};

using TlsSocket = boost::asio::ssl::stream<boost::asio::ip::tcp::socket>;

/// Socket: boost::asio::ip::tcp::socket, or TlsSocket.
template <class Socket>
class BasicConnection final : public Connection,
                              public std::enable_shared_from_this<BasicConnection<Socket>> {
 public:
  /// `tls`: the context `socket` was made with (kept alive with it); null
  /// for a plain socket.
  BasicConnection(Socket socket, std::shared_ptr<boost::asio::ssl::context> tls,
                  std::shared_ptr<const Router> router,
                  std::shared_ptr<const ServerOptions> limits);

  void start() override;
  void refuse_busy() override;
  void shutdown() override;

  // --- Stream -------------------------------------------------------------
  void write(std::string chunk) override;
  void close() override;
  bool open() const override { return streaming_ && !closed_ && !closing_; }
  size_t backlog() const override { return pending_bytes_; }
  size_t backlog_limit() const override { return limits_->stream_buffer; }

 private:
  // What the connection waits for; a deadline means something else in each.
  enum class Phase { Idle, Header, Body, Respond, Stream, Linger };

  void wait_request(bool first);
  void read_header();
  void on_header(boost::beast::error_code ec);
  void on_body(boost::beast::error_code ec);
  // A framing fault or a timeout: the status, why, and then a close.
  bool refused_for(boost::beast::error_code ec);
  void fail(unsigned status, std::string message);
  void handle();
  void send(Response res);
  // Half-closes and reads what the client still sends for a moment, so it
  // sees the answer instead of a reset.
  void linger();
  void drain();

  void start_stream(Reply reply);
  void watch_peer();
  void write_next_chunk();
  void write_last_chunk();

  void arm(std::chrono::milliseconds after, Phase phase);
  void disarm();
  void on_deadline();

  static constexpr bool kTls = std::is_same_v<Socket, TlsSocket>;
  boost::asio::ip::tcp::socket& lowest() { return boost::beast::get_lowest_layer(socket_); }

  std::shared_ptr<boost::asio::ssl::context> tls_;  // declared first: socket_ uses it
  Socket socket_;
  boost::asio::steady_timer deadline_;
  std::shared_ptr<const Router> router_;
  std::shared_ptr<const ServerOptions> limits_;
  boost::asio::ip::tcp::endpoint peer_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  Phase phase_ = Phase::Header;
  bool timed_out_ = false;

  bool streaming_ = false;
  bool header_sent_ = false;
  bool closing_ = false;
  bool closed_ = false;
  std::shared_ptr<boost::beast::http::response<boost::beast::http::empty_body>> header_;
  std::shared_ptr<boost::beast::http::response_serializer<boost::beast::http::empty_body>>
      serializer_;
  std::deque<std::string> pending_;
  size_t pending_bytes_ = 0;
  std::array<char, 512> scratch_{};
};

}  // namespace scoria::http::detail
