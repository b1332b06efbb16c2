// How the local Kubernetes API (kube_api.h) reads a request and writes its
// answer: request headers, bodies (JSON, YAML or protobuf, read under the
// request limits) and flags; store keys and resource versions; objects as
// a client sees them; JSON answers. Internal to host/serve.
#pragma once

#include <boost/beast/http/field.hpp>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "api/resources.h"
#include "http/server.h"
#include "serve/watch_hub.h"

namespace scoria::serve::kube_request {

/// `body` as a JSON answer with `status`.
http::Reply answer(unsigned status, const nlohmann::json& body, unsigned version);
/// A written object's answer: the text its writer made of it.
http::Reply answer(unsigned status, const WatchHub::Served& written, unsigned version);

/// A request header's value; empty when absent.
std::string header(const http::Request& request, boost::beast::http::field f);
/// A boolean query parameter, read as Go's strconv.ParseBool reads it
/// (clients send "true", "True" or "1").
bool query_flag(std::string_view query, std::string_view key);

/// The one value of a request body (JSON, or YAML as kubectl may send),
/// read under the request limits: nesting past them is refused before it
/// can exhaust the stack. A protobuf body (kubectl's typed clients) is read
/// as the `api_version` `kind` the endpoint takes, into the same JSON.
nlohmann::json body_value(const http::Request& request, std::string_view api_version,
                          std::string_view kind);
/// The one object of a request body.
nlohmann::json body_object(const http::Request& request, std::string_view api_version,
                           std::string_view kind);
/// The one object of a request body that writes `r`.
nlohmann::json body_object(const http::Request& request, const api::Resource& r);

/// Where the store keeps an object of `r`: "ns/name", or the name.
std::string store_key(const api::Resource& r, const std::string& ns, const std::string& name);
/// A resourceVersion a request gives; 400 (ApiError) unless one. `what`
/// names it in the message.
int64_t parse_version(const std::string& text, const char* what);

/// An object as a client sees it: apiVersion and kind set, and its
/// resourceVersion (none: as a dry-run create answers).
nlohmann::json as_served(const api::Resource& r, nlohmann::json object,
                         std::optional<int64_t> version);
/// A stored object as a client sees it.
nlohmann::json served(const api::Resource& r, const std::string& text, int64_t version);

}  // namespace scoria::serve::kube_request
