// The scheduler cache: the cluster's objects as the cluster source last
// reported them, with everything a session needs resolved at ingest
// (resource vectors, dimension ids, priorities, queues, implicit PodGroups,
// ABI string views). A session snapshot points into it instead of copying.
//
// Sources feed it as an informer feeds Volcano's cache (object_change.h):
// replace() for a list (the first load, or a relist when the watch cannot
// resume), then apply_changes() for each batch of watch events. A change
// costs what it touches: a modified pod is re-vectorized alone, a new node,
// queue or PodGroup touches its entry and the indexes that name it. The
// completion rules of source::complete_objects hold throughout, including
// for objects that arrive before or after the ones they reference.
//
// A dangling reference (a PodGroup naming a missing queue or PriorityClass,
// a pod naming a missing PodGroup or PriorityClass) never refuses the
// cluster: the object is kept, its job is handed to the session with no
// queue and a reason (Snapshot::JobIn::invalid) and is not scheduled, and
// every other job schedules. It heals when the missing object arrives.
//
// Addresses: entries live in deques and a freed slot is reused, so a
// snapshot's pointers hold until the next change; sessions never overlap a
// change (the service's event loop runs them one after the other).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "cache/object_change.h"
#include "cache/slot_table.h"
#include "cache/storage_index.h"
#include "cache/vector_store.h"
#include "cycle/outcome.h"
#include "cycle/snapshot.h"
#include "model/cluster_objects.h"
#include "model/devices.h"
#include "model/objects.h"
#include "model/storage.h"

namespace scoria::cache {

class ClusterCache {
 public:
  ClusterCache();

  /// Replaces the whole cluster with `objects` (the file and simulate
  /// sources). Completed objects (source::complete_objects) come out as
  /// they went in; objects that are not complete are completed here.
  void reset(model::ClusterObjects objects);
  /// Replaces the whole cluster with the Upserts in `objects` (a list, or a
  /// relist after the watch was lost), in their order.
  void replace(std::vector<ObjectChange> objects);
  /// Applies watch events in order. Upsert of an unknown key adds, of a
  /// known one replaces; Delete of an unknown key does nothing.
  void apply_changes(std::span<ObjectChange> changes);

  /// The spec.schedulerName values of the pods this scheduler places (a
  /// pod without one is placed too); set before the first change. Pods of
  /// other schedulers still occupy the nodes they run on.
  void set_scheduler_names(std::vector<std::string> names);
  /// Which nodes this instance schedules on (model/node_shard.h); set before
  /// the first snapshot. Without a mode, every node.
  void set_sharding(model::Sharding sharding);
  const model::Sharding& sharding() const { return sharding_; }
  /// The working set: this instance's NodeShard's nodesDesired less the
  /// nodes other shards have in use; sorted. Empty when the shard does not
  /// exist (nothing is in it: sharding fails closed). Worked out again only
  /// after a change the snapshot's header shows (which a NodeShard's is).
  const std::vector<std::string>& shard_working_set() const;
  /// The instance's NodeShard, or null (no mode, or no such shard).
  const model::NodeShard* own_shard() const;
  /// The status this instance's NodeShard should show (Volcano's
  /// generateNodeShardWithStatus): nodesInUse the working set, nodesToAdd
  /// and nodesToRemove what differs from spec.nodesDesired. nullopt when
  /// the shard already shows it or does not exist.
  std::optional<model::NodeShardStatus> shard_status_due() const;
  /// The names placed unless set_scheduler_names() says otherwise.
  static constexpr std::array<std::string_view, 2> kDefaultSchedulerNames = {"volcano", "scoria"};
  /// The queue that exists while no Queue object defines it.
  static constexpr std::string_view kDefaultQueue = "default";

