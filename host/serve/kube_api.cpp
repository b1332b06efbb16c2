#include "serve/kube_api.h"

#include <algorithm>
#include <boost/beast/http/field.hpp>
#include <boost/beast/http/verb.hpp>

#include <charconv>
#include <vector>

#include "api/access_review.h"
#include "api/builtin_queues.h"
#include "api/decision_reports.h"
#include "api/discovery.h"
#include "api/dry_run.h"
#include "api/field_validation.h"
#include "api/managed_fields.h"
#include "api/openapi.h"
#include "api/patch.h"
#include "api/pod_update.h"
#include "api/protobuf_body.h"
#include "api/selectors.h"
#include "api/server_side_apply.h"
#include "api/status.h"
#include "api/table.h"
#include "decode/field_reader.h"
#include "decode/object_decoder.h"
#include "decode/object_names.h"
#include "input/documents.h"
#include "model/error.h"
#include "schema/field_schema.h"
#include "serve/admission.h"
#include "serve/job_controller.h"
#include "serve/pod_group_controller.h"
#include "serve/request_guard.h"
#include "serve/watch_hub.h"
#include "serve/written_objects.h"

namespace scoria::serve {

namespace {

namespace beast = boost::beast;
using api::ApiError;
using api::ObjectMeta;
using api::Resource;
using api::ResourcePath;
using nlohmann::json;
using Verb = beast::http::verb;

http::Reply answer(unsigned status, const json& body, unsigned version) {
  // Everything stored or echoed is UTF-8 already; `replace` keeps a slip
  // from turning an answer into an exception.
  return {http::make_response(status, body.dump(-1, ' ', false, json::error_handler_t::replace),
                              "application/json", version)};
}

/// A written object's answer: the text its writer made of it.
/// A new Namespace as the API server's namespace strategy makes it: the
/// label naming it (kubernetes.io/metadata.name), the kubernetes finalizer
/// and phase Active.
void prepare_namespace(json& ns) {
  json& meta = ns["metadata"];
  json& labels = meta["labels"];
  if (!labels.is_object()) labels = json::object();
  labels["kubernetes.io/metadata.name"] = meta.value("name", "");
  json& spec = ns["spec"];
  if (!spec.is_object()) spec = json::object();
  if (!spec.contains("finalizers")) spec["finalizers"] = json::array({"kubernetes"});
  ns["status"] = {{"phase", "Active"}};
}

/// The namespaces every cluster has (kube-apiserver's system namespaces
/// controller makes them); they may not be deleted.
constexpr std::string_view kSystemNamespaces[] = {"default", "kube-system", "kube-public",
                                                  "kube-node-lease"};

/// A new Queue opened, as Volcano's queue controller opens one as soon as
/// it is created (status.state Open, unless the object says otherwise).
void open_queue(json& queue) {
  json& status = queue["status"];
  if (!status.is_object()) status = json::object();
  if (!status.contains("state")) status["state"] = "Open";
}

http::Reply answer(unsigned status, const WatchHub::Served& written, unsigned version) {
  return {http::make_response(status, written.text, "application/json", version)};
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

std::string header(const http::Request& request, beast::http::field f) {
  const auto it = request.find(f);
  return it == request.end() ? std::string() : std::string(it->value());
}

// The Table kubectl get asks for (Accept: ...;as=Table;g=meta.k8s.io), if it
// asked for one.
std::optional<json> as_table(const http::Request& request, const Resource& r, const json& items,
                             const json& meta, std::string_view query) {
  if (!api::wants_table(header(request, beast::http::field::accept))) return std::nullopt;
  const auto include = api::include_object(api::query_param(query, "includeObject"));
  if (!include) throw ApiError(400, "BadRequest", "includeObject: use None, Metadata or Object");
  return api::table(r, items, meta, *include, std::chrono::system_clock::now());
}

std::string store_key(const Resource& r, const std::string& ns, const std::string& name) {
  return r.namespaced ? ns + "/" + name : name;
}

/// The one value of a request body (JSON, or YAML as kubectl may send),
/// read under the request limits: nesting past them is refused before it
/// can exhaust the stack. A protobuf body (kubectl's typed clients) is read
/// as the `api_version` `kind` the endpoint takes, into the same JSON.
json body_value(const http::Request& request, std::string_view api_version, std::string_view kind) {
  if (api::is_protobuf(header(request, beast::http::field::content_type)))
    return api::object_from_protobuf(request.body(), api_version, kind);
  std::vector<input::Document> docs =
      input::read_documents(request.body(), "request body", input::kRequestLimits);
  if (docs.size() != 1) throw api::bad_request("the request body must hold exactly one value");
  return std::move(docs[0].value);
}

/// The one object of a request body.
json body_object(const http::Request& request, std::string_view api_version,
                 std::string_view kind) {
  json value = body_value(request, api_version, kind);
  if (!value.is_object()) throw api::bad_request("the request body must hold exactly one object");
  return value;
}

/// The one object of a request body that writes `r`.
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

/// An object as a client sees it: apiVersion and kind set, and its
/// resourceVersion (none: as a dry-run create answers).
json as_served(const Resource& r, json object, std::optional<int64_t> version) {
  object["apiVersion"] = api::api_version(r);
  object["kind"] = std::string(r.kind);
  if (version) ObjectMeta::stamp(object, *version);
  return object;
}

/// A stored object as a client sees it.
json served(const Resource& r, const std::string& text, int64_t version) {
  return as_served(r, json::parse(text), version);
}

/// The error a conditional write that was not `Written` answers with.
void refuse_unless_written(const Resource& r, const std::string& name,
                           store::PutResult::Status status) {
  switch (status) {
    case store::PutResult::Exists:
      throw api::already_exists(r.group, r.plural, name);
    case store::PutResult::Missing:
      throw api::not_found(r.group, r.plural, name);
    case store::PutResult::Conflict:
      throw api::conflict(r.group, r.plural, name);
    case store::PutResult::Written:
      return;
  }
}

/// A written object as served (the answer, and what watchers are sent):
/// apiVersion and kind set, at `version` (none: as a dry-run create).
WatchHub::Served served_as(const Resource& r, const std::string& key, json object,
                           std::optional<int64_t> version) {
  object = as_served(r, std::move(object), version);
  WatchHub::Served served{std::string(api::store_kind(r)), key, nullptr,
                          object.dump(-1, ' ', false, json::error_handler_t::replace)};
  served.object = std::make_shared<const json>(std::move(object));
  return served;
}

/// Refuses what the scheduler could not read, naming the field (422), and
/// names the API server would refuse; what a scheduled kind decodes to
/// (`text` is the object as it will be stored).
std::vector<decode::Decoded> validate(const Resource& r, const json& object,
                                      std::string_view text) {
  const json& meta = object["metadata"];
  const std::string name = meta.value("name", "");
  if (name.empty()) {
    throw api::invalid(
        r.group, r.kind, name,
        {{"FieldValueRequired", "name or generateName is required", "metadata.name"}});
  }
  if (!r.scheduled) {
    if (const auto why = decode::subdomain_error(name))
      throw api::invalid(r.group, r.kind, name, {{"FieldValueInvalid", *why, "metadata.name"}});
    return {};
  }
  std::vector<decode::Decoded> out;
  try {
    decode::decode_document(object, std::string(r.kind) + " " + name, 1, out, text);
  } catch (const FieldError& e) {
    throw api::invalid(r.group, r.kind, name, {{"FieldValueInvalid", e.detail(), e.field()}});
  }
  return out;
}

/// A boolean query parameter, read as Go's strconv.ParseBool reads it
/// (clients send "true", "True" or "1").
bool query_flag(std::string_view query, std::string_view key) {
  const std::string v = api::query_param(query, key).value_or("");
  return v == "1" || v == "t" || v == "T" || v == "true" || v == "True" || v == "TRUE";
}

/// Who a write is by, for metadata.managedFields: the fieldManager it
/// names, else one made from its User-Agent, as kube-apiserver names it.
api::Writer writer_of(const http::Request& request, const Resource& r, const ResourcePath& at,
                      std::string_view query) {
  api::Writer w;
  w.manager = api::query_param(query, "fieldManager").value_or("");
  if (w.manager.empty())
    w.manager = api::default_manager(header(request, beast::http::field::user_agent));
  w.api_version = api::api_version(r);
  w.subresource = at.subresource;
  w.time = ObjectMeta::rfc3339(std::chrono::system_clock::now());
  w.has_status_subresource = api::has_subresource(r, "status");
  return w;
}

/// The field schema of a resource's objects (nullptr: deduced from them).
const schema::Type* schema_of(const Resource& r) {
  return schema::find_kind(api::api_version(r), r.kind);
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
    ObjectMeta::stamp(object, e.resource_version);
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

WatchHub::Served KubeApi::write(const Resource& r, json object, const store::Precondition& pre) {
  // What is stored: the object without its resourceVersion (the store's
  // column holds it), printed once, for the store and the decoded pod both.
  if (const auto meta = object.find("metadata"); meta != object.end() && meta->is_object())
    meta->erase("resourceVersion");
  store::ObjectWrite text{std::string(api::store_kind(r)), std::string(), object.dump()};
  std::vector<decode::Decoded> decoded = validate(r, object, text.json);
  const json& meta = object["metadata"];
  const std::string name = meta.value("name", "");
  text.key = store_key(r, meta.value("namespace", ""), name);
  const std::string& key = text.key;
  json stored = std::move(object);
  if (dry_run_) return dry_write(r, key, std::move(stored), pre);
  const store::PutResult done = store_.put(text, pre);
  refuse_unless_written(r, name, done.status);
  ++writes_;
  if (r.scheduled)
    written_.remember(api::store_kind(r), key, done.version, std::move(text.json),
                      std::move(decoded));
  if (r.kind == "Pod") note_terminating(key, stored);
  WatchHub::Served served = served_as(r, key, std::move(stored), done.version);
  watchers_.note(done.version, served);
  return served;
}

WatchHub::Served KubeApi::dry_write(const Resource& r, const std::string& key, json object,
                                    const store::Precondition& pre) {
  // The checks put() would make, against the object as stored now; the
  // answer is what put() would have served, at the version the object has
  // (none for a create, as the API server answers a dry-run create).
  const std::optional<int64_t> current = store_.version_of(api::store_kind(r), key);
  using Put = store::PutResult;
  refuse_unless_written(r, object["metadata"].value("name", ""),
                        pre.must_not_exist && current                        ? Put::Exists
                        : pre.must_exist && !current                         ? Put::Missing
                        : pre.version && current && *pre.version != *current ? Put::Conflict
                                                                             : Put::Written);
  return served_as(r, key, std::move(object), pre.must_not_exist ? std::nullopt : current);
}

void KubeApi::note_terminating(const std::string& key, const json& pod) {
  const auto meta = pod.find("metadata");
  if (meta == pod.end() || !meta->is_object()) return;
  const auto at = meta->find("deletionTimestamp");
  if (at == meta->end() || !at->is_string()) return;
  const std::string& when = at->get_ref<const std::string&>();
  if (when.empty()) return;
  if (const auto ms = decode::FieldReader::parse_rfc3339(when))
    terminating_[key] = std::chrono::system_clock::time_point(std::chrono::milliseconds(*ms));
}

http::Reply KubeApi::create(const http::Request& request, const ResourcePath& at,
                            std::string_view query) {
  const Resource& r = *at.resource;
  api::FieldValidator fields(query, field_validation_, "CreateOptions");
  json object = body_object(request, r);
  fields.check_body(r, object);
  warnings_ = fields.warnings();
  api::record_update(object, nullptr, schema_of(r), writer_of(request, r, at, query));
  return create_object(request, r, std::move(object), at.namespace_);
}

http::Reply KubeApi::create_object(const http::Request& request, const Resource& r, json object,
                                   const std::string& path_namespace) {
  meta_.on_create(object, r, path_namespace);
  admit_create(r, object, store_);
  if (r.kind == "Pod") prepare_pod(object, queue_admission_gates_);
  // The PodGroup a plain pod gets is made for a pod that exists, as
  // Volcano's controller makes it: never for a previewed one.
  if (r.kind == "Pod" && !dry_run_) create_implicit_group(object);
  if (r.kind == "Queue") open_queue(object);
  if (r.kind == "Namespace") prepare_namespace(object);
  // As the NamespaceAutoProvision admission plugin: the namespace an object
  // is created in exists from then on, listed by kubectl get namespaces.
  if (r.namespaced && !dry_run_) provision_namespace(object["metadata"].value("namespace", ""));
  if (r.kind == "Job") return create_job(request, std::move(object));
  store::Precondition pre;
  pre.must_not_exist = true;
  return answer(201, write(r, std::move(object), pre), request.version());
}

http::Reply KubeApi::create_job(const http::Request& request, json job) {
  const Resource& r = *api::find_kind("Job");
  const std::string name = job["metadata"].value("name", "");
  // Refused whole as Volcano's admission would, before anything is written.
  std::vector<json> made;
  try {
    made = job_objects(job, store_, "Job " + name);
  } catch (const FieldError& e) {
    throw api::invalid(r.group, r.kind, name, {{"FieldValueInvalid", e.detail(), e.field()}});
  } catch (const InputError& e) {
    throw api::invalid(r.group, r.kind, name, {{"FieldValueInvalid", e.what(), "spec"}});
  }
  // What admission would refuse of its pods (a PriorityClass that does not
  // exist) refuses the Job, rather than leaving it without them.
  for (json& object : made) {
    const api::Resource& kind = *api::find_kind(object.value("kind", ""));
    admit_create(kind, object, store_);
    if (kind.kind == "Pod") prepare_pod(object, queue_admission_gates_);
  }
  store::Precondition pre;
  pre.must_not_exist = true;
  WatchHub::Served written = write(r, std::move(job), pre);
  // A previewed Job owns nothing: its PodGroup and Pods were checked above.
  if (dry_run_) return answer(201, written, request.version());
  // Owned by the Job as stored (its uid), as the controller creates them.
  const json owner = {{"apiVersion", api::api_version(r)},
                      {"kind", "Job"},
                      {"name", name},
                      {"uid", written.object->at("metadata").at("uid")},
                      {"controller", true},
                      {"blockOwnerDeletion", true}};
  for (json& object : made) {
    const Resource& kind = *api::find_kind(object.value("kind", ""));
    object["metadata"]["ownerReferences"] = json::array({owner});
    meta_.on_create(object, kind, "");
    try {
      write(kind, std::move(object), pre);
    } catch (const ApiError& e) {
      if (e.reason() != "AlreadyExists") throw;  // the controller leaves one it finds
    }
  }
  return answer(201, written, request.version());
}

void KubeApi::provision_namespace(const std::string& name) {
  if (name.empty() || store_.get("Namespace", name)) return;
  const Resource& r = *api::find_kind("Namespace");
  json ns = {{"metadata", {{"name", name}}}};
  meta_.on_create(ns, r, "");
  prepare_namespace(ns);
  store::Precondition pre;
  pre.must_not_exist = true;
  try {
    write(r, std::move(ns), pre);
  } catch (const ApiError& e) {
    if (e.reason() != "AlreadyExists") throw;
  }
}

void KubeApi::create_builtin_objects() {
  for (const std::string_view ns : kSystemNamespaces) provision_namespace(std::string(ns));
  const Resource& r = *api::find_kind("Queue");
  for (json& queue : api::builtin_queues()) {
    if (store_.get("Queue", queue["metadata"]["name"].get<std::string>())) continue;
    meta_.on_create(queue, r, "");
    open_queue(queue);
    store::Precondition pre;
    pre.must_not_exist = true;
    write(r, std::move(queue), pre);
  }
}

void KubeApi::create_implicit_group(json& pod) {
  const json& meta = pod["metadata"];
  // Most pods name their group: nothing to look up for them.
  if (const auto a = meta.find("annotations");
      a != meta.end() && a->is_object() && a->contains(std::string(kGroupAnnotation)))
    return;
  const std::string key =
      store_key(*api::find_kind("Pod"), meta.value("namespace", ""), meta.value("name", ""));
  if (store_.get("Pod", key)) return;  // the pod's own create answers 409
  std::optional<json> group = implicit_pod_group(pod);
  if (!group) return;
  const Resource& r = *api::find_kind("PodGroup");
  meta_.on_create(*group, r, "");
  store::Precondition pre;
  pre.must_not_exist = true;
  try {
    write(r, std::move(*group), pre);
  } catch (const ApiError& e) {
    if (e.reason() != "AlreadyExists") throw;
  }
}

void KubeApi::remove_owned_group(const json& pod) {
  if (const auto key = owned_pod_group(pod, store_)) {
    store_.remove("PodGroup", *key);
    ++writes_;
  }
}

http::Reply KubeApi::update(const http::Request& request, const ResourcePath& at,
                            std::string_view query) {
  const Resource& r = *at.resource;
  api::FieldValidator fields(query, field_validation_, "UpdateOptions");
  json object = body_object(request, r);
  fields.check_body(r, object);
  warnings_ = fields.warnings();
  const json& meta = object.contains("metadata") ? object["metadata"] : json::object();
  if (meta.is_object() && meta.contains("name") && meta["name"] != at.name) {
    throw api::bad_request("the name of the object (" + meta.value("name", "") +
                           ") does not match the name on the URL (" + at.name + ")");
  }
  const std::string key = store_key(r, at.namespace_, at.name);
  const auto old = store_.get(api::store_kind(r), key);
  if (!old) throw api::not_found(r.group, r.plural, at.name);
  store::Precondition pre;
  pre.must_exist = true;
  // A stale version is a conflict, never a lost update; none means "any".
  pre.version = ObjectMeta::requested_version(object);
  if (!pre.version) pre.version = old->resource_version;
  const json previous = json::parse(old->json);
  if (at.subresource == "status") {
    json next = previous;
    next["status"] = object.value("status", json::object());
    object = std::move(next);
  } else if (previous.contains("status") && api::has_subresource(r, "status") && r.kind != "Pod" &&
             r.kind != "Node" && r.kind != "Job") {
    // The main resource does not change status where a status subresource
    // exists (the API server's rule). Pods, Nodes and Volcano Jobs are
    // still updated whole here, status included, as this API has served
    // them.
    object["status"] = previous["status"];
  }
  if (r.kind == "Pod" && at.subresource.empty()) api::check_pod_update(object, previous);
  api::record_update(object, &previous, schema_of(r), writer_of(request, r, at, query));
  ObjectMeta::on_update(object, previous, r);
  return answer(200, write(r, std::move(object), pre), request.version());
}

http::Reply KubeApi::patch(const http::Request& request, const ResourcePath& at,
                           std::string_view query) {
  const Resource& r = *at.resource;
  if (api::is_apply_patch(header(request, beast::http::field::content_type)))
    return apply(request, at, query);
  api::check_patch_options(false, api::query_param(query, "fieldManager").value_or(""),
                           api::query_param(query, "force").has_value());
  api::FieldValidator fields(query, field_validation_, "PatchOptions");
  const api::PatchType type = api::patch_type(header(request, beast::http::field::content_type));
  const api::Writer writer = writer_of(request, r, at, query);
  // A merge patch's object or a JSON patch's list (patch_type refused the
  // rest, protobuf included).
  const json body = body_value(request, api::api_version(r), r.kind);
  const std::string key = store_key(r, at.namespace_, at.name);
  // Retried on a conflict with a concurrent writer, as the API server does.
  for (int attempt = 0;; ++attempt) {
    const auto old = store_.get(api::store_kind(r), key);
    if (!old) throw api::not_found(r.group, r.plural, at.name);
    json previous = served(r, old->json, old->resource_version);
    // What an API server holds has no unknown fields (one stored before
    // they were removed keeps them): only the patch's are the caller's.
    schema::remove_unknown_fields(previous, r.kind);
    json patched = api::apply_patch(previous, body, type);
    fields.check_patched(r, patched, body, type);
    warnings_ = fields.warnings();
    store::Precondition pre;
    pre.must_exist = true;
    pre.version = old->resource_version;
    if (const auto asked = ObjectMeta::requested_version(patched);
        asked && *asked != old->resource_version)
      throw api::conflict(r.group, r.plural, at.name);
    if (at.subresource == "status") {
      json next = previous;
      next["status"] = patched.value("status", json::object());
      patched = std::move(next);
    } else if (r.kind == "Pod") {
      api::check_pod_update(patched, previous);
    }
    api::record_update(patched, &previous, schema_of(r), writer);
    ObjectMeta::on_update(patched, previous, r);
    try {
      return answer(200, write(r, std::move(patched), pre), request.version());
    } catch (const ApiError& e) {
      if (e.reason() != "Conflict" || attempt >= 4) throw;
    }
  }
}

http::Reply KubeApi::apply(const http::Request& request, const ResourcePath& at,
                           std::string_view query) {
  const Resource& r = *at.resource;
  const std::string manager = api::query_param(query, "fieldManager").value_or("");
  api::check_patch_options(true, manager, false);
  api::FieldValidator fields(query, field_validation_, "PatchOptions");
  json config = body_value(request, api::api_version(r), r.kind);
  api::check_applied_config(config, api::api_version(r), r.kind);
  json& config_meta = config["metadata"];
  if (!config_meta.is_object()) config_meta = json::object();
  if (const std::string name = config_meta.value("name", ""); name.empty()) {
    config_meta["name"] = at.name;
  } else if (name != at.name) {
    throw api::bad_request("the name of the object (" + name +
                           ") does not match the name on the URL (" + at.name + ")");
  }
  fields.check_body(r, config);
  warnings_ = fields.warnings();
  const api::ApplyRequest how{writer_of(request, r, at, query), query_flag(query, "force")};
  const schema::Type* type = schema_of(r);
  const std::string key = store_key(r, at.namespace_, at.name);
  // Retried on a conflict with a concurrent writer, as a patch is.
  for (int attempt = 0;; ++attempt) {
    const auto old = store_.get(api::store_kind(r), key);
    if (!old) {
      if (!at.subresource.empty()) throw api::not_found(r.group, r.plural, at.name);
      json object = api::server_side_apply(nullptr, config, type, how);
      try {
        return create_object(request, r, std::move(object), at.namespace_);
      } catch (const ApiError& e) {
        if (e.reason() != "AlreadyExists" || attempt >= 4) throw;
        continue;
      }
    }
    json previous = served(r, old->json, old->resource_version);
    schema::remove_unknown_fields(previous, r.kind);
    json next = api::server_side_apply(&previous, config, type, how);
    if (at.subresource == "status") {
      json kept = previous;
      kept["status"] = next.value("status", json::object());
      kept["metadata"]["managedFields"] = next["metadata"].value("managedFields", json::array());
      next = std::move(kept);
    } else {
      if (how.writer.has_status_subresource && previous.contains("status"))
        next["status"] = previous["status"];  // the status subresource's to change
      if (r.kind == "Pod") api::check_pod_update(next, previous);
    }
    ObjectMeta::on_update(next, previous, r);
    // An apply that changes nothing (the same values, the same owners)
    // writes nothing, as the API server answers it.
    json unchanged = previous;
    unchanged["metadata"].erase("resourceVersion");
    if (next == unchanged) return answer(200, previous, request.version());
    store::Precondition pre;
    pre.must_exist = true;
    pre.version = old->resource_version;
    try {
      return answer(200, write(r, std::move(next), pre), request.version());
    } catch (const ApiError& e) {
      if (e.reason() != "Conflict" || attempt >= 4) throw;
    }
  }
}

json KubeApi::delete_object(const Resource& r, const std::string& key, const json& options) {
  const auto old = store_.get(api::store_kind(r), key);
  const std::string name = key.substr(key.find('/') + 1);
  if (!old) throw api::not_found(r.group, r.plural, name);
  std::optional<int64_t> version;
  if (options.is_object() && options.contains("preconditions") &&
      options["preconditions"].contains("resourceVersion")) {
    version = parse_version(options["preconditions"].value("resourceVersion", ""),
                            "preconditions.resourceVersion");
  }
  json object = served(r, old->json, old->resource_version);
  if (version && *version != old->resource_version) throw api::conflict(r.group, r.plural, name);
  // A pod on a node stops first: it is marked terminating for its grace
  // period (the request's, else the pod's, else 30 s), as the API server
  // does; a pod on no node, or a grace of 0, goes at once.
  if (r.kind == "Pod" && object["spec"].value("nodeName", "") != "") {
    int64_t grace = object["spec"].value("terminationGracePeriodSeconds", int64_t{30});
    if (options.is_object() && options.contains("gracePeriodSeconds") &&
        options["gracePeriodSeconds"].is_number_integer())
      grace = std::max<int64_t>(0, options["gracePeriodSeconds"].get<int64_t>());
    if (grace > 0) {
      json& meta = object["metadata"];
      if (!meta.contains("deletionTimestamp")) {
        const auto at = std::chrono::system_clock::now() + std::chrono::seconds(grace);
        meta["deletionTimestamp"] = ObjectMeta::rfc3339(at);
        meta["deletionGracePeriodSeconds"] = grace;
        store::Precondition pre;
        pre.must_exist = true;
        pre.version = old->resource_version;
        return *write(r, std::move(object), pre).object;
      }
      return object;
    }
  }
  // A previewed delete answers with the object it would remove, and
  // removes nothing (nor what it owns).
  if (dry_run_) return object;
  const store::PutResult done = store_.remove_if(api::store_kind(r), key, old->resource_version);
  if (done.status == store::PutResult::Conflict) throw api::conflict(r.group, r.plural, name);
  if (done.status == store::PutResult::Missing) throw api::not_found(r.group, r.plural, name);
  ++writes_;
  if (r.kind == "Pod") remove_owned_group(object);
  if (r.kind == "Job")
    for (const auto& [kind, owned] : owned_by_job(object, store_))
      if (store_.remove(kind, owned)) ++writes_;
  if (r.kind == "Namespace") {
    // Everything in the namespace goes with it.
    for (const Resource& inner : api::resources()) {
      if (!inner.namespaced) continue;
      for (const store::StoredObject& o : store_.list(api::store_kind(inner)))
        if (o.key.starts_with(name + "/")) store_.remove(api::store_kind(inner), o.key);
    }
  }
  return object;
}

http::Reply KubeApi::remove(const http::Request& request, const ResourcePath& at,
                            std::string_view query) {
  const Resource& r = *at.resource;
  if (r.kind == "Namespace" && std::find(std::begin(kSystemNamespaces), std::end(kSystemNamespaces),
                                         at.name) != std::end(kSystemNamespaces))
    throw ApiError(
        403, "Forbidden",
        "namespaces \"" + at.name + "\" is forbidden: this namespace may not be deleted");
  json options = request.body().empty() ? json() : body_value(request, "v1", "DeleteOptions");
  // DeleteOptions may come as query parameters too (curl, some clients);
  // the body's win.
  if (const auto grace = api::query_param(query, "gracePeriodSeconds");
      grace && (!options.is_object() || !options.contains("gracePeriodSeconds"))) {
    int64_t seconds = 0;
    const auto [end, error] =
        std::from_chars(grace->data(), grace->data() + grace->size(), seconds);
    if (error != std::errc() || end != grace->data() + grace->size())
      throw api::bad_request("gracePeriodSeconds: \"" + *grace + "\" is not a whole number");
    if (!options.is_object()) options = json::object();
    options["gracePeriodSeconds"] = seconds;
  }
  dry_run_ = dry_run_ || api::requested_dry_run(options);
  return answer(200, delete_object(r, store_key(r, at.namespace_, at.name), options),
                request.version());
}

http::Reply KubeApi::bind(const http::Request& request, const ResourcePath& at) {
  const Resource& r = *at.resource;
  const json binding = body_object(request, "v1", "Binding");
  const json target = binding.value("target", json::object());
  const std::string node = target.value("name", "");
  if (node.empty()) {
    throw api::invalid("", "Binding", at.name,
                       {{"FieldValueRequired", "the node to bind to is required", "target.name"}});
  }
  const std::string key = store_key(r, at.namespace_, at.name);
  const auto old = store_.get(api::store_kind(r), key);
  if (!old) throw api::not_found(r.group, r.plural, at.name);
  json pod = json::parse(old->json);
  const std::string bound = pod["spec"].value("nodeName", "");
  if (!bound.empty()) {
    throw ApiError(409, "Conflict",
                   "Operation cannot be fulfilled on pods/binding \"" + at.name + "\": pod " +
                       at.name + " is already assigned to node \"" + bound + "\"");
  }
  // A previewed binding is checked as one, and changes nothing.
  if (dry_run_) return answer(201, api::success_status(), request.version());
  pod["spec"]["nodeName"] = node;
  // The API server copies a Binding's annotations onto the pod (how Volcano
  // sends the device it chose).
  const json& meta = binding.contains("metadata") ? binding.at("metadata") : json();
  if (meta.is_object() && meta.contains("annotations") && meta.at("annotations").is_object()) {
    json& annotations = pod["metadata"]["annotations"];
    if (!annotations.is_object()) annotations = json::object();
    for (const auto& [name, value] : meta.at("annotations").items())
      if (value.is_string()) annotations[name] = value;
  }
  api::set_condition(pod, api::scheduled_condition(std::chrono::system_clock::now()));
  store::Precondition pre;
  pre.must_exist = true;
  pre.version = old->resource_version;
  write(r, std::move(pod), pre);
  return answer(201, api::success_status(), request.version());
}

http::Reply KubeApi::evict(const http::Request& request, const ResourcePath& at) {
  const Resource& r = *at.resource;
  const json eviction = body_object(request, "policy/v1", "Eviction");
  dry_run_ = dry_run_ || api::requested_dry_run(eviction.value("deleteOptions", json::object()));
  delete_object(r, store_key(r, at.namespace_, at.name),
                eviction.value("deleteOptions", json::object()));
  return answer(201, api::success_status(), request.version());
}

void KubeApi::reap(std::chrono::system_clock::time_point now) {
  if (!scanned_) {
    // Pods marked before this process started: found once, not per period.
    for (const store::StoredObject& o : store_.list("Pod"))
      if (o.json.find("\"deletionTimestamp\"") != std::string::npos)
        note_terminating(o.key, json::parse(o.json));
    scanned_ = true;
  }
  bool removed = false;
  for (auto it = terminating_.begin(); it != terminating_.end();) {
    if (it->second > now) {
      ++it;
      continue;
    }
    // Gone already, or replaced: the store decides.
    if (const auto pod = store_.get("Pod", it->first);
        pod && pod->json.find("\"deletionTimestamp\"") != std::string::npos &&
        store_.remove_if("Pod", it->first, pod->resource_version).status ==
            store::PutResult::Written) {
      removed = true;
      remove_owned_group(json::parse(pod->json));
    }
    it = terminating_.erase(it);
  }
  if (removed) watchers_.pump();
}

}  // namespace scoria::serve
