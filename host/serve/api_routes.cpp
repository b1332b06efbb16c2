// The HTTP API of `scoria serve`: health, metrics, and the local store's
// objects (apply, get, list, delete, pod status), its watch stream, and the
// scheduler's view of a PodGroup and of the queues.
//
//   GET    /healthz  /readyz  /metrics
//   POST   /api/v1/objects[?fieldValidation=]   YAML or JSON, one or more documents
//   GET    /api/v1/{kind}                       kind: nodes, pods, podgroups, queues,
//   GET    /api/v1/{kind}/[{namespace}/]{name}        priorityclasses
//   DELETE /api/v1/{kind}/[{namespace}/]{name}
//   PUT    /api/v1/pods/{namespace}/{name}/status   {"phase": "Running"}
//   GET    /api/v1/podgroups/{namespace}/{name}/describe
//   GET    /api/v1/top/queues
//   GET    /api/v1/watch[?resourceVersion=N]    newline-delimited JSON, resumable
//
// Everything else under /api, /apis and /version is the Kubernetes API
// (serve/kube_api.h).
#include <boost/beast/http/field.hpp>
#include <boost/beast/http/verb.hpp>

#include <charconv>
#include <nlohmann/json.hpp>

#include "api/field_validation.h"
#include "api/request_path.h"
#include "api/status.h"
#include "model/error.h"
#include "serve/cache_dump.h"
#include "serve/local_cluster.h"
#include "serve/service.h"
#include "serve/service_state.h"