  /// The input of a session, written whole. Valid until the cache changes.
  cycle::Snapshot snapshot() const;
  /// The input of the next session, kept by the cache from call to call and
  /// brought up to date: only the jobs whose PodGroup or pods changed since
  /// the last call are written again, the others stay where they are (or,
  /// when jobs came, went or changed size, are copied as they were). After a
  /// change of nodes, queues or dimensions, and every time with
  /// `incremental` false (the plain path), it is written whole. Valid until
  /// the cache changes; the next call writes over it.
  const cycle::Snapshot& refresh_snapshot(int64_t now_ms, bool incremental = true);

  /// Applies what a session decided: binds place pods on their nodes,
  /// evicted pods release theirs (Releasing, as Volcano's cache marks them,
  /// until their source reports them deleted or running again), PodGroups
  /// take their new phase.
  void apply(const cycle::Outcome& outcome);
  /// Deletes the pods `outcome` evicted, for a source that deletes them as
  /// it evicts them (files, the local store). The Kubernetes source does
  /// not: its watch says when a pod has gone.
  void remove_evicted(const cycle::Outcome& outcome);
  /// The changes that complete the volume bindings of `outcome`'s binds as
  /// Kubernetes' PersistentVolume controller and a CSI provisioner would
  /// (storage_completion.cpp), for sources where none runs (files, the
  /// local store): they go in as any source's changes do.
  std::vector<ObjectChange> volume_completions(const cycle::Outcome& outcome) const;
  /// The changes that write the ResourceClaim allocations and reservations
  /// of `outcome`'s binds into the claims' status, as kube-scheduler's
  /// PreBind does (claim_completion.cpp), for the same sources.
  std::vector<ObjectChange> claim_completions(const cycle::Outcome& outcome) const;
  /// The pods of `outcome.ungated` without the queue-allocation gate, for
  /// `simulate`, where no API server takes the patch (queue_gate.cpp).
  std::vector<ObjectChange> gate_removals(const cycle::Outcome& outcome) const;
  /// What Kubernetes' resource-claim controller would change now, for the
  /// same sources: claims made from templates for the pods that name them
  /// (POD-ENTRY), reservations of pods gone or finished dropped, claims no
  /// pod holds deallocated, claims made for a pod deleted with it.
  std::vector<ObjectChange> claim_controller() const;

  /// metadata.uid of a pod or PodGroup by key; empty if unknown.
  std::string uid_of(Kind kind, const std::string& key) const;
  /// The phase the cache holds for a PodGroup ("ns/name"), if it has it.
  /// `source`, the snapshot's id for it (Outcome::PodGroupStatus::source),
  /// spares the lookup by key while it still names the same PodGroup.
  std::optional<model::PodGroupPhase> group_phase(const std::string& key,
                                                  uint32_t source = kNone) const;

  /// PodGroup `key` ("ns/name") as the cache holds it, or null; and its
  /// pods, in arrival order (none when there is no such group).
  const model::PodGroup* pod_group(const std::string& key) const;
  std::vector<const model::Pod*> group_pods(const std::string& key) const;

  /// Undoes apply()'s bind of `pod` ("ns/name") when the source could not
  /// write it: the pod is pending again, for a later session (kube-
  /// scheduler's ForgetPod). A pod the source itself reported bound stays.
  void forget_bind(const std::string& pod);

  const std::vector<std::string>& dims() const { return dims_; }
  uint64_t generation() const { return generation_; }
  size_t node_count() const { return nodes_.size(); }
  size_t pod_count() const { return pods_.size(); }

  /// The storage kinds as the source last reported them (no defaults are
  /// filled in, nothing is resolved).
  const std::map<std::string, model::PersistentVolume>& persistent_volumes() const {
    return persistent_volumes_;  // by name
  }
  const std::map<std::string, model::PersistentVolumeClaim>& volume_claims() const {
    return volume_claims_;  // by "ns/name"
  }
  const std::map<std::string, model::StorageClass>& storage_classes() const {
    return storage_classes_;  // by name
  }
  const std::map<std::string, model::CSINode>& csi_nodes() const {
    return csi_nodes_;  // by node name
  }
  const std::map<std::string, model::CSIDriver>& csi_drivers() const {
    return csi_drivers_;  // by name
  }
  const std::map<std::string, model::CSIStorageCapacity>& storage_capacities() const {
    return storage_capacities_;  // by "ns/name"
  }
  /// Moves on with every change of any of the six storage kinds (and every
  /// replace), so that what is derived from them can tell it is stale.
  uint64_t storage_version() const { return storage_version_; }
  /// The sessions' view of the storage kinds, brought up to date.
  const cycle::Storage& storage_view() const;

