// A small synchronous HTTP/1.1 client for the extender: POSTs JSON to one
// server over one keep-alive connection, each exchange (connect, write,
// read) bounded by one timeout. Beast stays inside http_client.cpp so that
// only that translation unit pays for its templates.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace scoria_extender {

/// Where the extender listens: Volcano's extender.urlPrefix, split.
struct Endpoint {
  std::string host;
  std::string port;       // "80" when the URL names none
  std::string base_path;  // without a trailing '/'; empty for the root
};

/// What one exchange gave: a response (any status) or a transport failure.
struct HttpResult {
  bool transport_ok = false;  // false: no response (refused, timed out, malformed)
  int status = 0;             // the HTTP status when transport_ok
  std::string body;
  std::string error;  // why, when !transport_ok
};

class HttpClient {
 public:
  /// `max_body`: a longer response body is a failure (Volcano's 10 MiB).
  HttpClient(Endpoint endpoint, std::chrono::milliseconds timeout, size_t max_body);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  /// POSTs `body` as application/json to base_path + "/" + path. Reuses the
  /// open connection if there is one (retrying once on a fresh one if the
  /// server had closed it), else connects. Never throws for network errors.
  HttpResult post(std::string_view path, std::string_view body);

  /// Drops the keep-alive connection, if any.
  void close();

  const Endpoint& endpoint() const { return endpoint_; }

 private:
  struct Impl;
  Endpoint endpoint_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace scoria_extender