namespace scoria::serve {

namespace {

namespace beast = boost::beast;
using nlohmann::json;
using Verb = beast::http::verb;

http::Reply reply(unsigned status, const json& body, unsigned version) {
  return {http::make_response(status,
                              body.dump(-1, ' ', false, json::error_handler_t::replace) + "\n",
                              "application/json", version)};
}

http::Reply error(unsigned status, std::string_view message, unsigned version) {
  return reply(status, json{{"error", message}}, version);
}

std::vector<std::string_view> segments(std::string_view path) { return api::split_path(path); }

/// A path segment naming an object, percent-decoded as clients encode it.
std::string name_part(std::string_view segment) {
  auto decoded = api::percent_decode(segment);
  if (!decoded) throw InputError("malformed percent-encoding in \"" + std::string(segment) + "\"");
  return *decoded;
}

/// Scoria's own routes from before the Kubernetes paths, kept where they
/// do not collide: multi-document apply, the all-kinds watch, top queues,
/// PodGroup describe, and objects addressed as {kind}/{namespace}/{name}.
bool legacy_path(std::string_view path) {
  const std::vector<std::string_view> parts = segments(path);
  if (parts.size() < 3 || parts[0] != "api" || parts[1] != "v1") return false;
  const std::string_view first = parts[2];
  if (first == "objects" || first == "top") return true;
  if (first == "watch") return parts.size() == 3;
  if (first == "podgroups" || first == "queues" || first == "priorityclasses") return true;
  if (first == "pods") return parts.size() >= 5;  // pods/{namespace}/{name}[/status]
  return false;
}

std::string kinds_list() { return "nodes, pods, podgroups, queues, priorityclasses"; }

}  // namespace

http::Reply Service::route(const http::Request& request,
                           const boost::asio::ip::tcp::endpoint& peer) {
  // A write joins the store's write group and is answered once the group is
  // committed; anything else first commits what is open, so that it never
  // reads a write that could still be lost.
  GroupCommit& commits = state_->commits;
  switch (request.method()) {
    case Verb::post:
    case Verb::put:
    case Verb::patch:
    case Verb::delete_:
      if (!state_->kube_source) commits.open();
      return commits.defer(answer(request, peer));
    default:
      commits.flush();
      return answer(request, peer);
  }
}

http::Reply Service::answer(const http::Request& request,
                            const boost::asio::ip::tcp::endpoint& /*peer*/) {
  State& s = *state_;
  const unsigned v = request.version();
  const std::string_view target(request.target().data(), request.target().size());
  const size_t question = target.find('?');
  const std::string_view path = target.substr(0, question);
  const std::string_view query =
      question == std::string_view::npos ? std::string_view{} : target.substr(question + 1);
  const Verb method = request.method();
  try {
    api::check_target(target);
  } catch (const api::ApiError& e) {
    return reply(e.code(), e.status(), v);
  }

  if (path == "/healthz") {
    if (s.watchdog.hung()) return {http::make_response(503, "session hung\n", "text/plain", v)};
    return {http::make_response(200, "ok\n", "text/plain", v)};
  }
  if (path == "/readyz") {
    if (s.scheduler && !s.sync_error) return {http::make_response(200, "ready\n", "text/plain", v)};
    return {http::make_response(503, "not ready: " + s.sync_error.value_or("no config") + "\n",
                                "text/plain", v)};
  }
  if (path == "/metrics")
    return {http::make_response(200, s.metrics.text(), "text/plain; version=0.0.4", v)};
  // Host, Origin, Content-Type and the token are checked before this (see
  // request_guard.h).
  if (path.starts_with("/api/v1/explain/")) {
    // Answered by the next session, which explains the pod wherever its
    // objects live (the local store or a Kubernetes cluster).
    const std::vector<std::string_view> parts = segments(path.substr(8));
    if (parts.size() != 3)
      return error(404, "explain a pod at /api/v1/explain/{namespace}/{name}", v);
    if (method != Verb::get) return error(405, "explain with GET", v);
    std::string pod;
    try {
      pod = name_part(parts[1]) + "/" + name_part(parts[2]);
    } catch (const InputError& e) {
      return error(400, e.what(), v);
    }
    http::Reply deferred;
    deferred.on_defer = [&s, pod, v](http::Respond respond) {
      s.explain_waits.add(pod, std::move(respond), v);
    };
    return deferred;
  }
  if (s.kube_source) {
    // The objects are the Kubernetes cluster's: the local store is not
    // where they live, and must not look as if it were.
    return error(404,
                 "this service schedules the cluster of " + s.options.kube.client.origin +
                     "; read and write its objects there (kubectl against that cluster)",
                 v);
  }
  if (!legacy_path(path)) {
    if (auto answered = s.kube.handle(request, path, query)) {
      if (const size_t n = s.kube.take_writes(); n > 0)
        s.metrics.count_store_writes("api", static_cast<double>(n));
      return std::move(*answered);
    }
  }
  if (!path.starts_with("/api/v1/"))
    return error(404, "no such path; the API is under /api, /apis and /api/v1", v);

  const std::vector<std::string_view> parts = segments(path.substr(8));
  if (parts.empty()) return error(404, "name a kind: " + kinds_list(), v);
  try {
    if (parts[0] == "objects") {
      if (method != Verb::post) return error(405, "apply objects with POST", v);
      const schema::FieldValidation fields =
          api::requested_validation(query, s.options.field_validation, "CreateOptions");
      const ApplyResult done = s.cluster.apply(request.body(), "request body", fields);
      for (const std::string& ns : done.namespaces) s.kube.provision_namespace(ns);
      s.metrics.count_store_writes("apply", static_cast<double>(done.applied.size()));
      json body = {{"resourceVersion", done.resource_version}, {"applied", done.applied}};
      if (!done.warnings.empty()) body["warnings"] = done.warnings;
      http::Reply answered = reply(200, body, v);
      for (const std::string& w : done.warnings)
        answered.response.insert(beast::http::field::warning, api::warning_header(w));
      return answered;
    }
    if (parts[0] == "watch") {
      if (method != Verb::get) return error(405, "watch with GET", v);
      int64_t after = s.store.latest_version();
      if (const auto rv = api::query_param(query, "resourceVersion")) {
        const auto [end, ec] = std::from_chars(rv->data(), rv->data() + rv->size(), after);
        if (ec != std::errc() || end != rv->data() + rv->size() || after < 0)
          return error(400, "resourceVersion: not a version number from 0 to 2^63-1", v);
        const int64_t latest = s.store.latest_version();
        if (after > latest)
          return error(400,
                       "resourceVersion " + std::to_string(after) +
                           " is ahead of the store (latest " + std::to_string(latest) + ")",
                       v);
        const int64_t oldest = s.store.oldest_event_version();
        if (oldest > 0 && after < oldest - 1)
          return error(410,
                       "resourceVersion " + std::to_string(after) +
                           " is too old (the log starts at " + std::to_string(oldest) +
                           "); list again and watch from the list's resourceVersion",
                       v);
      }
      http::Reply streamed{http::make_response(200, "", "application/x-ndjson", v)};
      streamed.on_stream = [&s, after](std::shared_ptr<http::Stream> stream) {
        s.watchers.add(std::move(stream), after);
      };
      return streamed;
    }
    if (parts[0] == "top" && parts.size() == 2 && parts[1] == "queues") {
      json queues = json::array();
      for (const auto& q : s.recorder.last().queues) {
        json entry = {{"name", q.name}, {"allocated", amounts(s.cache.dims(), q.allocated)}};
        if (!q.deserved.empty()) entry["deserved"] = amounts(s.cache.dims(), q.deserved);
        queues.push_back(std::move(entry));
      }
      return reply(200, json{{"queues", queues}}, v);
    }

    const KindInfo* kind = kind_by_path(parts[0]);
    if (kind == nullptr)
      return error(404, "unknown kind \"" + std::string(parts[0]) + "\"; kinds: " + kinds_list(),
                   v);
    const size_t key_parts = kind->namespaced ? 2 : 1;
    if (parts.size() == 1) {
      if (method != Verb::get) return error(405, "list with GET", v);
      json items = json::array();
      const int64_t version = s.store.latest_version();
      for (const auto& o : s.store.list(kind->kind)) items.push_back(json::parse(o.json));
      return reply(200,
                   json{{"kind", std::string(kind->kind) + "List"},
                        {"resourceVersion", version},
                        {"items", items}},
                   v);
    }
    if (parts.size() < 1 + key_parts)
      return error(404, std::string(kind->kind) + " names are namespace/name", v);
    const std::string key =
        kind->namespaced ? name_part(parts[1]) + "/" + name_part(parts[2]) : name_part(parts[1]);
    const std::vector<std::string_view> sub(parts.begin() + 1 + static_cast<long>(key_parts),
                                            parts.end());
    if (sub.empty()) {
      if (method == Verb::get) {
        const auto found = s.store.get(kind->kind, key);
        if (!found) return error(404, std::string(kind->kind) + " " + key + " not found", v);
        json object = json::parse(found->json);
        object["metadata"]["resourceVersion"] = std::to_string(found->resource_version);
        return reply(200, object, v);
      }
      if (method == Verb::delete_) {
        if (!s.cluster.remove(*kind, key))
          return error(404, std::string(kind->kind) + " " + key + " not found", v);
        s.metrics.count_store_writes("delete", 1);
        return reply(200, json{{"deleted", std::string(kind->kind) + " " + key}}, v);
      }
      return error(405, "use GET or DELETE", v);
    }
    if (kind->kind == "Pod" && sub.size() == 1 && sub[0] == "status") {
      if (method != Verb::put) return error(405, "update a pod's status with PUT", v);
      const json body = json::parse(request.body(), nullptr, false);
      if (!body.is_object() || !body.contains("phase") || !body["phase"].is_string())
        return error(
            400, "body: give {\"phase\": \"Running\"} (Pending, Running, Succeeded, Failed)", v);
      if (!s.cluster.set_pod_phase(key, body["phase"].get<std::string>()))
        return error(404, "Pod " + key + " not found", v);
      s.metrics.count_store_writes("status", 1);
      return reply(200, json{{"pod", key}, {"phase", body["phase"]}}, v);
    }
    if (kind->kind == "PodGroup" && sub.size() == 1 && sub[0] == "describe") {
      const auto found = s.store.get("PodGroup", key);
      if (!found) return error(404, "PodGroup " + key + " not found", v);
      const json group = json::parse(found->json);
      json out = {{"podgroup", key},
                  {"phase", group.value("status", json::object()).value("phase", "Pending")},
                  {"minMember", group.value("spec", json::object()).value("minMember", 1)}};
      if (const std::string* why = s.source().unschedulable_reason(key)) out["reason"] = *why;
      return reply(200, out, v);
    }
    return error(404, "no such path", v);
  } catch (const InputError& e) {
    return error(400, e.what(), v);
  } catch (const api::ApiError& e) {
    return error(e.code(), e.what(), v);
  } catch (const json::exception& e) {
    return error(400, std::string("malformed JSON: ") + e.what(), v);
  } catch (const store::StoreError& e) {
    return error(500, e.what(), v);
  }
}

}  // namespace scoria::serve
