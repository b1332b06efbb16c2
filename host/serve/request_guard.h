// What a request must show before the API acts on it, beyond arriving on
// the listener. Being local is not enough: a browser on this machine can be
// made to send requests to 127.0.0.1 by any web page (cross-site requests)
// or by a name the page's owner points at 127.0.0.1 (DNS rebinding). So:
//  - on a loopback listener, the Host header must name this machine
//    (localhost, 127.0.0.0/8, ::1, or the --listen name): rebinding pages
//    carry their own name;
//  - a request carrying an Origin header must come from the server's own
//    origin (http://HOST:PORT as the Host header says): browsers send Origin
//    with every cross-origin request and every write, scripts and tools
//    such as scoria ctl and curl send none;
//  - a write's Content-Type, when given, must be one a form or a "simple"
//    cross-site request cannot send (JSON, YAML and the patch types);
//  - with a token, a write must carry it (compared in constant time);
//    an access review (kubectl auth can-i) writes nothing and need not.
// Refusals are Kubernetes Status objects.
#pragma once

#include <optional>
#include <string>

#include "http/server.h"

namespace scoria::serve {

class RequestGuard {
 public:
  /// `listen_name` as given to --listen; `loopback`: whether the listener
  /// is on a loopback address (the Host check applies only then).
  RequestGuard(std::string listen_name, bool loopback, std::string token);

  /// Nothing if the request may go on; else the refusal to answer with.
  std::optional<http::Reply> check(const http::Request& request) const;

 private:
  bool host_allowed(std::string_view host) const;

  std::string listen_name_;
  bool loopback_;
  std::string token_;
};

/// Compares in time that depends on `expected`'s length only, so a caller
/// cannot find a token byte by byte from answer times.
bool equal_constant_time(std::string_view given, std::string_view expected);

/// Whether `request` may write: there is no `token`, or it carries it as
/// Authorization: Bearer.
bool carries_token(const http::Request& request, std::string_view token);

}  // namespace scoria::serve
