// The local Kubernetes API's writes (kube_api.h): create, update, the three
// patch types and server-side apply, delete, the binding and eviction
// subresources, dry runs, and what the controllers a cluster runs would do
// on a write (namespaces provisioned, PodGroups for pods, Volcano Jobs'
// pods, terminating pods reaped).
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
#include "serve/kube_request.h"
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
using namespace kube_request;

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

}  // namespace

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

json KubeApi::checked_body(const http::Request& request, const Resource& r, std::string_view query,
                           std::string_view options) {
  api::FieldValidator fields(query, field_validation_, options);
  json object = body_object(request, r);
  fields.check_body(r, object);
  warnings_ = fields.warnings();
  return object;
}

http::Reply KubeApi::create(const http::Request& request, const ResourcePath& at,
                            std::string_view query) {
  const Resource& r = *at.resource;
  json object = checked_body(request, r, query, "CreateOptions");
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
  json object = checked_body(request, r, query, "UpdateOptions");
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