  /// The Dynamic Resource Allocation kinds as the source last reported them.
  const std::map<std::string, model::DeviceClass>& device_classes() const {
    return device_classes_;  // by name
  }
  const std::map<std::string, model::ResourceSlice>& resource_slices() const {
    return resource_slices_;  // by name
  }
  const std::map<std::string, model::ResourceClaim>& resource_claims() const {
    return resource_claims_;  // by "ns/name"
  }
  const std::map<std::string, model::ResourceClaimTemplate>& claim_templates() const {
    return claim_templates_;  // by "ns/name"
  }
  /// Moves on with every change of any of the four device kinds (and every
  /// replace), as storage_version() does for storage, so that answers a
  /// session kept about devices can tell they are stale.
  uint64_t devices_version() const { return devices_version_; }
  /// The sessions' view of the device kinds (Snapshot::devices).
  cycle::Devices devices_view() const;

 private:
  /// What every snapshot reads of every pod (SlotTable's hot fields).
  struct PodHot {
    uint32_t status = 0;
    uint32_t node = kNone;
    uint32_t group = kNone;
    int32_t priority = 0;   // pod.priority, resolved
    uint32_t features = 0;  // pod.features
    bool listed = false;    // a task of the session: ours, or on a node
  };
  struct PodEntry {
    model::Pod pod;  // completed: priority, preemptionPolicy, group name resolved
    std::optional<int32_t> spec_priority;
    bool spec_preempt_never = false;
    std::string group_annotation;  // as given; empty: an implicit group
    cycle::TaskViews views;
    std::string invalid;  // why its job cannot be scheduled; empty if it can
  };
  struct GroupEntry {
    model::PodGroup group;
    std::vector<uint32_t> pods;  // member slots, in pod arrival order
    std::string invalid;         // why it cannot be scheduled; empty if it can
    uint32_t queue = kNone;
    int32_t priority = 0;
    uint32_t owner = kNone;     // the pod an implicit group was made for
    uint32_t invalid_pods = 0;  // members with a reason of their own
    bool placeholder = false;   // named by pods, not defined
  };
  // What every snapshot reads of every group (SlotTable's Hot), mirrored
  // from its entry by group_changed().
  struct GroupHot {
    cycle::GroupFields fields;
    uint32_t owner = kNone;
    bool placeholder = false;
    // The phase the cache holds: the source's, until a session sets another
    // (kept here, not in the entry: applying an outcome compares every job's).
    model::PodGroupPhase phase = model::PodGroupPhase::Pending;
  };
  struct NodeEntry {
    model::Node node;
    std::vector<double> allocatable;
  };
  struct QueueEntry {
    model::Queue queue;
    std::vector<double> capability, deserved, guarantee;
    bool implicit = false;  // "default" while no Queue defines it
  };
  struct ClassEntry {
    model::PriorityClass pc;
    bool never_preempt = false;
  };
  /// What pods without a class, and groups without one, take.
  struct DefaultClass {
    std::string name;
    int32_t value = 0;
    bool never_preempt = false;
    bool operator==(const DefaultClass&) const = default;
  };
  using SlotSet = std::unordered_set<uint32_t>;

