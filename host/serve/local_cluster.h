// The `local` cluster source: the objects of DESIGN.md section 4 kept in the
// durable store, written through the HTTP API, read into the scheduler cache
// when they change, and updated with what each session decided (pods bound
// or evicted, PodGroup phases), every decision also logged for watchers.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api/decision_reports.h"
#include "api/node_shard_report.h"
#include "api/object_meta.h"
#include "api/resources.h"
#include "cache/cluster_cache.h"
#include "cache/cluster_source.h"
#include "cycle/outcome.h"
#include "schema/unknown_fields.h"
#include "serve/watch_hub.h"
#include "serve/written_objects.h"
#include "store/object_reader.h"
#include "store/object_store.h"

namespace scoria::serve {

/// A kind the scheduler reads, from the API's one resource table.
using KindInfo = api::Resource;
/// By path segment ("pods") or Kind; nullptr for a kind the scheduler does
/// not read.
const KindInfo* kind_by_path(std::string_view path);
const KindInfo* kind_by_name(std::string_view kind, std::string_view api_version = {});

struct ApplyResult {
  int64_t resource_version = 0;
  std::vector<std::string> applied;   // "Kind ns/name"
  std::set<std::string> namespaces;   // of the namespaced objects written
  std::vector<std::string> warnings;  // unknown fields, as the file loader words them
};

class LocalCluster : public cache::ClusterSource {
 public:
  /// `watchers`, when given, are handed the served form of the pods a
  /// session binds, so that they need not parse them again.
  explicit LocalCluster(store::ObjectStore& store, WatchHub* watchers = nullptr)
      : store_(store), watchers_(watchers), reports_("volcano") {}

  /// With Volcano's SchedulingGatesQueueAdmission, a pod first stored with
  /// the opt-in annotation gets the queue-allocation gate, as Volcano's
  /// webhook adds it.
  void set_queue_admission_gates(bool on) { queue_admission_gates_ = on; }

  /// Where the API leaves what its writes decoded to, for refresh to take
  /// instead of decoding the stored text again.
  WrittenObjects& written() { return written_; }

  /// Validates `text` (YAML or JSON, one or more documents) as cluster
  /// objects and stores them all, or nothing: InputError names the document,
  /// the field and the fix. `origin` names the text in messages. Fields
  /// their kinds do not have are never stored; `fields` says whether they
  /// refuse the text (Strict) or are warned about (Warn).
  ApplyResult apply(std::string_view text, std::string_view origin,
                    schema::FieldValidation fields = schema::FieldValidation::kWarn);
  /// Deletes an object; false if there is none.
  bool remove(const KindInfo& kind, std::string_view key);
  /// Sets a pod's status.phase as an executor reports it (Pending, Running,
  /// Succeeded, Failed); InputError for another phase, false if no such pod.
  bool set_pod_phase(std::string_view key, std::string_view phase);

  /// Brings the cache up to the store: the change log since the last
  /// version applied, decoded object by object and applied in place; a full
  /// relist on the first call or when the log was compacted past that
  /// version. An object that does not decode is logged (once per version)
  /// and skipped: the cache keeps its last good state of it. Objects that
  /// name missing ones are kept and their jobs wait (see ClusterCache), so
  /// this returns no error today; the optional stays for sources that can
  /// fail to sync.
  std::optional<std::string> refresh(cache::ClusterCache& cache) override;
  /// Writes what a session decided to the store (one transaction) and to
  /// the cache in place: the log entries it wrote are not read back. A bind
  /// prepare() drafted is written as drafted if the pod has not changed
  /// since. Returns, for each pod bound, the milliseconds since this service
  /// first stored it (Volcano's task scheduling latency).
  std::vector<double> record(const cycle::Outcome& outcome, cache::ClusterCache& cache) override;

