// The `local` cluster source: the objects of DESIGN.md section 4 kept in the
// durable store, written through the HTTP API, read into the scheduler cache
// when they change, and updated with what each session decided (pods bound
// or evicted, PodGroup phases), every decision also logged for watchers.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cache/cluster_cache.h"
#include "session/session.h"
#include "store/object_store.h"

namespace scoria::serve {

/// The kinds the API serves, by their path segment ("pods") and Kind.
struct KindInfo {
  std::string_view path;
  std::string_view kind;
  bool namespaced;
};
const KindInfo* kind_by_path(std::string_view path);
const KindInfo* kind_by_name(std::string_view kind);

struct ApplyResult {
  int64_t resource_version = 0;
  std::vector<std::string> applied;  // "Kind ns/name"
};

class LocalCluster {
 public:
  explicit LocalCluster(store::ObjectStore& store) : store_(store) {}

  /// Validates `text` (YAML or JSON, one or more documents) as cluster
  /// objects and stores them all, or nothing: InputError names the document,
  /// the field and the fix. `origin` names the text in messages.
  ApplyResult apply(std::string_view text, std::string_view origin);
  /// Deletes an object; false if there is none.
  bool remove(const KindInfo& kind, std::string_view key);
  /// Sets a pod's status.phase as an executor reports it (Pending, Running,
  /// Succeeded, Failed); InputError for another phase, false if no such pod.
  bool set_pod_phase(std::string_view key, std::string_view phase);

  /// Reloads the cache from the store if the store changed since the last
  /// load; returns the error text if the stored objects do not form a
  /// cluster (the cache then keeps its last good state).
  std::optional<std::string> refresh(cache::ClusterCache& cache);
  /// Writes what a session decided to the store (one transaction) and to
  /// the cache. Returns, for each pod bound, the milliseconds since this
  /// service first stored it (Volcano's task scheduling latency).
  std::vector<double> record(const session::Outcome& outcome, cache::ClusterCache& cache);

  /// The last PodGroup conditions the scheduler reported, by "ns/name".
  const std::string* unschedulable_reason(std::string_view podgroup) const;

 private:
  store::ObjectStore& store_;
  int64_t loaded_version_ = -1;
  std::vector<std::pair<std::string, std::string>> reasons_;  // podgroup, message
  // When each pending pod was first stored by this process, by "ns/name".
  std::unordered_map<std::string, std::chrono::steady_clock::time_point> stored_at_;
};

}  // namespace scoria::serve
