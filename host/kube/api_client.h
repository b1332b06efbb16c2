// A client of one Kubernetes API server: its config, the TLS context and
// token every connection shares, and the client-side rate limit. Each
// thread that talks to the server opens connections of its own from here.
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <nlohmann/json.hpp>

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "kube/client_config.h"
#include "kube/connection.h"
#include "kube/rate_limiter.h"

namespace scoria::kube {

/// The tag of log lines about this client's work with the API server.
inline constexpr std::string_view kKubernetesLog = "kubernetes";

class ApiClient {
 public:
  /// Throws InputError when the config's certificates do not load.
  ApiClient(ClientConfig config, double qps, double burst);

  std::unique_ptr<Connection> connect() const;
  /// Waits for the rate limit; false if `stop` is set meanwhile.
  bool admit(const std::atomic<bool>& stop) { return limiter_.acquire(stop); }
  const ClientConfig& config() const { return config_; }

 private:
  ClientConfig config_;
  std::shared_ptr<boost::asio::ssl::context> tls_;
  std::shared_ptr<TokenSource> token_;
  RateLimiter limiter_;
};

/// An answer that is not the one asked for (a 4xx or 5xx), with what was
/// being done and the server's Status message.
class ApiError : public std::runtime_error {
 public:
  ApiError(const std::string& doing, Response response);
  const Response& response() const { return response_; }

 private:
  Response response_;
};

/// How deep an answer may nest: no Kubernetes object comes near it. A
/// deeper one (a hostile or broken server) is refused before it is parsed,
/// so nothing that walks it recurses that far.
inline constexpr size_t kMaxNesting = 128;

/// `body` parsed as JSON; discarded (is_discarded()) when it is not JSON
/// or nests deeper than kMaxNesting.
nlohmann::json parse_answer(std::string_view body);

/// The message of a Status answer (`body`), or the body itself, shortened.
std::string status_message(const Response& response);

}  // namespace scoria::kube
