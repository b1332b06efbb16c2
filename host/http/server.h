// A small HTTP/1.1 server on Boost.Beast, run on the service's one event
// loop: it accepts connections, reads requests, hands each to the router and
// writes the answer back; keep-alive as the client asks. A handler may
// instead turn the connection into a stream of chunks (the watch endpoint),
// kept open until the client leaves or the server stops.
//
// Every connection is bounded, so that no client can hold the server's
// memory or file descriptors: time to send the headers, the body, and
// between requests; header and body sizes; the number of connections; and
// the bytes a stream may have queued for a client that does not read.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
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
  /// Bytes queued and not yet taken by the client, and how many it may
  /// have: a handler stops writing to a stream that reaches its limit.
  virtual size_t backlog() const = 0;
  virtual size_t backlog_limit() const = 0;
};

/// Sends the response to a request whose answer was deferred; to be called
/// once. Harmless after the client has gone.
using Respond = std::function<void(Response)>;

/// What a handler returns: a complete response, a stream it has started
/// (the server then writes the headers and leaves the body to the handler),
/// or an answer deferred until something completes (a write waiting for its
/// group's commit).
struct Reply {
  Reply() = default;
  Reply(Response r) : response(std::move(r)) {}  // NOLINT: a plain answer converts
  Response response;
  /// Set to stream: called once the headers are on their way, with the
  /// stream to write to.
  std::function<void(std::shared_ptr<Stream>)> on_stream;
  /// Set to defer: called at once with the function that sends the answer
  /// later. The connection reads nothing more until it is answered.
  std::function<void(Respond)> on_defer;
};

using Router = std::function<Reply(const Request&, const boost::asio::ip::tcp::endpoint& peer)>;

struct ServerOptions {
  std::string address = "127.0.0.1";  // an address or a name to resolve
  unsigned short port = 8080;         // 0: an ephemeral port (see Server::port)
  size_t body_limit = 8u << 20;       // larger bodies get 413
  size_t header_limit = 16u << 10;    // larger request headers get 431
  // From a connection's first byte (or its accept) to the end of the
  // request's headers; past it, 408 if anything was sent, else a close.
  std::chrono::milliseconds header_timeout{10'000};
  // From the end of the headers to the end of the body (408), and for
  // writing a response to a client that does not read it.
  std::chrono::milliseconds body_timeout{30'000};
  // A kept-alive connection waiting for its next request; also the longest
  // a stream's write may make no progress.
  std::chrono::milliseconds idle_timeout{60'000};
  // Open connections at most; beyond it new ones get 503 and are closed.
  // 0: the file descriptor limit less a reserve for the store and the rest.
  size_t max_connections = 0;
  size_t stream_buffer = 4u << 20;  // see Stream::backlog_limit
  // TLS: the certificate (PEM, with its chain) and its key, both or
  // neither; read again for new connections when the files change.
  std::string tls_cert_file;
  std::string tls_key_file;
};

/// Builds a response with a body and the usual headers.
Response make_response(unsigned status, std::string body, std::string_view content_type,
                       unsigned version = 11, bool keep_alive = true);

/// The listener could not be set up: the message names the address, the
/// port and the reason.
class ListenError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Server {
 public:
  /// Resolves the address, binds and listens at once (so that a port clash
  /// is an error at start); throws ListenError on failure.
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
  /// The address actually bound (a name in the options is resolved).
  boost::asio::ip::address address() const;
  /// The connection limit in force (ServerOptions::max_connections or the
  /// one derived from the file descriptor limit).
  size_t max_connections() const;
  /// Whether connections are served over TLS.
  bool tls() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace scoria::http
