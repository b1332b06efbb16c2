// The local Kubernetes API (kube_api.h): the routing of a request, and the
// reads, get, list (as a Table for kubectl) and watch. The writes are
// kube_api_writes.cpp; reading requests and writing answers, kube_request.h.
#include "serve/kube_api.h"

#include <algorithm>
#include <boost/beast/http/field.hpp>
#include <boost/beast/http/verb.hpp>

#include <charconv>
#include <vector>

#include "api/access_review.h"
#include "api/decision_reports.h"
#include "api/discovery.h"
#include "api/dry_run.h"
#include "api/openapi.h"
#include "api/selectors.h"
#include "api/status.h"
#include "api/table.h"
#include "model/error.h"
#include "schema/field_schema.h"
#include "serve/kube_request.h"
#include "serve/request_guard.h"
#include "serve/watch_hub.h"
#include "serve/written_objects.h"

namespace scoria::serve {

namespace {

namespace beast = boost::beast;
using api::ApiError;
using api::Resource;
using api::ResourcePath;
using nlohmann::json;
using Verb = beast::http::verb;
using namespace kube_request;

// The Table kubectl get asks for (Accept: ...;as=Table;g=meta.k8s.io), if it
// asked for one.
std::optional<json> as_table(const http::Request& request, const Resource& r, const json& items,
                             const json& meta, std::string_view query) {
  if (!api::wants_table(header(request, beast::http::field::accept))) return std::nullopt;
  const auto include = api::include_object(api::query_param(query, "includeObject"));
  if (!include) throw ApiError(400, "BadRequest", "includeObject: use None, Metadata or Object");
  return api::table(r, items, meta, *include, std::chrono::system_clock::now());
}

/// A watch event line, as the API server writes it (the keys in the order
/// nlohmann writes them, so that it is one text however it was made).
std::string watch_line(std::string_view type, std::string_view object_text) {
  std::string line;
  line.reserve(object_text.size() + type.size() + 24);
  line.append(R"({"object":)")
      .append(object_text)
      .append(R"(,"type":")")
      .append(type)
      .append("\"}\n");
  return line;
}

/// Which objects a list or watch selects.
struct Selection {
  std::string namespace_;
  std::string name;  // a watch of one object (fieldSelector metadata.name or the path)
  api::LabelSelector labels;
  api::FieldSelector fields;

