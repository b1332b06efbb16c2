// A blocking HTTP/1.1 client on Boost.Beast, plain or TLS, one connection per
// request:
// what `scoria ctl` talks to `scoria serve` with.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace scoria::http {

struct ClientResult {
  unsigned status = 0;  // 0: no answer (see error)
  std::string body;
  std::string error;
};

struct Endpoint {
  std::string host = "127.0.0.1";
  unsigned short port = 8080;
  std::string token;    // sent as a bearer token when not empty
  bool tls = false;     // https: the server's certificate verified, its name checked
  std::string ca_file;  // the CA (PEM) to verify it with; empty: the system's
};

/// Parses "http://host:port", "https://host:port" (or "host:port"); false
/// if it is not one.
bool parse_endpoint(const std::string& url, Endpoint& out);

/// Percent-encodes `text` as one path segment or one query value: every byte
/// but RFC 3986's unreserved ones (A-Z a-z 0-9 - . _ ~) becomes %XX, so a name
/// holding '?', '/', '#', '%', '&' or a space stays one name in a URL.
std::string percent_encode(std::string_view text);

/// A request target "/s1/s2/..." with every segment percent-encoded.
std::string path_of(std::initializer_list<std::string_view> segments);

ClientResult request(const Endpoint& server, const std::string& method, const std::string& target,
                     const std::string& body = "");

}  // namespace scoria::http
