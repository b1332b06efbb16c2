#include "serve/request_guard.h"

#include <boost/asio/ip/address.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/beast/http/verb.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <nlohmann/json.hpp>

#include "api/access_review.h"
#include "api/media_type.h"
#include "api/protobuf_body.h"
#include "api/status.h"

namespace scoria::serve {

namespace {

namespace bhttp = boost::beast::http;

// The media types a write may declare: none of them can be sent by an HTML
// form or a cross-site request without a CORS preflight, which this server
// never grants. Kubernetes' protobuf is what kubectl's typed clients send.
constexpr std::array<std::string_view, 7> kWriteTypes = {"application/json",
                                                         "application/yaml",
                                                         "application/merge-patch+json",
                                                         "application/strategic-merge-patch+json",
                                                         "application/json-patch+json",
                                                         "application/apply-patch+yaml",
                                                         api::kProtobufMediaType};

// A Status, as every Kubernetes client reads an error (kubectl shows its
// message; without one it says only "unknown").
http::Reply refuse(unsigned status, std::string_view reason, std::string_view message,
                   unsigned version) {
  return {
      http::make_response(status,
                          api::ApiError(status, std::string(reason), std::string(message))
                                  .status()
                                  .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
                              "\n",
                          "application/json", version)};
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// "name", "name:port", "[v6]" or "[v6]:port" to the name alone.
std::string_view host_part(std::string_view host) {
  if (host.starts_with('[')) {
    const size_t close = host.find(']');
    return close == std::string_view::npos ? host : host.substr(1, close - 1);
  }
  const size_t colon = host.find(':');
  return colon == std::string_view::npos ? host : host.substr(0, colon);
}

std::string_view sv(boost::beast::string_view s) { return {s.data(), s.size()}; }

bool is_write(bhttp::verb v) {
  return v == bhttp::verb::post || v == bhttp::verb::put || v == bhttp::verb::patch ||
         v == bhttp::verb::delete_;
}

}  // namespace

bool equal_constant_time(std::string_view given, std::string_view expected) {
  unsigned char diff = given.size() == expected.size() ? 0 : 1;
  for (size_t i = 0; i < expected.size(); ++i) {
    const char g = i < given.size() ? given[i] : '\0';
    diff = static_cast<unsigned char>(
        diff | (static_cast<unsigned char>(g) ^ static_cast<unsigned char>(expected[i])));
  }
  return diff == 0;
}

bool carries_token(const http::Request& request, std::string_view token) {
  if (token.empty()) return true;
  const auto auth = request.find(bhttp::field::authorization);
  const std::string_view given = auth == request.end() ? std::string_view{} : sv(auth->value());
  constexpr std::string_view kBearer = "Bearer ";
  return given.starts_with(kBearer) && equal_constant_time(given.substr(kBearer.size()), token);
}

RequestGuard::RequestGuard(std::string listen_name, bool loopback, std::string token)
    : listen_name_(lower(listen_name)), loopback_(loopback), token_(std::move(token)) {}

bool RequestGuard::host_allowed(std::string_view host) const {
  const std::string name = lower(host_part(trim(host)));
  if (name == "localhost" || name == listen_name_) return true;
  boost::system::error_code ec;
  const auto ip = boost::asio::ip::make_address(name, ec);
  return !ec && ip.is_loopback();
}

std::optional<http::Reply> RequestGuard::check(const http::Request& request) const {
  const unsigned v = request.version();
  const auto host = request.find(bhttp::field::host);
  if (loopback_ && host != request.end() && !host_allowed(sv(host->value())))
    return refuse(403, "Forbidden",
                  "Host \"" + std::string(host->value()) +
                      "\" does not name this machine; this server listens on loopback and "
                      "answers to localhost, 127.0.0.1 or ::1 only",
                  v);

  if (const auto origin = request.find(bhttp::field::origin); origin != request.end()) {
    const std::string own =
        host == request.end() ? std::string() : "http://" + lower(trim(sv(host->value())));
    if (own.empty() || lower(trim(sv(origin->value()))) != own)
      return refuse(403, "Forbidden",
                    "requests from web pages of another origin (Origin: " +
                        std::string(origin->value()) + ") are refused",
                    v);
  }

  const std::string_view target(request.target().data(), request.target().size());
  // Every write path: the core group's /api/ and the named groups' /apis/.
  if (!is_write(request.method()) || !(target.starts_with("/api/") || target.starts_with("/apis/")))
    return std::nullopt;

  // An access review writes nothing: whoever may read may ask it (and is
  // told whether they may write).
  const bool review = request.method() == bhttp::verb::post &&
                      target.substr(0, target.find('?')) == api::kAccessReviewPath;
  if (!review && !carries_token(request, token_))
    return refuse(401, "Unauthorized", "writes need the header Authorization: Bearer <token>", v);

  if (const auto type = request.find(bhttp::field::content_type); type != request.end()) {
    const std::string_view value = sv(type->value());
    const std::string media = api::media_type(value);
    if (std::find(kWriteTypes.begin(), kWriteTypes.end(), media) == kWriteTypes.end())
      return refuse(415, "UnsupportedMediaType",
                    "Content-Type " + std::string(value) +
                        " is not accepted for writes; send application/yaml or application/json",
                    v);
  }
  return std::nullopt;
}

}  // namespace scoria::serve
