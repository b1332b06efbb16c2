// What the cache hands a session: the cluster as dense arrays of pointers
// into the cache's objects, and what changed since the writer's last
// refresh. Plain data, below both the cache that writes it and the session
// that reads it.
#pragma once

#include <scoria/scoria.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cycle/devices.h"
#include "cycle/storage.h"
#include "model/node_shard.h"
#include "model/objects.h"

namespace scoria::cycle {

/// What the ABI shows of a pod beyond the model: built once per pod by the
/// cache and shared by every session.
struct TaskViews {
  std::string uid;  // "namespace/name"
  /// Values of each node-affinity requirement as ABI strings, by term.
  std::vector<std::vector<std::vector<scoria_str>>> required, preferred;
  /// Its equivalence class (cache/equivalence_key.h), 1 and up, the same
  /// for every pod alike; 0 for a pod in none (placed ones).
  uint32_t equivalence = 0;
  /// For a pending pod with claims: the wider class of pods alike but for
  /// their claims' names (equivalence_key_without_claim_names), numbered
  /// as `equivalence` is; 0 for the others.
  uint32_t alike_but_claims = 0;
};

/// What a session reads of every PodGroup, kept by the snapshot's owner
/// side by side for all of them: a session's walk over its jobs then streams
/// through these instead of missing the cache on each large PodGroup. The
/// views point into the PodGroup; the owner refreshes them when it changes.
struct GroupFields {
  std::string_view namespace_, name, queue;
  int64_t creation_ms = 0;
  int32_t min_member = 1;
  bool preemptable = false;
  bool has_min_resources = false;
  bool has_network_topology = false;
  bool has_sub_group_policy = false;

  static GroupFields of(const model::PodGroup& g) {
    return {g.namespace_,
            g.name,
            g.queue,
            g.creation_ms,
            g.min_member,
            g.preemptable,
            g.has_min_resources,
            g.network_topology.has_value(),
            !g.sub_group_policy.empty()};
  }
};

/// Input of a session: the snapshot the cache hands over. Pointers stay
/// valid for the session's life (the cache keeps the objects alive).
/// Jobs' task lists are spans into `tasks`, so a snapshot moves but is never
/// copied.
struct Snapshot {
  Snapshot() = default;
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;
  Snapshot(Snapshot&&) = default;
  Snapshot& operator=(Snapshot&&) = default;
  ~Snapshot() = default;

  std::vector<std::string> dims;  // cpu, memory, pods, extended...
  struct TaskIn {
    const model::Pod* pod;
    const TaskViews* views;
    uint32_t status;
    int32_t node;  // node index or -1
    int32_t priority;
    uint32_t features;  // pod->features, read here without touching the pod
    std::span<const double> resreq;
    std::span<const double> init_resreq;
  };
  struct JobIn {
    const model::PodGroup* group;
    int32_t queue;
    int32_t priority;
    model::PodGroupPhase phase;
    std::span<const double> min_resources;
    std::span<const TaskIn> tasks;  // side by side, job after job, in `tasks`
    /// Why the job cannot be scheduled (a queue, PodGroup or PriorityClass
    /// it names does not exist); empty if it can. Such a job comes with no
    /// queue, so every action passes it by, and the reason is reported.
    std::string_view invalid = {};
    /// The snapshot's own id for the job, handed back unchanged in
    /// Outcome::PodGroupStatus::source so that it finds the job again
    /// without a lookup by name; `source_seq` (non-zero) tells whether the
    /// id still means the same job under the same key, without comparing
    /// names: a writer never gives two jobs, or one job under two keys, the
    /// same (source, source_seq).
    uint32_t source = UINT32_MAX;
    uint64_t source_seq = 0;
    /// group->key(), held by the snapshot's owner (the cache indexes groups
    /// by it); empty: the session makes it.
    std::string_view key = {};
    /// GroupFields::of(*group), as its owner keeps it.
    GroupFields fields = {};
  };
  struct NodeIn {
    const model::Node* spec;
    std::span<const double> allocatable;
  };
  struct QueueIn {
    const model::Queue* spec;
    std::span<const double> capability, deserved, guarantee;
  };
  std::vector<NodeIn> nodes;
  std::vector<QueueIn> queues;
  std::vector<JobIn> jobs;
  std::vector<TaskIn> tasks;                        // what the jobs' spans look at
  std::vector<const model::Namespace*> namespaces;  // by name
  /// Objects of the kinds plugins read whole, each one's JSON, by namespace
  /// then name (PodDisruptionBudget, ResourceQuota).
  struct KindObjects {
    std::string_view kind;
    std::vector<std::string_view> json;
  };
  std::vector<KindObjects> objects;
  /// PersistentVolumes, claims and what provisions them (cycle/storage.h).
  Storage storage;
  /// DeviceClasses, ResourceSlices, ResourceClaims and their templates
  /// (cycle/devices.h).
  Devices devices;
  /// HyperNodes, by name; the session resolves their members.
  std::vector<const model::HyperNode*> hyper_nodes;
  /// Node shards (model/node_shard.h): the mode, and with a mode, whether
  /// each node (by position) is in this instance's working set.
  model::ShardingMode sharding = model::ShardingMode::None;
  std::vector<uint8_t> in_shard;
  /// Set by a writer (the cache) whose every job and task vector holds
  /// dims.size() values and whose `tasks` holds exactly the jobs' tasks: a
  /// session then sizes its arrays from `tasks` without a pass over them.
  bool exact_vectors = false;
  /// The session's clock, ms since the epoch: the wall clock in `serve`,
  /// the simulated one in `simulate`. Plugins that judge time (sla, cdp)
  /// read it, so a simulated run decides as a live one would at that time.
  int64_t now_ms = 0;
  /// What changed since the writer's previous refresh of this snapshot, so
  /// that a session keeps the last one's records of everything else
  /// (session_reuse.cpp). `writer` names a kept snapshot (0: this snapshot
  /// stands alone), `version` counts its refreshes, and `layout` changes
  /// whenever a job, task, node or queue may have moved or changed size.
  /// While `layout` holds, the refresh that made `version` took out the
  /// jobs that were at positions `removed` (ascending, as they were), the
  /// others moving down in order with their tasks; then wrote again only the
  /// jobs at positions `jobs` (as they are now) and changed only the nodes
  /// at `nodes`; jobs past the last one kept arrived. The request and
  /// minResources vectors of the jobs taken out still hold their values
  /// until the writer's next refresh: a session takes them off its sums.
  struct Changes {
    uint64_t writer = 0;
    uint64_t version = 0;
    uint64_t layout = 0;
    std::vector<uint32_t> jobs;
    std::vector<uint32_t> nodes;
    std::vector<uint32_t> removed;
    /// A request or minResources vector of a job held before took other
    /// values (what a session summed from it is not known any more).
    bool vectors_changed = false;

    /// How many of the jobs taken out stood before position `was` (as it
    /// was): a job kept moved down by that many.
    uint32_t removed_before(uint32_t was) const {
      return static_cast<uint32_t>(std::lower_bound(removed.begin(), removed.end(), was) -
                                   removed.begin());
    }
    /// Where the jobs now at positions `now` (ascending, each one kept)
    /// stood before the jobs in `removed` were taken out.
    std::vector<uint32_t> positions_before(std::span<const uint32_t> now) const {
      std::vector<uint32_t> was;
      was.reserve(now.size());
      for (size_t k = 0; const uint32_t j : now) {
        while (k < removed.size() && removed[k] <= j + k) ++k;
        was.push_back(j + static_cast<uint32_t>(k));
      }
      return was;
    }
  };
  Changes changes;
};

}  // namespace scoria::cycle