  // --- cluster_cache.cpp: loading, dimensions, snapshot, outcome ----------
  void clear();
  /// What reset() and replace() share: clears, then files what `in` holds
  /// (each object once) kind by kind, the storage kinds on another thread,
  /// which counts the pods of each claim first. `In` is one of
  /// cluster_cache.cpp's two inputs: lists by kind, or a list of changes.
  template <class In>
  void load(In& in);
  template <class In>
  void count_claim_pods(const In& in);
  /// claim_pods_'s key of a pod's claim.
  static std::string claim_key(const std::string& ns, const std::string& claim) {
    return ns + "/" + claim;
  }
  void finish_batch();
  void count_resources(const model::ResourceList& list, int delta);
  void rebuild_dims();
  void vectorize_into(const model::ResourceList& list, double absent, std::span<double> v) const;
  std::vector<double> vectorize(const model::ResourceList& list, double absent) const;
  void vectorize_node(NodeEntry& e) const;
  /// `existing`: the pod was there before this change; a change of its
  /// vectors' values is noted (vectors_changed_).
  void vectorize_pod(uint32_t slot, bool existing = false);
  /// A pod's resource vectors in pod_vectors_: resreq, then init_resreq.
  std::span<const double> resreq_of(uint32_t slot) const;
  std::span<const double> init_resreq_of(uint32_t slot) const;
  void vectorize_queue(QueueEntry& e) const;
  void vectorize_group(uint32_t slot);
  // Whether `v` now differs from `before` (as many values); notes it.
  void note_vector_change(std::span<const double> before, std::span<const double> v);
  // After a group's entry changed: its vector and its GroupHot.
  void group_changed(uint32_t slot);
  /// A PodGroup's minResources in group_vectors_.
  std::span<const double> min_resources_of(uint32_t slot) const;

  // --- cache_snapshot.cpp: a session's input, whole or kept up to date ------
  /// Where each node and queue slot stands among the snapshot's (-1: absent).
  struct SnapshotPlaces {
    std::vector<int32_t> node_at, queue_at;
    bool operator==(const SnapshotPlaces&) const = default;
  };
  /// Snapshot::sharding and in_shard, for the nodes `s` holds (node_shards.cpp).
  void shard_header(cycle::Snapshot& s) const;
  /// Everything but the jobs and their tasks, into `s`.
  void snapshot_header(cycle::Snapshot& s, SnapshotPlaces& places) const;
  /// Calls emit(group slot) for every job, in snapshot order.
  template <class Emit>
  void each_job_slot(Emit&& emit) const;
  /// Job `slot` as the snapshot shows it, with no tasks yet.
  cycle::Snapshot::JobIn job_in(uint32_t slot, const SnapshotPlaces& places) const;
  /// How many of its pods job `slot` lists as tasks.
  size_t task_count(uint32_t slot) const;
  /// Pod `slot` as the snapshot shows it.
  cycle::Snapshot::TaskIn task_in(uint32_t slot, const SnapshotPlaces& places) const;
  /// Where the snapshot's order puts group `slot` (KeptSnapshot::place).
  uint8_t place_of(uint32_t slot) const;
  /// Appends job `slot` with its tasks to `s` (whose tasks never reallocate).
  void add_job(cycle::Snapshot& s, uint32_t slot, const SnapshotPlaces& places) const;
  /// Takes the jobs that left out of the kept snapshot, rewrites in place
  /// the changed ones, and appends those that arrived when they come last
  /// in its order; false (having written nothing) if one moved or changed
  /// size, or one arrived elsewhere. Says in `told` the positions taken out
  /// (before) and rewritten (after).
  bool patch_kept(const std::vector<uint32_t>& changed, cycle::Snapshot::Changes& told);
  /// Takes the jobs at positions `gone` (ascending) out of the kept
  /// snapshot, the others moving down in order.
  void take_out_kept(const std::vector<uint32_t>& gone);
  /// Notes where the kept snapshot's last job sits (KeptSnapshot::last_place).
  void note_last_job();
  /// Rewrites the kept snapshot, copying the jobs that did not change (none,
  /// with job_at cleared: a whole write).
  void copy_kept();
  /// The group slots whose job may differ from the kept snapshot's.
  std::vector<uint32_t> changed_jobs();

