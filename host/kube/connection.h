// One HTTP/1.1 connection to the Kubernetes API server, plain or TLS, kept
// alive across requests, on Boost.Beast. Calls block the calling thread (a
// reflector's or the writer's own) but never for longer than their timeout,
// and cancel() ends a blocked call from any thread: each call runs its
// asynchronous operation on the connection's private io_context until it
// completes, the deadline passes (the socket is closed), or it is
// cancelled.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/context.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "kube/client_config.h"

namespace scoria::kube {

using Clock = std::chrono::steady_clock;

/// No answer: the server could not be reached, the connection broke, or the
/// deadline passed. Worth retrying with backoff.
class TransportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// cancel() was called: the caller is stopping.
class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("cancelled") {}
};

struct Response {
  unsigned status = 0;
  std::string body;
  std::optional<std::chrono::seconds> retry_after;  // from a 429 or 503
};

/// The TLS settings of `config` (its CAs, its client certificate, or no
/// verification at all): shared by every connection to that server.
/// Throws InputError naming the config's origin when a PEM does not load.
std::shared_ptr<boost::asio::ssl::context> make_tls_context(const ClientConfig& config);

/// The bearer token, read again from its file when the file changes.
class TokenSource {
 public:
  explicit TokenSource(const ClientConfig& config);
  std::string current();
  /// The server refused the token: look at the file again on the next use
  /// (it may have been rotated within the last second).
  void rejected();

 private:
  std::filesystem::path file_;
  std::string token_;
  std::filesystem::file_time_type seen_{};
  Clock::time_point checked_{};
  std::mutex mutex_;
};

class Connection {
 public:
  Connection(const ClientConfig& config, std::shared_ptr<boost::asio::ssl::context> tls,
             std::shared_ptr<TokenSource> token);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  /// One request and its whole answer. `target` is the path and query
  /// (the config's path prefix is added). Throws TransportError, Cancelled.
  Response request(std::string_view method, const std::string& target, const std::string& body,
                   std::string_view content_type, Clock::duration timeout);

  /// Starts a streamed GET (a watch): sends it and reads the header. A
  /// status other than 200 is returned with the body read whole; on 200
  /// the lines follow through next_line().
  Response open_stream(const std::string& target, Clock::duration timeout);
  /// The next newline-delimited line of the stream; false when the server
  /// ended it. Throws TransportError when nothing arrives for `idle`.
  bool next_line(std::string& line, Clock::duration idle);

  /// Ends the call under way (or the next one) with Cancelled. Any thread.
  void cancel();

 private:
  struct Io;
  std::unique_ptr<Io> io_;
};

}  // namespace scoria::kube
