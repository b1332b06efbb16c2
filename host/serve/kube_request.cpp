#include "serve/kube_request.h"

#include <charconv>
#include <utility>
#include <vector>

#include "api/object_meta.h"
#include "api/protobuf_body.h"
#include "api/request_path.h"
#include "api/status.h"
#include "input/documents.h"

namespace scoria::serve::kube_request {

namespace beast = boost::beast;
using api::ObjectMeta;
using api::Resource;
using nlohmann::json;

http::Reply answer(unsigned status, const json& body, unsigned version) {
  // Everything stored or echoed is UTF-8 already; `replace` keeps a slip
  // from turning an answer into an exception.
  return {http::make_response(status, body.dump(-1, ' ', false, json::error_handler_t::replace),
                              "application/json", version)};
}

http::Reply answer(unsigned status, const WatchHub::Served& written, unsigned version) {
  return {http::make_response(status, written.text, "application/json", version)};
}

std::string header(const http::Request& request, beast::http::field f) {
  const auto it = request.find(f);
  return it == request.end() ? std::string() : std::string(it->value());
}

std::string store_key(const Resource& r, const std::string& ns, const std::string& name) {
  return r.namespaced ? ns + "/" + name : name;
}

json body_value(const http::Request& request, std::string_view api_version, std::string_view kind) {
  if (api::is_protobuf(header(request, beast::http::field::content_type)))
    return api::object_from_protobuf(request.body(), api_version, kind);
  std::vector<input::Document> docs =
      input::read_documents(request.body(), "request body", input::kRequestLimits);
  if (docs.size() != 1) throw api::bad_request("the request body must hold exactly one value");
  return std::move(docs[0].value);
}

json body_object(const http::Request& request, std::string_view api_version,
                 std::string_view kind) {
  json value = body_value(request, api_version, kind);
  if (!value.is_object()) throw api::bad_request("the request body must hold exactly one object");
  return value;
}

json body_object(const http::Request& request, const Resource& r) {
  return body_object(request, api::api_version(r), r.kind);
}

int64_t parse_version(const std::string& text, const char* what) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0)
    throw api::bad_request(std::string(what) + ": \"" + text + "\" is not a resource version");
  return v;
}

json as_served(const Resource& r, json object, std::optional<int64_t> version) {
  object["apiVersion"] = api::api_version(r);
  object["kind"] = std::string(r.kind);
  if (version) ObjectMeta::stamp(object, *version);
  return object;
}

json served(const Resource& r, const std::string& text, int64_t version) {
  return as_served(r, json::parse(text), version);
}

bool query_flag(std::string_view query, std::string_view key) {
  const std::string v = api::query_param(query, key).value_or("");
  return v == "1" || v == "t" || v == "T" || v == "true" || v == "True" || v == "TRUE";
}

}  // namespace scoria::serve::kube_request
