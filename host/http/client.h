// A blocking HTTP/1.1 client on Boost.Beast, one connection per request:
// what `scoria ctl` talks to `scoria serve` with.
#pragma once

#include <string>

namespace scoria::http {

struct ClientResult {
  unsigned status = 0;  // 0: no answer (see error)
  std::string body;
  std::string error;
};

struct Endpoint {
  std::string host = "127.0.0.1";
  unsigned short port = 8080;
  std::string token;  // sent as a bearer token when not empty
};

/// Parses "http://host:port" (or "host:port"); false if it is not one.
bool parse_endpoint(const std::string& url, Endpoint& out);

ClientResult request(const Endpoint& server, const std::string& method, const std::string& target,
                     const std::string& body = "");

}  // namespace scoria::http