  bool matches(const Resource& r, const json& object) const {
    const json& meta = object["metadata"];
    if (r.namespaced && !namespace_.empty() && meta.value("namespace", "") != namespace_)
      return false;
    if (!name.empty() && meta.value("name", "") != name) return false;
    return labels.matches(object) && fields.matches(object);
  }
};

Selection selection(const ResourcePath& at, std::string_view query) {
  Selection s;
  s.namespace_ = at.namespace_;
  s.name = at.name;
  if (auto l = api::query_param(query, "labelSelector")) s.labels = api::LabelSelector::parse(*l);
  if (auto f = api::query_param(query, "fieldSelector"))
    s.fields = api::FieldSelector::parse(*f, at.resource->kind);
  return s;
}

}  // namespace

std::optional<http::Reply> KubeApi::handle(const http::Request& request, std::string_view path,
                                           std::string_view query) {
  warnings_.clear();
  std::optional<http::Reply> reply = respond(request, path, query);
  dry_run_ = false;
  if (reply)
    for (const std::string& w : warnings_) reply->response.insert(beast::http::field::warning, w);
  return reply;
}

std::optional<http::Reply> KubeApi::respond(const http::Request& request, std::string_view path,
                                            std::string_view query) {
  const unsigned v = request.version();
  try {
    api::check_target(path);
    api::check_target(query);
    if (auto doc = api::discovery_document(path)) {
      if (request.method() != Verb::get)
        throw ApiError(405, "MethodNotAllowed", "discovery is read with GET");
      return answer(200, *doc, v);
    }
    if (path == api::kAccessReviewPath) {
      if (request.method() != Verb::post)
        throw ApiError(405, "MethodNotAllowed", "selfsubjectaccessreviews are only created");
      json review = body_object(request, "authorization.k8s.io/v1", "SelfSubjectAccessReview");
      return answer(201,
                    api::review_access(std::move(review), carries_token(request, write_token_)), v);
    }
    if (path.starts_with("/openapi/")) {
      if (request.method() != Verb::get)
        throw ApiError(405, "MethodNotAllowed", "OpenAPI documents are read with GET");
      // kubectl asks for v2 as protobuf alone; refused, it goes without.
      if (path == "/openapi/v2" &&
          !api::accepts_openapi_json(header(request, beast::http::field::accept)))
        throw ApiError(406, "NotAcceptable",
                       "only application/json is served for /openapi/v2, not " +
                           header(request, beast::http::field::accept));
      if (auto doc = api::openapi_document(path)) return answer(200, *doc, v);
      throw ApiError(404, "NotFound", "the server could not find the requested resource");
    }
    const std::optional<ResourcePath> at = api::parse_resource_path(path);
    if (!at) return std::nullopt;
    return dispatch(request, *at, query);
  } catch (const ApiError& e) {
    return answer(e.code(), e.status(), v);
  } catch (const FieldError& e) {
    return answer(422, ApiError(422, "Invalid", e.what()).status(), v);
  } catch (const InputError& e) {
    return answer(400, api::bad_request(e.what()).status(), v);
  } catch (const json::exception& e) {
    return answer(400, api::bad_request(std::string("malformed JSON: ") + e.what()).status(), v);
  } catch (const store::StoreError& e) {
    return answer(500, ApiError(500, "InternalError", e.what()).status(), v);
  }
}

http::Reply KubeApi::dispatch(const http::Request& request, const ResourcePath& at,
                              std::string_view query) {
  const Resource& r = *at.resource;
  const Verb method = request.method();
  const bool watching = at.watch_prefix || query_flag(query, "watch");
  dry_run_ = false;
  if (method == Verb::post) dry_run_ = api::requested_dry_run(query, "CreateOptions");
  if (method == Verb::put) dry_run_ = api::requested_dry_run(query, "UpdateOptions");
  if (method == Verb::patch) dry_run_ = api::requested_dry_run(query, "PatchOptions");
  if (method == Verb::delete_) dry_run_ = api::requested_dry_run(query, "DeleteOptions");
  if (!at.subresource.empty()) {
    if (!api::has_subresource(r, at.subresource))
      throw ApiError(404, "NotFound", "the server could not find the requested resource");
    if (at.subresource == "binding" && method == Verb::post) return bind(request, at);
    if (at.subresource == "eviction" && method == Verb::post) return evict(request, at);
    if (at.subresource == "status") {
      if (method == Verb::get) {
        const auto found = store_.get(api::store_kind(r), store_key(r, at.namespace_, at.name));
        if (!found) throw api::not_found(r.group, r.plural, at.name);
        return answer(200, served(r, found->json, found->resource_version), request.version());
      }
      if (method == Verb::put) return update(request, at, query);
      if (method == Verb::patch) return patch(request, at, query);
    }
    throw ApiError(405, "MethodNotAllowed",
                   "the server does not allow this method on the requested resource");
  }
  if (at.name.empty()) {
    if (method == Verb::get) return watching ? watch(request, at, query) : list(request, at, query);
    if (method == Verb::post) return create(request, at, query);
  } else {
    if (method == Verb::get) {
      if (watching) return watch(request, at, query);
      const auto found = store_.get(api::store_kind(r), store_key(r, at.namespace_, at.name));
      if (!found) throw api::not_found(r.group, r.plural, at.name);
      json object = served(r, found->json, found->resource_version);
      const json meta = {{"resourceVersion", std::to_string(found->resource_version)}};
      if (auto table = as_table(request, r, json::array({object}), meta, query))
        return answer(200, *table, request.version());
      return answer(200, object, request.version());
    }
    if (method == Verb::put) return update(request, at, query);
    if (method == Verb::patch) return patch(request, at, query);
    if (method == Verb::delete_) return remove(request, at, query);
  }
  throw ApiError(405, "MethodNotAllowed",
                 "the server does not allow this method on the requested resource");
}

http::Reply KubeApi::list(const http::Request& request, const ResourcePath& at,
                          std::string_view query) {
  const Resource& r = *at.resource;
  const Selection sel = selection(at, query);
  size_t limit = 0;
  if (auto l = api::query_param(query, "limit"); l && !l->empty())
    limit = static_cast<size_t>(parse_version(*l, "limit"));
  // continue: the key the previous page ended at.
  const std::string after = api::query_param(query, "continue").value_or("");
  const int64_t version = store_.latest_version();
  json items = json::array();
  std::string next;
  for (const store::StoredObject& o : store_.list(api::store_kind(r))) {
    if (!after.empty() && o.key <= after) continue;
    if (r.namespaced && !at.namespace_.empty() && !o.key.starts_with(at.namespace_ + "/")) continue;
    json object = served(r, o.json, o.resource_version);
    if (!sel.matches(r, object)) continue;
    if (limit > 0 && items.size() == limit) {
      next = items.back()["metadata"].value("namespace", "");
      next = store_key(r, next, items.back()["metadata"].value("name", ""));
      break;
    }
    items.push_back(std::move(object));
  }
  json meta = {{"resourceVersion", std::to_string(version)}};
  if (!next.empty()) meta["continue"] = next;
  if (auto table = as_table(request, r, items, meta, query))
    return answer(200, *table, request.version());
  return answer(200,
                json{{"kind", std::string(r.kind) + "List"},
                     {"apiVersion", api::api_version(r)},
                     {"metadata", meta},
                     {"items", std::move(items)}},
                request.version());
}

http::Reply KubeApi::watch(const http::Request& request, const ResourcePath& at,
                           std::string_view query) {
  const Resource& r = *at.resource;
  Selection sel = selection(at, query);
  const std::string rv = api::query_param(query, "resourceVersion").value_or("");
  std::optional<WatchHub::Clock::time_point> deadline;
  if (auto t = api::query_param(query, "timeoutSeconds"); t && !t->empty())
    deadline = WatchHub::Clock::now() +
               std::chrono::seconds(std::min<int64_t>(parse_version(*t, "timeoutSeconds"), 86400));
  // kubectl get -w asks for Tables: each event's object is then a Table of
  // one row, its column definitions in the first event only, as the API
  // server sends them.
  std::optional<api::IncludeObject> table;
  if (api::wants_table(header(request, beast::http::field::accept))) {
    table = api::include_object(api::query_param(query, "includeObject"));
    if (!table) throw ApiError(400, "BadRequest", "includeObject: use None, Metadata or Object");
  }
  auto headed = std::make_shared<bool>(false);
  const auto event_object = [&r, table, headed](json object, int64_t version) -> json {
    if (!table) return object;
    json t = api::table(r, json::array({std::move(object)}),
                        json{{"resourceVersion", std::to_string(version)}}, *table,
                        std::chrono::system_clock::now());
    if (std::exchange(*headed, true)) t["columnDefinitions"] = nullptr;
    return t;
  };
  int64_t after = store_.latest_version();
  std::string initial;
  if (rv.empty() || rv == "0") {
    // Start at the current state: a synthetic ADDED for every object.
    for (const store::StoredObject& o : store_.list(api::store_kind(r))) {
      json object = served(r, o.json, o.resource_version);
      if (sel.matches(r, object))
        initial +=
            json{{"type", "ADDED"}, {"object", event_object(std::move(object), o.resource_version)}}
                .dump() +
            "\n";
    }
  } else {
    after = parse_version(rv, "resourceVersion");
    if (after > store_.latest_version()) {
      // A version this store never issued; the API server answers so after
      // waiting a moment for it, and nothing here can make it appear.
      throw ApiError(504, "Timeout",
                     "Too large resource version: " + rv +
                         ", current: " + std::to_string(store_.latest_version()),
                     json{{"causes", json::array({{{"reason", "ResourceVersionTooLarge"},
                                                   {"message", "Too large resource version"}}})},
                          {"retryAfterSeconds", 1}});
    }
    const int64_t oldest = store_.oldest_event_version();
    if (oldest > 0 && after < oldest - 1) {
      // As the API server says it, inside the stream: clients relist.
      const ApiError gone(
          410, "Expired",
          "too old resource version: " + rv + " (" + std::to_string(oldest - 1) + ")");
      initial = json{{"type", "ERROR"}, {"object", gone.status()}}.dump() + "\n";
      http::Reply reply{http::make_response(200, "", "application/json", request.version())};
      reply.on_stream = [initial](std::shared_ptr<http::Stream> stream) {
        stream->write(initial);
        stream->close();
      };
      return reply;
    }
  }
  const std::string kind(r.kind);
  const std::string stored_as(api::store_kind(r));
  WatchHub::Render render = [&r, kind, stored_as, sel = std::move(sel), table, event_object](
                                const store::Event& e,
                                const WatchHub::Served* written) -> std::optional<std::string> {
    if (e.kind != stored_as) return std::nullopt;
    if (e.type != "ADDED" && e.type != "MODIFIED" && e.type != "DELETED") return std::nullopt;
    // What this process wrote comes served already; the rest is parsed.
    if (written != nullptr) {
      if (!sel.matches(r, *written->object)) return std::nullopt;
      if (!table) return watch_line(e.type, written->text);
      return watch_line(e.type, event_object(*written->object, e.resource_version).dump());
    }
    json object = json::parse(e.json, nullptr, false);
    if (!object.is_object()) return std::nullopt;
    object["apiVersion"] = api::api_version(r);
    object["kind"] = kind;
    api::ObjectMeta::stamp(object, e.resource_version);
    if (!sel.matches(r, object)) return std::nullopt;
    return watch_line(e.type, event_object(std::move(object), e.resource_version).dump());
  };
  // A BOOKMARK is an object of the kind with only its resourceVersion, as
  // the API server sends it.
  WatchHub::Bookmark bookmark;
  if (const auto allow = api::query_param(query, "allowWatchBookmarks");
      allow && (*allow == "true" || *allow == "1"))
    bookmark = [kind, api_version = api::api_version(r)](int64_t version) {
      return json{{"type", "BOOKMARK"},
                  {"object",
                   {{"kind", kind},
                    {"apiVersion", api_version},
                    {"metadata", {{"resourceVersion", std::to_string(version)}}}}}}
                 .dump() +
             "\n";
    };
  http::Reply reply{http::make_response(200, "", "application/json", request.version())};
  reply.on_stream = [this, initial = std::move(initial), after, render = std::move(render),
                     deadline,
                     bookmark = std::move(bookmark)](std::shared_ptr<http::Stream> stream) mutable {
    if (!initial.empty()) stream->write(std::move(initial));
    watchers_.add(std::move(stream), after, std::move(render), deadline, std::move(bookmark));
  };
  return reply;
}

}  // namespace scoria::serve