  /// On the session thread: drops the statuses of schedulable jobs whose
  /// phase the cache and the store have already (at 87,000 jobs, most of
  /// every session's outcome), and drafts each bind from the store's
  /// committed state through a reader of its own: the pod's new text, its
  /// served form and its Scheduled event, the parsing and printing that
  /// would otherwise hold the loop.
  void prepare(cycle::Outcome& outcome, const cache::ClusterCache& cache) override;

  /// The last PodGroup conditions the scheduler reported, by "ns/name".
  const std::string* unschedulable_reason(std::string_view podgroup) const override;

 private:
  void relist(cache::ClusterCache& cache, int64_t version);
  /// Appends the Upsert `text` decodes to; false (logged once per version
  /// of the object) if it does not decode.
  bool decode(const std::string& kind, const std::string& key, int64_t version,
              const std::string& text, std::vector<cache::ObjectChange>& out);
  void log_undecodable(const std::string& kind, const std::string& key, int64_t version,
                       std::string_view error);

  // What record() writes for one bind, as prepare() drafted it.
  struct BindDraft {
    int64_t read_version = 0;                      // the pod's version it was drafted from
    std::string stored;                            // the pod, bound
    std::shared_ptr<const nlohmann::json> served;  // what selectors read of it
    api::ObjectMeta::VersionSlot served_text;
    std::string event_key;  // its Scheduled event
    std::string event;
  };
  /// The draft of one bind from the pod's stored text, its event named with
  /// `suffix`; nullopt if the text does not parse (record() then fails on it
  /// as it would have). Called on several threads at once.
  std::optional<BindDraft> draft(const cycle::Outcome::Bind& bind, const store::StoredObject& pod,
                                 const nlohmann::json& condition, const std::string& uid,
                                 std::chrono::system_clock::time_point now, uint64_t suffix) const;

  /// For a pod `apply()` is about to write at `key`: keeps the PodGroup
  /// annotation (and uid) of the pod it replaces, or, for a new pod that
  /// names no group, annotates it and returns the PodGroup to write with it.
  std::optional<nlohmann::json> adopt_pod(nlohmann::json& pod, const std::string& key);
  /// Adds to `batch` the objects the cache's completions changed or made
  /// (a new one gets its uid and creation time) and the ones they delete.
  // Each stored Volcano Job's status, as its controller keeps it
  // (job_status.h), where it changed.
  void write_job_statuses(const cache::ClusterCache& cache,
                          std::chrono::system_clock::time_point wall, store::Batch& batch);
  void write_changes(std::span<const cache::ObjectChange> changes,
                     std::chrono::system_clock::time_point wall, store::Batch& batch);

  store::ObjectStore& store_;
  WatchHub* watchers_;
  WrittenObjects written_;
  // The session thread's: its reader, opened on first use, and the
  // generator of its drafted events' names.
  std::optional<store::ObjectReader> reader_;
  std::mt19937_64 draft_random_{std::random_device{}()};
  // By pod key; filled by prepare(), taken by record().
  std::unordered_map<std::string, BindDraft> drafts_;
  int64_t loaded_version_ = -1;
  // The versions (first, second] each record since the last refresh wrote
  // while the cache was behind the store, oldest first.
  std::vector<std::pair<int64_t, int64_t>> recorded_;
  // Objects that did not decode, by "Kind key", with the version logged.
  std::unordered_map<std::string, int64_t> undecodable_;
  // Events, conditions and statuses to write, reported when they change.
  api::DecisionReports reports_;
  api::NodeShardReport shard_report_;
  api::ObjectMeta meta_;  // uids for what apply() creates
  // The events this process wrote, oldest first, with when they expire.
  std::deque<std::pair<std::chrono::steady_clock::time_point, std::string>> event_expiry_;
  bool events_scanned_ = false;
  bool queue_admission_gates_ = false;
  // When each pending pod was first stored by this process, by "ns/name".
  std::unordered_map<std::string, std::chrono::steady_clock::time_point> stored_at_;
};

}  // namespace scoria::serve