  // --- cache_objects.cpp: one upsert and one delete per kind ---------------
  void apply_change(ObjectChange& change);
  void upsert_node(model::Node node);
  void remove_node(const std::string& key);
  void upsert_queue(model::Queue queue);
  void remove_queue(const std::string& key);
  void upsert_class(model::PriorityClass pc, bool never_preempt);
  void remove_class(const std::string& key);
  void upsert_group(model::PodGroup group);
  void remove_group(const std::string& key);
  void upsert_pod(model::Pod pod);
  void remove_pod(const std::string& key);
  bool ours(const model::Pod& pod) const;

  // --- cache_references.cpp: references, priorities, reasons ---------------
  DefaultClass default_class() const;
  void classes_changed(const std::string& name, const DefaultClass& before);
  void resolve_pod(uint32_t slot);
  void resolve_group(uint32_t slot);
  void join_group(uint32_t pod);
  void leave_group(uint32_t pod);
  void index_group(uint32_t slot, bool add);
  void index_pod(uint32_t slot, bool add);
  uint32_t placeholder(const std::string& key);
  /// The PodGroup slot `source` if it still holds `key`, else the one that does.
  uint32_t group_slot(uint32_t source, uint64_t seq, const std::string& key) const;
  const std::string& job_reason(const GroupEntry& g) const;

  // --- implicit_groups.cpp: a PodGroup for each pod without one -------------
  void make_implicit_group(uint32_t pod);
  void refresh_implicit_group(uint32_t pod);
  void evict_implicit(uint32_t group);
  void wake_names(const std::string& key);
  void name_implicit_groups();
  void name_implicit(uint32_t pod);

  std::vector<std::string> dims_;
  std::unordered_map<std::string, size_t> dim_index_;
  std::map<std::string, uint32_t> extended_;  // extended resource -> lists naming it
  bool dims_dirty_ = false;
  // A pod's requests or a kept group's minResources took other values since
  // the last refresh_snapshot() (Snapshot::Changes::vectors_changed).
  bool vectors_changed_ = false;
  std::vector<double> vector_before_;  // scratch of vectorize_pod and vectorize_group

  SlotTable<NodeEntry> nodes_;
  SlotTable<QueueEntry> queues_;
  SlotTable<ClassEntry> classes_;
  // By name, as sessions look them up; only their labels are read.
  std::map<std::string, model::Namespace> namespaces_;
  // Kinds only plugins read, whole (session_object_json): by namespace,
  // then name, the order sessions hand them out in.
  using NamespacedName = std::pair<std::string, std::string>;
  std::map<NamespacedName, model::PodDisruptionBudget> disruption_budgets_;
  std::map<std::string, model::HyperNode> hyper_nodes_;  // by name
  std::map<std::string, model::NodeShard> node_shards_;  // by name
  std::map<NamespacedName, model::ResourceQuota> resource_quotas_;
  std::map<std::string, model::Numatopology> numa_topologies_;  // by node name
  // Storage, by each object's key (model/storage.h).
  std::map<std::string, model::PersistentVolume> persistent_volumes_;
  std::map<std::string, model::PersistentVolumeClaim> volume_claims_;
  std::map<std::string, model::StorageClass> storage_classes_;
  std::map<std::string, model::CSINode> csi_nodes_;
  std::map<std::string, model::CSIDriver> csi_drivers_;
  std::map<std::string, model::CSIStorageCapacity> storage_capacities_;
  // Devices, by each object's key (model/devices.h).
  std::map<std::string, model::DeviceClass> device_classes_;
  std::map<std::string, model::ResourceSlice> resource_slices_;
  std::map<std::string, model::ResourceClaim> resource_claims_;
  std::map<std::string, model::ResourceClaimTemplate> claim_templates_;
  SlotTable<GroupEntry, GroupHot> groups_;
  SlotTable<PodEntry, PodHot> pods_;
  // Every pod slot's resreq and init_resreq, 2 * dims_ values each, side by
  // side: a snapshot reads them for every pod, in slot order mostly, and
  // chunks of them stream where vectors of their own would each miss.
  VectorStore pod_vectors_;
  // Every PodGroup slot's minResources, dims_ values each, side by side (as
  // pod_vectors_, for the plugins that read every job's).
  VectorStore group_vectors_;
  // Equivalence classes of pending pods by key (equivalence_key.h), 1 and
  // up, kept for the cache's life so that a class keeps its number.
  std::unordered_map<std::string, uint32_t> equivalence_ids_;

