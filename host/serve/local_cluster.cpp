#include "serve/local_cluster.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_set>
#include <variant>

#include "api/decision_reports.h"
#include "api/object_meta.h"
#include "api/selectors.h"
#include "cache/queue_gate.h"
#include "decode/object_decoder.h"
#include "decode/volcano_job.h"
#include "input/documents.h"
#include "input/limits.h"
#include "input/ordered_batches.h"
#include "log/log.h"
#include "model/error.h"
#include "serve/admission.h"
#include "serve/job_controller.h"
#include "serve/job_status.h"
#include "serve/pod_group_controller.h"
#include "source/document_fields.h"
#include "source/object_loader.h"

namespace scoria::serve {

namespace {

using nlohmann::json;

// Log entries read per query while catching up.
constexpr size_t kEventBatch = 10000;
// How long the events the scheduler writes are kept (the API server's
// --event-ttl).
constexpr auto kEventTtl = std::chrono::hours(1);

static_assert(std::is_same_v<decode::Object, cache::Object>,
              "decoded objects move into the cache as they are");

/// The Upsert a stored object (one object, not a List) decodes to; throws
/// InputError (or a JSON parse error) if it does not.
void decode_into(const std::string& text, cache::ObjectChange& out) {
  std::vector<decode::Decoded> decoded;
  decode::decode_document(json::parse(text), "the local store", 1, decoded, text);
  if (decoded.size() != 1)
    throw InputError("the local store holds " + std::to_string(decoded.size()) +
                     " objects in one entry; it holds one");
  out = cache::ObjectChange::upsert(std::move(decoded[0].object), decoded[0].never_preempt);
}

std::string text_of(const json& j, const char* a, const char* b) {
  const auto outer = j.find(a);
  if (outer == j.end() || !outer->is_object()) return {};
  const auto inner = outer->find(b);
  return inner != outer->end() && inner->is_string() ? inner->get<std::string>() : std::string();
}

std::string key_of(const KindInfo& kind, const json& object) {
  const std::string name = text_of(object, "metadata", "name");
  if (!kind.namespaced) return name;
  std::string ns = text_of(object, "metadata", "namespace");
  if (ns.empty()) ns = "default";
  return ns + "/" + name;
}

/// An Event's key ("ns/name") from its metadata.
std::string event_key(const json& event) {
  return event["metadata"]["namespace"].get<std::string>() + "/" +
         event["metadata"]["name"].get<std::string>();
}

/// A pod bound to `node`, as the API server makes it: spec.nodeName and
/// the PodScheduled=True `condition`.
void bind_pod(json& pod, const cycle::Outcome::Bind& bind, const json& condition) {
  pod["spec"]["nodeName"] = bind.node;
  // What plugins set on the allocation, as the API server writes a
  // Binding's annotations on the pod.
  if (!bind.annotations.empty()) {
    json& annotations = pod["metadata"]["annotations"];
    if (!annotations.is_object()) annotations = json::object();
    for (const auto& [key, value] : bind.annotations) annotations[key] = value;
  }
  api::set_condition(pod, condition);
}

}  // namespace

const KindInfo* kind_by_path(std::string_view path) {
  // The first of a plural two groups serve: /api/v1/objects/podgroups is
  // Volcano's, as `ctl` always named it.
  for (const KindInfo& k : api::resources())
    if (k.scheduled && k.plural == path) return &k;
  return nullptr;
}

const KindInfo* kind_by_name(std::string_view kind, std::string_view api_version) {
  for (const KindInfo& k : api::resources())
    if (k.kind == kind && (k.scheduled || k.kind == "Workload") &&
        (api_version.empty() || api::api_version(k) == api_version))
      return &k;
  return nullptr;
}

ApplyResult LocalCluster::apply(std::string_view text, std::string_view origin,
                                schema::FieldValidation fields) {
  // Read once under the request limits; the decoders' checks first, all or
  // nothing, with their messages.
  std::vector<input::Document> docs = input::read_documents(text, origin, input::kApplyLimits);
  model::ClusterObjects parsed;
  ApplyResult result;
  source::FieldChecks checks{fields, [&](const std::string& w) { result.warnings.push_back(w); }};
  source::decode_objects(docs, origin, parsed, checks);
  for (input::Document& doc : docs) source::remove_unknown_fields(doc.value);

  std::vector<store::ObjectWrite> writes;
  std::set<std::string> groups_here;
  std::set<std::string> made;  // PodGroups made for pods naming none: not what was applied
  const auto add = [&](json object, std::string_view default_kind) {
    std::string kind_name = object.value("kind", std::string(default_kind));
    const KindInfo* kind = kind_by_name(kind_name, object.value("apiVersion", ""));
    if (kind == nullptr) return;  // the decoders have refused what they cannot read
    object["kind"] = kind_name;
    object["apiVersion"] = api::api_version(*kind);
    std::string key = key_of(*kind, object);
    if (kind->kind == "PodGroup") groups_here.insert(key);
    if (kind->kind == "Pod") {
      if (!store_.version_of("Pod", key)) prepare_pod(object, queue_admission_gates_);
      if (std::optional<json> group = adopt_pod(object, key)) {
        std::string group_key = key_of(*kind_by_name("PodGroup"), *group);
        groups_here.insert(group_key);
        made.insert(group_key);
        writes.push_back({"PodGroup", std::move(group_key), group->dump()});
      }
    }
    writes.push_back({std::string(api::store_kind(*kind)), std::move(key), object.dump()});
  };
  // A Volcano Job is stored as what its controller makes of it: its
  // PodGroup and Pods (job_controller.h).
  const auto add_job = [&](const json& job, int number) {
    for (json& object : job_objects(job, store_, origin, number)) add(std::move(object), "");
  };
  for (input::Document& doc : docs) {
    if (!doc.value.is_object()) continue;
    if (decode::is_volcano_job(doc.value)) {
      add_job(doc.value, doc.number);
      continue;
    }
    const std::string kind = doc.value.value("kind", "");
    if (kind.size() >= 4 && kind.ends_with("List")) {
      json items = std::move(doc.value["items"]);
      if (items.is_array())
        for (json& item : items) {
          if (decode::is_volcano_job(item))
            add_job(item, doc.number);
          else
            add(std::move(item), kind.substr(0, kind.size() - 4));
        }
    } else {
      add(std::move(doc.value), "");
    }
  }
  // A pod naming a PodGroup must find it, here or already stored, as
  // Volcano's admission would have it.
  for (const model::Pod& pod : parsed.pods) {
    // A pod of a scheduling.k8s.io PodGroup waits for it, as kube-scheduler
    // makes it wait.
    if (pod.group_name.empty() || pod.native_group) continue;
    const std::string group = pod.namespace_ + "/" + pod.group_name;
    if (groups_here.contains(group) || store_.get("PodGroup", group)) continue;
    throw InputError(std::string(origin) + ": Pod " + pod.namespace_ + "/" + pod.name +
                     ": metadata.annotations." + std::string(kGroupAnnotation) +
                     " names PodGroup " + group +
                     ", which does not exist; apply the PodGroup first or with it");
  }
  const auto now = std::chrono::steady_clock::now();
  for (const auto& w : writes)
    if (w.kind == "Pod") stored_at_.try_emplace(w.key, now);
  result.resource_version = writes.empty() ? store_.latest_version() : store_.apply(writes);
  for (const auto& w : writes) {
    if (w.kind != "PodGroup" || !made.contains(w.key))
      result.applied.push_back(w.kind + " " + w.key);
    if (api::find_store_kind(w.kind)->namespaced)
      result.namespaces.insert(w.key.substr(0, w.key.find('/')));
  }
  return result;
}

std::optional<json> LocalCluster::adopt_pod(json& pod, const std::string& key) {
  // A replacement keeps the group (and the uid it is owned through) that
  // the stored pod has; a new pod naming none gets one, as Volcano's
  // controller gives it (pod_group_controller.h).
  json& meta = pod["metadata"];
  if (!meta.is_object()) return std::nullopt;
  if (meta.contains("annotations") && meta["annotations"].is_object() &&
      meta["annotations"].contains(std::string(kGroupAnnotation)))
    return std::nullopt;
  if (const auto stored = store_.get("Pod", key)) {
    const json old = json::parse(stored->json, nullptr, false);
    const json& old_meta = old.is_object() ? old.value("metadata", json::object()) : json::object();
    const std::string group =
        old_meta.value("annotations", json::object()).value(std::string(kGroupAnnotation), "");
    if (group.empty()) return std::nullopt;
    if (!meta["annotations"].is_object()) meta["annotations"] = json::object();
    meta["annotations"][std::string(kGroupAnnotation)] = group;
    if (!meta.contains("uid") && old_meta.contains("uid")) meta["uid"] = old_meta["uid"];
    return std::nullopt;
  }
  if (!meta.contains("uid")) meta["uid"] = meta_.uid();
  std::optional<json> group = implicit_pod_group(pod);
  if (group) group->at("metadata")["uid"] = meta_.uid();
  return group;
}

bool LocalCluster::remove(const KindInfo& kind, std::string_view key) {
  if (kind.kind == "Pod") stored_at_.erase(std::string(key));
  const auto pod = kind.kind == "Pod" ? store_.get("Pod", key) : std::nullopt;
  if (!store_.remove(api::store_kind(kind), key)) return false;
  if (pod)
    if (const auto group = owned_pod_group(json::parse(pod->json, nullptr, false), store_))
      store_.remove("PodGroup", *group);
  return true;
}

bool LocalCluster::set_pod_phase(std::string_view key, std::string_view phase) {
  static constexpr std::array<std::string_view, 4> kPhases = {"Pending", "Running", "Succeeded",
                                                              "Failed"};
  if (std::find(kPhases.begin(), kPhases.end(), phase) == kPhases.end())
    throw InputError("status.phase: \"" + std::string(phase) +
                     "\" is not a pod phase; use Pending, Running, Succeeded or Failed");
  auto stored = store_.get("Pod", key);
  if (!stored) return false;
  json pod = json::parse(stored->json);
  pod["status"]["phase"] = phase;
  const store::ObjectWrite write{"Pod", std::string(key), pod.dump()};
  store_.apply({&write, 1});
  return true;
}

std::optional<std::string> LocalCluster::refresh(cache::ClusterCache& cache) {
  assert(!store_.holding() && "the API's write group is flushed before a session reads the store");
  const int64_t latest = store_.latest_version();
  if (latest == loaded_version_) return std::nullopt;
  // The log resumes after what was applied, unless compacted past it (as a
  // watch that gets 410 Gone must relist).
  const int64_t oldest = store_.oldest_event_version();
  if (loaded_version_ < 0 || oldest == 0 || oldest > loaded_version_ + 1) {
    relist(cache, latest);
    written_.clear();
    recorded_.clear();
    return std::nullopt;
  }
  std::vector<cache::ObjectChange> changes;
  // Objects changed by entries before what the last session recorded: for
  // these the record's own entries are read after all (see record()).
  std::unordered_set<std::string> touched;
  auto range = recorded_.begin();
  while (loaded_version_ < latest) {
    std::vector<store::Event> events = store_.events_since(loaded_version_, kEventBatch);
    if (events.empty()) break;
    for (store::Event& e : events) {
      loaded_version_ = e.resource_version;
      const KindInfo* stored = api::find_store_kind(e.kind);
      if (stored == nullptr || !stored->scheduled) continue;
      const std::optional<cache::Kind> kind = cache::kind_from_name(stored->kind);
      if (!kind) continue;
      while (range != recorded_.end() && range->second < e.resource_version) ++range;
      if (range != recorded_.end()) {
        if (e.resource_version <= range->first) {
          touched.insert(e.kind + " " + e.key);
        } else if (!touched.contains(e.kind + " " + e.key)) {
          continue;  // the cache took it from the session's outcome
        }
      }
      if (e.type == "DELETED") {
        if (!undecodable_.empty()) undecodable_.erase(e.kind + " " + e.key);
        changes.push_back(cache::ObjectChange::remove(*kind, std::move(e.key)));
      } else if (e.type == "ADDED" || e.type == "MODIFIED") {
        // The entry holds the object as written; the API decoded it already
        // if it came that way.
        if (auto decoded = written_.take(e.kind, e.key, e.resource_version, e.json)) {
          if (!undecodable_.empty()) undecodable_.erase(e.kind + " " + e.key);
          for (decode::Decoded& d : *decoded)
            changes.push_back(cache::ObjectChange::upsert(std::move(d.object), d.never_preempt));
        } else {
          decode(e.kind, e.key, e.resource_version, e.json, changes);
        }
      }
      // BOUND, EVICTED and STATUS record decisions whose object changes
      // are logged as well.
    }
  }
  cache.apply_changes(changes);
  written_.clear();
  recorded_.clear();
  return std::nullopt;
}

void LocalCluster::relist(cache::ClusterCache& cache, int64_t version) {
  std::vector<store::StoredObject> objects;
  for (const KindInfo& kind : api::resources())
    if (kind.scheduled)
      for (store::StoredObject& o : store_.list(api::store_kind(kind)))
        objects.push_back(std::move(o));
  // Decoded on every core, each object into its own slot (a stored object
  // is one object, never a List); one that fails is skipped.
  std::vector<cache::ObjectChange> changes(objects.size());
  std::vector<std::string> errors(objects.size());
  input::run_ordered_batches(objects.size(), [&](size_t i) {
    try {
      decode_into(objects[i].json, changes[i]);
    } catch (const std::exception& e) {
      errors[i] = e.what();
      changes[i].type = cache::ObjectChange::Type::Delete;  // replace() takes upserts only
    }
    return true;
  });
  for (size_t i = 0; i < objects.size(); ++i) {
    const store::StoredObject& o = objects[i];
    if (!errors[i].empty()) {
      log_undecodable(o.kind, o.key, o.resource_version, errors[i]);
      continue;
    }
    if (!undecodable_.empty()) undecodable_.erase(o.kind + " " + o.key);
    // What the store holds is what was reported: not written again.
    if (const auto* group = std::get_if<model::PodGroup>(&changes[i].object))
      reports_.remember_pod_group(group->key(), group->phase, group->unschedulable);
  }
  objects = {};
  cache.replace(std::move(changes));
  loaded_version_ = version;
}

bool LocalCluster::decode(const std::string& kind, const std::string& key, int64_t version,
                          const std::string& text, std::vector<cache::ObjectChange>& out) {
  try {
    decode_into(text, out.emplace_back());
  } catch (const std::exception& e) {
    out.pop_back();
    log_undecodable(kind, key, version, e.what());
    return false;
  }
  if (!undecodable_.empty()) undecodable_.erase(kind + " " + key);
  return true;
}

void LocalCluster::log_undecodable(const std::string& kind, const std::string& key, int64_t version,
                                   std::string_view error) {
  const auto [it, fresh] = undecodable_.try_emplace(kind + " " + key, version);
  if (!fresh && it->second == version) return;
  it->second = version;
  log::write(log::kWarning, "local",
             kind + " " + key + " (version " + std::to_string(version) +
                 ") cannot be read and is skipped: " + std::string(error));
}

std::optional<LocalCluster::BindDraft> LocalCluster::draft(
    const cycle::Outcome::Bind& bind, const store::StoredObject& stored, const json& condition,
    const std::string& uid, std::chrono::system_clock::time_point now, uint64_t suffix) const {
  json pod = json::parse(stored.json, nullptr, false);
  if (!pod.is_object() || !pod["metadata"].is_object()) return std::nullopt;
  BindDraft d;
  d.read_version = stored.resource_version;
  bind_pod(pod, bind, condition);
  d.stored = pod.dump();
  pod["apiVersion"] = "v1";
  pod["kind"] = "Pod";
  d.served_text = api::ObjectMeta::version_slot(pod);
  // Only what watchers' selectors read: the loop frees what it is sent.
  d.served = std::make_shared<const json>(api::selectable_part(pod));
  const json event = reports_.scheduled_event(bind, uid, now, suffix);
  d.event_key = event_key(event);
  d.event = event.dump();
  return d;
}

void LocalCluster::prepare(cycle::Outcome& outcome, const cache::ClusterCache& cache) {
  std::erase_if(outcome.pod_groups, [&](const cycle::Outcome::PodGroupStatus& st) {
    return reports_.reported(st) &&
           (st.key.empty() || cache.group_phase(st.key, st.source) == st.phase);
  });
  drafts_.clear();
  if (outcome.binds.empty()) return;
  std::vector<std::string> keys;
  keys.reserve(outcome.binds.size());
  for (const auto& bind : outcome.binds) keys.push_back(bind.pod);
  std::vector<std::optional<store::StoredObject>> pods;
  try {
    if (!reader_) reader_.emplace(store_.path());
    pods = reader_->get("Pod", keys);
  } catch (const store::StoreError& e) {
    // Nothing drafted: record() does it all on the loop, as it can.
    log::write(2, "local", std::string("binds not drafted: ") + e.what());
    return;
  }
  const auto now = std::chrono::system_clock::now();
  const json condition = api::scheduled_condition(now);
  // The events' name suffixes drawn here, the drafts made on every core.
  std::vector<uint64_t> suffixes(outcome.binds.size());
  for (uint64_t& suffix : suffixes) suffix = draft_random_();
  std::vector<std::optional<BindDraft>> made(outcome.binds.size());
  input::run_ordered_batches(outcome.binds.size(), [&](size_t i) {
    if (!pods[i]) return true;
    const auto& bind = outcome.binds[i];
    made[i] = draft(bind, *pods[i], condition, cache.uid_of(cache::Kind::Pod, bind.pod), now,
                    suffixes[i]);
    return true;
  });
  drafts_.reserve(outcome.binds.size());
  for (size_t i = 0; i < made.size(); ++i)
    if (made[i]) drafts_.insert_or_assign(outcome.binds[i].pod, std::move(*made[i]));
}

std::vector<double> LocalCluster::record(const cycle::Outcome& outcome,
                                         cache::ClusterCache& cache) {
  assert(!store_.holding() && "the API's write group is flushed before a session writes");
  const int64_t version_before = store_.latest_version();
  store::Batch batch;
  std::vector<double> latencies;
  const auto now = std::chrono::steady_clock::now();
  const auto wall = std::chrono::system_clock::now();
  // A bind sets the node and PodScheduled=True, as the API server does on a
  // real one. Drafted, unless the pod changed since; else one read and one
  // write of the pod here. Drafted pods are served to watchers as drafted:
  // upserts[i] is written at version_before + i + 1.
  std::vector<std::pair<size_t, BindDraft>> served;
  const json scheduled = api::scheduled_condition(wall);
  // The pods' volumes, bound as the PersistentVolume controller and a
  // provisioner would, and their ResourceClaims, allocated and reserved as
  // kube-scheduler's PreBind writes them (no controller runs here), in the
  // transaction that binds the pods: a pod is never bound without them.
  std::vector<cache::ObjectChange> completed = cache.volume_completions(outcome);
  for (cache::ObjectChange& c : cache.claim_completions(outcome)) completed.push_back(std::move(c));
  write_changes(completed, wall, batch);
  for (const auto& bind : outcome.binds) {
    if (const auto it = stored_at_.find(bind.pod); it != stored_at_.end()) {
      latencies.push_back(std::chrono::duration<double, std::milli>(now - it->second).count());
      stored_at_.erase(it);
    }
    batch.events.push_back(
        {"BOUND", "Pod", bind.pod, json{{"pod", bind.pod}, {"node", bind.node}}.dump()});
    if (const auto d = drafts_.find(bind.pod); d != drafts_.end()) {
      BindDraft draft = std::move(d->second);
      drafts_.erase(d);
      if (store_.version_of("Pod", bind.pod) == draft.read_version) {
        batch.upserts.push_back({"Pod", bind.pod, std::move(draft.stored)});
        batch.inserts.push_back({"Event", std::move(draft.event_key), std::move(draft.event)});
        served.emplace_back(batch.upserts.size() - 1, std::move(draft));
        continue;
      }
    }
    auto stored = store_.get("Pod", bind.pod);
    if (!stored) {
      batch.events.pop_back();
      continue;
    }
    json pod = json::parse(stored->json);
    bind_pod(pod, bind, scheduled);
    batch.upserts.push_back({"Pod", bind.pod, pod.dump()});
    const json event =
        reports_.scheduled_event(bind, cache.uid_of(cache::Kind::Pod, bind.pod), wall);
    batch.inserts.push_back({"Event", event_key(event), event.dump()});
  }
  for (const auto& pod : outcome.evictions) {
    stored_at_.erase(pod);
    batch.deletes.emplace_back("Pod", pod);
    batch.events.push_back({"EVICTED", "Pod", pod, json{{"pod", pod}}.dump()});
  }
  // Gates lifted, as Volcano's scheduler patches them off the pods.
  std::vector<cache::ObjectChange> lifted = cache.gate_removals(outcome);
  for (const auto& key : outcome.ungated) {
    auto stored = store_.get("Pod", key);
    if (!stored) continue;
    json pod = json::parse(stored->json);
    if (cache::remove_queue_gate(pod)) batch.upserts.push_back({"Pod", key, pod.dump()});
  }
  // Events, conditions and statuses, as Volcano reports them.
  if (!events_scanned_) {
    // Events stored before this process started expire an hour from now.
    for (const store::StoredObject& o : store_.list("Event"))
      event_expiry_.emplace_back(now + kEventTtl, o.key);
    events_scanned_ = true;
  }
  api::DecisionReport report = reports_.report(
      outcome, cache.dims(), wall,
      [&cache](std::string_view kind, const std::string& key) {
        return cache.uid_of(kind == "Pod" ? cache::Kind::Pod : cache::Kind::PodGroup, key);
      },
      api::DecisionReports::BindEvents::Drafted);
  for (auto& [key, condition] : report.pod_conditions) {
    auto stored = store_.get("Pod", key);
    if (!stored) continue;
    json pod = json::parse(stored->json);
    if (api::set_condition(pod, std::move(condition)))
      batch.upserts.push_back({"Pod", key, pod.dump()});
  }
  const auto set_status = [&](const char* kind, const std::string& key, const json& fields) {
    auto stored = store_.get(kind, key);
    if (!stored) return false;
    json object = json::parse(stored->json);
    api::merge_status(object, fields);
    batch.upserts.push_back({kind, key, object.dump()});
    return true;
  };
  // A scheduling.k8s.io PodGroup reports in one condition, as kube-scheduler
  // writes it.
  const std::string native_groups(
      api::store_kind(*api::find_resource("scheduling.k8s.io", "v1beta1", "podgroups")));
  const auto set_native_status = [&](const std::string& key, const json& fields) {
    auto stored = store_.get(native_groups, key);
    if (!stored) return;
    json object = json::parse(stored->json);
    if (std::optional<json> c = api::initially_scheduled_condition(object, fields, wall);
        c && api::set_condition(object, std::move(*c)))
      batch.upserts.push_back({native_groups, key, object.dump()});
  };
  for (const auto& [key, fields] : report.pod_group_statuses) {
    if (!set_status("PodGroup", key, fields)) {
      set_native_status(key, fields);
      continue;
    }
    const std::string* message = reports_.unschedulable(key);
    batch.events.push_back({"STATUS", "PodGroup", key,
                            json{{"podgroup", key},
                                 {"phase", fields["phase"]},
                                 {"message", message ? *message : std::string()}}
                                .dump()});
  }
  for (const auto& [name, allocated] : report.queue_statuses)
    set_status("Queue", name, json{{"allocated", allocated}});
  if (auto shard = shard_report_.after_session(cache.sharding(), cache.own_shard() != nullptr,
                                               cache.shard_status_due()))
    set_status("NodeShard", cache.sharding().name, *shard);
  write_job_statuses(cache, wall, batch);
  for (const json& event : report.events)
    batch.inserts.push_back({"Event", event_key(event), event.dump()});
  for (const store::ObjectWrite& event : batch.inserts)
    event_expiry_.emplace_back(now + kEventTtl, event.key);
  // Events last an hour, as the API server keeps them.
  while (!event_expiry_.empty() && event_expiry_.front().first <= now) {
    batch.deletes.emplace_back("Event", event_expiry_.front().second);
    event_expiry_.pop_front();
  }
  if (!batch.upserts.empty() || !batch.inserts.empty() || !batch.deletes.empty() ||
      !batch.events.empty())
    store_.commit(batch);
  if (watchers_ != nullptr)
    for (auto& [at, draft] : served) {
      const int64_t version = version_before + static_cast<int64_t>(at) + 1;
      watchers_->note(version,
                      WatchHub::Served{"Pod", batch.upserts[at].key, std::move(draft.served),
                                       draft.served_text.fill(version)});
    }
  // Drafts of binds not in this piece wait for the next one.
  cache.apply(outcome);
  if (!completed.empty()) cache.apply_changes(completed);
  if (!lifted.empty()) cache.apply_changes(lifted);
  // Evicted pods are deleted from the store: from the cache too.
  cache.remove_evicted(outcome);
  // What the resource-claim controller would do now that the outcome is in
  // (claims made for new pods, reservations of pods gone dropped).
  if (std::vector<cache::ObjectChange> claims = cache.claim_controller(); !claims.empty()) {
    store::Batch more;
    write_changes(claims, wall, more);
    store_.commit(more);
    cache.apply_changes(claims);
  }
  // The cache already holds what this batch wrote: the log need not be read
  // back. If others wrote since the cache was refreshed, the next refresh
  // reads theirs, and of ours only the objects theirs changed too (the
  // cache applied the outcome to its state from before their changes).
  if (loaded_version_ == version_before)
    loaded_version_ = store_.latest_version();
  else
    recorded_.emplace_back(version_before, store_.latest_version());
  return latencies;
}

void LocalCluster::write_job_statuses(const cache::ClusterCache& cache,
                                      std::chrono::system_clock::time_point wall,
                                      store::Batch& batch) {
  const std::vector<store::StoredObject> jobs = store_.list("Job");
  if (jobs.empty()) return;
  const std::string now = api::ObjectMeta::rfc3339(wall);
  for (const store::StoredObject& stored : jobs) {
    json job = json::parse(stored.json, nullptr, false);
    if (!job.is_object()) continue;
    // The job's PodGroup is named after it (decode/volcano_job.h).
    const model::PodGroup* group = cache.pod_group(stored.key);
    if (group == nullptr) continue;
    const std::vector<const model::Pod*> pods = cache.group_pods(stored.key);
    json status = job_status(job, group->min_member, pods, now);
    if (job.value("status", json()) == status) continue;
    job["status"] = std::move(status);
    batch.upserts.push_back({"Job", stored.key, job.dump()});
  }
}

void LocalCluster::write_changes(std::span<const cache::ObjectChange> changes,
                                 std::chrono::system_clock::time_point wall, store::Batch& batch) {
  api::ObjectMeta meta;
  for (const cache::ObjectChange& c : changes) {
    const std::string kind(cache::kind_name(c.kind));
    if (c.type == cache::ObjectChange::Type::Delete) {
      batch.deletes.emplace_back(kind, c.key);
      continue;
    }
    const std::string key = cache::object_key(c.object);
    const std::string text = std::visit(
        [](const auto& o) -> std::string {
          if constexpr (requires { o.json; })
            return o.json;
          else
            return "{}";
        },
        c.object);
    json object = json::parse(text);
    if (!store_.version_of(kind, key)) {  // made here (a volume provisioned, a claim): new
      object["metadata"]["uid"] = meta.uid();
      object["metadata"]["creationTimestamp"] = api::ObjectMeta::rfc3339(wall);
    }
    batch.upserts.push_back({kind, key, object.dump()});
  }
}

const std::string* LocalCluster::unschedulable_reason(std::string_view podgroup) const {
  return reports_.unschedulable(std::string(podgroup));
}

}  // namespace scoria::serve
