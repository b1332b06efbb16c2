// A small HTTP/1.1 server on Boost.Beast, run on the service's one event
// loop: it accepts connections, reads requests (bounded in size), hands each
// to the router and writes the answer back; keep-alive as the client asks.
// A handler may instead turn the connection into a stream of chunks (the
// watch endpoint), kept open until the client leaves or the server stops.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace scoria::http {

using Request = boost::beast::http::request<boost::beast::http::string_body>;
using Response = boost::beast::http::response<boost::beast::http::string_body>;

/// The open end of a streamed answer (chunked transfer encoding). Owned by
/// the connection; a handler keeps a shared_ptr and writes while
/// open() holds. Writes are queued and sent in order.
class Stream {
 public:
  virtual ~Stream() = default;
  /// Queues one chunk; ignored once the stream is closed.
  virtual void write(std::string chunk) = 0;
  /// Ends the stream (the last chunk) and closes the connection.
  virtual void close() = 0;
  virtual bool open() const = 0;
};

/// What a handler returns: a complete response, or a stream it has started
/// (the server then writes the headers and leaves the body to the handler).
struct Reply {
  Response response;
  /// Set to stream: called once the headers are on their way, with the
  /// stream to write to.
  std::function<void(std::shared_ptr<Stream>)> on_stream;
};

using Router = std::function<Reply(const Request&, const boost::asio::ip::tcp::endpoint& peer)>;

struct ServerOptions {
  std::string address = "127.0.0.1";
  unsigned short port = 8080;    // 0: an ephemeral port (see Server::port)
  size_t body_limit = 8u << 20;  // larger bodies get 413
};

/// Builds a response with a body and the usual headers.
Response make_response(unsigned status, std::string body, std::string_view content_type,
                       unsigned version = 11, bool keep_alive = true);

class Server {
 public:
  /// Binds and listens at once (so that a port clash is an error at start);
  /// throws std::system_error on failure.
  Server(boost::asio::io_context& io, ServerOptions options, Router router);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// Starts accepting on the io_context.
  void start();
  /// Stops accepting and closes every open stream.
  void stop();
  /// The port actually bound.
  unsigned short port() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace scoria::http