  // Reverse indexes: who names what, so an arrival or a departure finds the
  // objects it resolves or strands without a scan.
  std::unordered_map<std::string, SlotSet> groups_by_queue_, groups_by_class_;
  // (Pods naming no class are left out of pods_by_class_: see classes_changed.)
  std::unordered_map<std::string, SlotSet> pods_by_class_, pods_by_node_;
  // How many pods name each PersistentVolumeClaim ("ns/name"): a claim
  // shared by pods counts once on a node (cycle::Storage::claim_pods).
  std::unordered_map<std::string, uint32_t> claim_pods_;
  // While load() counts claim_pods_ on its own, index_pod leaves it alone.
  bool claim_pods_apart_ = false;
  // The PersistentVolumes still to bind (Available or Pending), by name:
  // what the storage index is made from when a storage object changes.
  std::set<std::string> unbound_volumes_;
  std::set<std::string> global_defaults_;  // classes with globalDefault
  // Pods whose implicit group needs its name (re)computed: (arrival, slot).
  std::vector<std::pair<uint64_t, uint32_t>> to_name_;
  uint64_t generation_ = 0;
  // Bumped whenever what snapshot_header() writes may change.
  uint64_t header_version_ = 0;
  uint64_t storage_version_ = 0;  // storage_version()
  uint64_t devices_version_ = 0;  // devices_version()
  // The sessions' view of the storage kinds; written by snapshot_header.
  mutable StorageIndex storage_index_;
  std::vector<std::string> scheduler_names_{kDefaultSchedulerNames.begin(),
                                            kDefaultSchedulerNames.end()};
  model::Sharding sharding_;
  // shard_working_set(), as of header_version_ `working_set_version_`.
  mutable std::vector<std::string> working_set_;
  mutable uint64_t working_set_version_ = UINT64_MAX;

  // The snapshot refresh_snapshot() keeps, and what its jobs were written
  // against: while nodes, queues and dimensions stay as they were, a job
  // whose PodGroup and pods did not change (SlotTable::changed()) holds.
  struct KeptSnapshot {
    cycle::Snapshot snapshot;
    bool valid = false;
    SnapshotPlaces places;
    size_t dims = 0;
    uint64_t pod_vectors = 0, group_vectors = 0;  // VectorStore::generation()
    uint64_t groups_moves = 0, pods_moves = 0;    // SlotTable::move_version()
    uint64_t header_version = 0;                  // header_version_ when its header was written
    // Where the last job sits in the order (Place), and for an implicit
    // one, its pod's arrival rank: a job arriving after it is appended.
    uint8_t last_place = 0;
    uint64_t last_owner_seq = 0;
    std::vector<uint32_t> job_at;  // by group slot: its index in snapshot.jobs, or kNone
    std::vector<uint8_t> place;    // by group slot: defined, implicit or only named
    std::vector<uint64_t> seq;     // by group slot: its entry's arrival rank then
    std::vector<uint8_t> changed;  // by group slot, while refreshing
    // Counters of Snapshot::changes (the writer id is drawn once per cache,
    // so that no two caches' snapshots pass for one another).
    uint64_t writer = 0;
    uint64_t version = 0;
    uint64_t layout = 0;
    // The other side of a copy, kept for its storage.
    std::vector<cycle::Snapshot::JobIn> spare_jobs;
    std::vector<cycle::Snapshot::TaskIn> spare_tasks;
  };
  KeptSnapshot kept_;
};

}  // namespace scoria::cache
