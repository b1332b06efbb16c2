// One scheduling session (Volcano's framework.Session): the records of a
// snapshot of the cluster (records.h), the statements that change them, and
// the answers actions ask for, through its parts: the tiers' decisions on
// jobs, queues and victims (tier_dispatch.h), the search of nodes for a
// task (node_search.h), the pods' volumes and devices. What sessions keep
// between them is session_memory.h's.
#pragma once

#include <scoria/scoria.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/scheduler_config.h"
#include "cycle/explanation.h"
#include "cycle/outcome.h"
#include "cycle/snapshot.h"
#include "model/objects.h"
#include "model/resource.h"
#include "session/device_allocation.h"
#include "session/equivalence_cache.h"
#include "session/hyper_nodes.h"
#include "session/node_search.h"
#include "session/node_task_memory.h"
#include "session/plugin_hooks.h"
#include "session/records.h"
#include "session/session_memory.h"
#include "session/stage_clock.h"
#include "session/task_range.h"
#include "session/tier_dispatch.h"
#include "session/volume_binding.h"

namespace scoria::session {

// The data a cycle hands around (host/cycle), named here as the session
// has always named it.
using cycle::Explanation;
using cycle::GroupFields;
using cycle::Outcome;
using cycle::Snapshot;
using cycle::TaskViews;

class Statement;
class WorkerPool;

/// The feature bits whose tasks the session lists (tasks_with_features):
/// all but kVolumes and kDeviceClaims, which most pods of a cluster with
/// storage or devices carry, so that asking for the rare ones (pod
/// affinity, spread) stays cheap.
inline constexpr uint32_t kListedFeatures = ~uint32_t{model::kVolumes | model::kDeviceClaims};

class Session final : private NodeSearch::Needs {
 public:
  /// With `memory`, the session's arrays live in it (one session at a time).
  Session(const Snapshot& snapshot, const config::SchedulerConfig& config, WorkerPool* workers,
          SessionMemory* memory = nullptr);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // --- plugins -------------------------------------------------------------
  /// Registers the hooks of one plugin of tier `tier` (called in tier order).
  void add_plugin_hooks(size_t tier, PluginHooks hooks) { dispatch_.add(tier, std::move(hooks)); }
  const TierDispatch::Tiers& tiers() const { return dispatch_.tiers(); }
  /// The tiers' decisions on jobs, queues and victims (tier_dispatch.h).
  TierDispatch& dispatch() { return dispatch_; }

  // --- data ------------------------------------------------------------------
  size_t dims() const { return dim_names_.size(); }
  const std::vector<std::string>& dim_names() const { return dim_names_; }
  std::vector<Task>& tasks() { return tasks_; }
  /// The tasks whose pod features (SCORIA_TASK_FEATURE_*) share a bit with
  /// `features`, in task order: the first `capacity` into `out`; returns
  /// how many there are.
  size_t tasks_with_features(uint32_t features, const Task** out, size_t capacity) const;
  std::vector<Job>& jobs() { return jobs_; }
  /// What each queue's jobs hold and ask for as they stand now
  /// (host_api.session_queue_job_sums; job_sets.cpp): one pass over the
  /// jobs, by queue index. The vectors live until the next call or close.
  struct QueueJobSums {
    uint32_t jobs = 0;
    const double *allocated, *request, *elastic, *inqueue_minimum, *inqueue_unallocated,
        *running_unallocated;
  };
  std::span<const QueueJobSums> queue_job_sums();
  /// Adds what job's Pending and allocated tasks ask for into `request`
  /// (proportion's request) and its allocated tasks' into `allocated`
  /// (either may be null); returns how many of its tasks are releasing on a
  /// node (job_sets.cpp).
  int32_t job_request(const Job& job, double* request, double* allocated, double sign = 1.0) const;
  /// The nodes' allocatable and used, each summed over the nodes in order
  /// from zero, into `dims()` values (either may be null;
  /// host_api.session_node_totals).
  void node_totals(double* allocatable, double* used) const;
  /// A job's phase, as an action sets it (job_set_phase).
  void set_job_phase(Job& job, uint32_t phase) {
    touch(job);
    job.phase = phase;
    ++changes_;
    mark(phase_pending_jobs_, job.index, phase == SCORIA_PHASE_PENDING);
  }
  /// The jobs that match any bit of `which` (SCORIA_JOBS_*) as they stand
  /// now, in job order (host_api.session_jobs_where; job_sets.cpp). Valid
  /// until the next call or close.
  std::span<const Job* const> jobs_where(uint32_t which);
  std::vector<SubJob>& sub_jobs() { return sub_jobs_; }
  /// The i-th task of `sub_job` (i < sub_job.size()).
  uint32_t sub_job_task(const SubJob& sub_job, size_t i) const {
    return sub_job.whole_job ? sub_job.range[i] : sub_job_members_[sub_job.range[i]];
  }
  std::vector<Node>& nodes() { return nodes_; }
  std::vector<Queue>& queues() { return queues_; }
  std::span<const Node* const> all_nodes() const { return all_nodes_; }
  const Node* find_node(std::string_view name) const;
  const Queue* find_queue(std::string_view name) const;
  /// The Namespace object named `name`; null when the cluster has none.
  const model::Namespace* find_namespace(std::string_view name) const;
  /// The JSON of each object of `kind` (PodDisruptionBudget,
  /// ResourceQuota), by namespace then name; empty for a kind it has none of.
  std::span<const std::string_view> objects_of(std::string_view kind) const;
  std::span<const double> span(const double* v) const { return {v, dims()}; }
  const config::SchedulerConfig& config() const { return config_; }
  /// Whether the session kept the last one's records (SessionMemory).
  bool kept_records() const { return kept_records_; }
  /// Whether close() kept the entries of the jobs nothing changed.
  bool kept_entries() const { return kept_entries_; }
  /// Times the predicate and scoring stages from now on (off: no clock is
  /// read, for callers that report no metrics).
  void time_stages(bool on) { timing_stages_ = on; }
  StageDurations& stage_durations() { return stages_; }
  /// The session's clock, ms since the epoch (Snapshot::now_ms).
  int64_t now_ms() const { return now_ms_; }
  /// HyperNodes resolved for this session (the cluster top last).
  const HyperNodeTopology& topology() const { return topology_; }

  // --- state changes (statements use these) ----------------------------------
  /// Notes that `job`'s records (the job, its tasks and sub-jobs) are
  /// written this session, so that the next one writes them anew from its
  /// snapshot (session_reuse.cpp). Every write of a record after the
  /// constructor comes after one.
  void touch(const Job& job) {
    if (tracking_) touch_job(job.index);
  }
  /// Moves a task to `status`, keeping the job's counts and allocated sums.
  void set_task_status(Task& task, uint32_t status);
  /// Puts `task` on node `node` with the task's current status accounting.
  void node_add_task(Node& node, Task& task);
  void node_remove_task(Node& node, Task& task);
  void fire_allocate(const Task& task);
  void fire_deallocate(const Task& task);

  // --- nodes for a task (node_search.h, node_answers.cpp) -------------------
  /// All predicates over `candidates`; returns the nodes that pass, in the
  /// given order, and records the task's fit errors (NodeSearch).
  size_t predicate_nodes(Task& task, std::span<const Node* const> candidates, bool check_resources,
                         const Node** fit) {
    return search_.predicate_nodes(task, candidates, check_resources, fit);
  }
  scoria_code predicate(const Task& task, const Node& node, uint32_t* reason);
  /// Whether a soft node shard ranks `node` after its working set.
  bool outside_soft_shard(const Node& node) const override {
    return sharding_ == model::ShardingMode::Soft && in_shard_[node.index] == 0;
  }
  /// Of the `count` nodes in `fit`, with a soft shard and any of them in
  /// it, keeps only those (in order) and returns how many; else `count`.
  size_t shard_first(size_t count, const Node** fit) const {
    if (sharding_ != model::ShardingMode::Soft) return count;
    const auto end = std::stable_partition(
        fit, fit + count, [&](const Node* node) { return !outside_soft_shard(*node); });
    return end == fit ? count : static_cast<size_t>(end - fit);
  }
  /// Allocate's choice of a node for `task` among `candidates`
  /// (host_api.session_select_node; NodeSearch::select_node).
  using NodeChoice = NodeSearch::Choice;
  NodeChoice select_node(Task& task, std::span<const Node* const> candidates) {
    return search_.select_node(task, candidates);
  }
  /// predicate() as if the tasks of `gone` had left their nodes
  /// (predicate_without.cpp; host_api.session_predicate_without).
  scoria_code predicate_without(const Task& task, const Node& node, std::span<Task* const> gone,
                                uint32_t* reason);
  void node_scores(const Task& task, std::span<const Node* const> nodes, double* scores) override;
  int64_t best_node(const Task& task, std::span<const Node* const> nodes,
                    const double* scores) override;

  // --- the tiers' decisions with what the session keeps of them -----------
  // (the rest: dispatch())
  /// The tiers' answer, kept for the queue_overused metric, as Volcano's
  /// proportion sets it whenever it is asked.
  bool overused(const Queue& queue);
  /// The tiers' victims; in preempt, counted for Volcano's preemption
  /// metrics.
  void preemptable(const Task& preemptor, std::span<const Task* const> candidates,
                   uint8_t* selected);
  /// Sum of every plugin's HyperNode order score (on_hypernode_order).
  void hypernode_scores(const Job& job, std::span<const uint32_t> hypernodes, double* scores);
  /// The first plugin's gradient (on_hypernode_gradient), else `root` alone.
  size_t hypernode_gradient(const Job& job, uint32_t root, uint32_t purpose, uint32_t* hypernodes,
                            uint32_t* gradient, size_t capacity);
  /// Sub-jobs (ABI 1.9): ready and pipelined fall back to the job's when it
  /// has no subGroupPolicy.
  bool sub_job_ready(const SubJob& sub_job);
  bool sub_job_pipelined(const SubJob& sub_job);
  void sub_job_hypernode_scores(const SubJob& sub_job, std::span<const uint32_t> hypernodes,
                                double* scores);
  size_t sub_job_hypernode_gradient(const SubJob& sub_job, uint32_t root, uint32_t purpose,
                                    uint32_t* hypernodes, uint32_t* gradient, size_t capacity);

  bool action_enabled(std::string_view action) const;
  /// The action running now (its name), for what is counted per action.
  void set_action(std::string_view action) { action_ = action; }
  /// A statement with evictions in it was committed.
  void count_eviction_transaction();

  /// The task's predicate failures as its last search recorded them; null
  /// if none did.
  const FitErrors* fit_of(const Task& task) const {
    return task.fit == 0 ? nullptr : &fit_errors_[task.fit - 1];
  }
  /// What plugins asked to write on the pod with this allocation's bind
  /// (task_set_bind_annotation), by key; dropped when it is undone.
  using Annotations = std::vector<std::pair<std::string, std::string>>;
  std::span<const std::pair<std::string, std::string>> bind_annotations_of(const Task& task) const {
    if (task.bind_annotations == 0) return {};
    return bind_annotations_[task.bind_annotations - 1];
  }
  /// The pods' volumes: their checks, and what placements take
  /// (session/volume_binding.h).
  const VolumeBinder& volumes() const { return volumes_; }
  /// Why the host refuses `task` on every node whatever the plugins say,
  /// 0 if it does not: a pod whose ResourceClaims cannot be allocated
  /// anywhere (a claim missing, a class missing, a selector that does not
  /// compile, ...); it waits rather than being bound where its devices are
  /// never prepared.
  uint32_t host_refusal(const Task& task) const { return devices_.task_wide_reason(task); }
  /// A reason that refuses `task` on every node (reported as
  /// "0/N nodes are available: <reason>."); 0 if none.
  uint32_t task_wide_reason(const Task& task) const {
    const uint32_t host = host_refusal(task);
    return host != 0 ? host : volumes_.task_wide_reason(task);
  }
  /// The pods' devices: the host's check on each node after the plugins',
  /// and what placements take (session/device_allocation.h).
  const DeviceAllocator& devices() const { return devices_; }
  DeviceAllocator& devices() { return devices_; }
  VolumeBinder& volumes() { return volumes_; }
  void drop_bind_annotations(Task& task) {
    touch(jobs_[task.job]);
    if (task.bind_annotations != 0) bind_annotations_[task.bind_annotations - 1].clear();
  }

  // --- statements --------------------------------------------------------------
  Statement* open_statement();
  /// Ends a statement (after commit or discard) and frees it.
  void close_statement(Statement* stmt);
  /// Called by Statement::place for each task it places.
  void note_placed(const Task& task) { placed_.push_back(task.index); }
  /// Called by Statement::commit for each committed operation.
  void record_bind(Task& task);
  /// Sets a bind annotation on `task`'s allocation (Allocated or Pipelined).
  scoria_code set_bind_annotation(Task& task, std::string_view key, std::string_view value);
  void record_eviction(Task& task, std::string_view reason);
  /// session_lift_queue_gate: records that the pod's queue-allocation gate
  /// goes once the session closes (Outcome::ungated); false, recording
  /// nothing, unless it is the pod's only gate and the feature is on.
  bool lift_queue_gate(const Task& task);
  /// The PodFeature bits plugins are shown: the queue-admission gate's
  /// only with SchedulingGatesQueueAdmission.
  uint32_t feature_mask() const {
    return config_.queue_admission_gates ? ~uint32_t{0} : ~uint32_t{model::kQueueGateOptIn};
  }

  // --- explanation -----------------------------------------------------------------
  /// Records, for the task "ns/name", the first time an action examines it,
  /// every plugin's predicate answer on every node, every plugin's score on
  /// the nodes scored, and the node chosen; close() returns it in
  /// Outcome::explanation. Costs nothing when not called.
  void explain(std::string_view task_uid);

  // --- close ---------------------------------------------------------------------
  /// Computes PodGroup phases and conditions and everything the cache needs.
  /// Once per session: the binds, evictions and lifted gates move to the
  /// outcome (a bind with its volumes and claims is not copied).
  Outcome close();
  /// The same, written over `out`: an earlier session's outcome given back
  /// keeps its storage, so a session with a job per PodGroup allocates
  /// nothing per job. It must be fresh or written by sessions over the same
  /// writer's snapshots (Snapshot::JobIn::source_seq): an entry whose source
  /// ids match a job's keeps its key.
  void close(Outcome& out);
  /// Outcome::QueueStatus::devices of every queue (close()).
  void queue_devices(Outcome& out);

  /// Messages of job_valid failures, kept alive until close for the ABI.
  std::string& keep_message(std::string message);

 private:
  bool run_votes(bool (*pick)(const scoria_hooks&), config::Flag flag,
                 scoria_vote (*call)(const scoria_hooks&, const Job&), const Job& job);
  void check_resources(const Task& task, std::span<const Node* const> nodes, uint8_t* pass,
                       uint32_t* reasons) const;
  // Every predicate (and the resource check, with `resources`) for `task`
  // on each of `nodes`, into pass[i] and reasons[i].
  void evaluate_nodes(const Task& task, bool resources, std::span<const Node* const> nodes,
                      uint8_t* pass, uint32_t* reasons, PredicateScratch& scratch) override;
  // The plugins' predicates alone (evaluate_nodes adds the host's).
  void evaluate_plugins(const Task& task, bool resources, std::span<const Node* const> nodes,
                        uint8_t* pass, uint32_t* reasons, PredicateScratch& scratch);

  // --- equivalence classes (cached_answers.cpp) --------------------------------
  // The class of `task` when every plugin with a hook of kind `need`
  // (SCORIA_CACHE_PREDICATE or SCORIA_CACHE_NODE_ORDER) declared it
  // cacheable for the class; null otherwise, or when the cache is off. A
  // task with claims may be given the wider class of tasks whose claims
  // mean the same (VolumeBinder::sharing, SCORIA_CACHE_CLAIMS).
  EquivalenceCache::Class* cached_class(const Task& task, uint32_t need) override;
  // Asks the plugins for `klass`'s policy, with `task`, once per session.
  void know_policy(const Task& task, EquivalenceCache::Class& klass);
  // Every score plugin's score for `task` on each of `nodes`, added up in
  // tier order into scores[i] (zeroed first); per plugin into `parts` when
  // given.
  void sum_scores(const Task& task, std::span<const Node* const> nodes, double* scores,
                  std::vector<std::vector<double>>* parts) override;
  // Whether a hard node shard refuses `node` (model/node_shard.h).
  bool outside_hard_shard(const Node& node) const {
    return sharding_ == model::ShardingMode::Hard && in_shard_[node.index] == 0;
  }
  // The task's fit errors after a search of reasons.size() nodes that
  // found `fit` passing: when none did, why each refused (reasons[k] for
  // the k-th node searched), counted in search order.
  void record_fit(Task& task, size_t fit, std::span<const uint32_t> reasons) override;
  // Whether any enabled plugin has on_best_node (it sees the candidates).
  bool best_node_hooked() override { return dispatch_.best_node_hooked(); }
  bool serial_predicates() override { return dispatch_.serial_predicates(); }
  cycle::Explanation* explain_search(const Task& task, bool resources) override;
  bool soft_shard() const override { return sharding_ == model::ShardingMode::Soft; }
  void node_changed(const Node& node) {
    if (equivalence_) equivalence_->node_changed(node.index);
  }
  std::string unschedulable_message(const Job& job);
  // What plugin `p` scores `task` on each of `nodes` (0 where it answers no
  // score), into out[i].
  void plugin_scores(PluginHooks& p, const Task& task, std::span<const Node* const> nodes,
                     double* out);
  bool explaining(const Task& task) const override {
    return explain_ != nullptr && task.views->uid == explain_->task;
  }
  // Every plugin's predicate answer for `task` on every node of the session.
  void explain_predicates(const Task& task, bool resources);
  void explain_scores(const Task& task, std::span<const Node* const> nodes,
                      const std::vector<std::vector<double>>& parts, const double* totals);
  // close()'s entries (job_status.cpp, closed_entries.cpp): every job's
  // (with `note`, what the next close keeps), or, handed back the last
  // close's outcome, only those that may have changed (false: it cannot).
  void close_all(Outcome& out, std::span<const double> share_total, bool note);
  bool close_kept(Outcome& out, std::span<const double> share_total);
  // Writes job j's entry but for its key and its queue's sums; true when it
  // depends on more than the job's record (ClosedEntries::volatile_jobs).
  bool write_entry(Outcome::PodGroupStatus& st, const Job& job, int32_t releasing,
                   std::span<const double> share_total, size_t& unschedulable_tasks);
  // What job j adds to its queue's request and inqueue sums, into `to`
  // (2 * dims values, overwritten); returns job_request's releasing count.
  int32_t entry_sums(const Job& job, double* to) const;
  // Notes for the next close what this one wrote (ClosedEntries).
  void note_closed(Outcome& out, std::span<const double> share_total);
  // Throws std::logic_error naming the first difference between `kept`
  // and the outcome a whole close writes (SessionMemory::verify).
  void verify_entries(const Outcome& kept, std::span<const double> share_total);
  // Gives entries[j] (close's entry for job j) the job's key and ids,
  // taking the key from the entry an earlier session wrote for the job when
  // it is among the first `earlier` and not yet rewritten (past j).
  void take_key(std::vector<Outcome::PodGroupStatus>& entries, size_t j, size_t earlier);
  void explain_close(Outcome& out);
  // How many of the job's minMember are not ready (gang's unready count).
  int32_t unready_tasks(const Job& job) const;
  // Why `task` is not placed at close, if it is not; `job_message` is its
  // job's unschedulable message, if any.
  std::optional<Outcome::PodGroupStatus::Pending> unplaced(const Task& task,
                                                           const std::string& job_message) const;

  // The loops of hypernode_scores and hypernode_gradient and of their
  // sub-job forms (network_topology.cpp), each plugin asked by `ask`.
  template <class Ask>
  void sum_hypernode_scores(std::span<const uint32_t> hypernodes, double* scores, Ask&& ask);
  template <class Ask>
  size_t first_gradient(uint32_t root, uint32_t* hypernodes, uint32_t* gradient, size_t capacity,
                        Ask&& ask);
  // `n` entries of a plugin's gradient, or 0 if one is out of range.
  size_t checked_gradient(PluginHooks& p, int64_t n, const uint32_t* hypernodes,
                          size_t capacity) const;
  // HyperNodes and each job's network topology (network_topology.cpp).
  void prepare_network_topologies(std::span<const model::HyperNode* const> hyper_nodes);
  // The job's sub-jobs (sub_jobs.h), appended to sub_jobs_ and named in its
  // tasks, before their statuses are counted.
  void add_sub_jobs(Job& job, const Snapshot::JobIn& in, uint32_t first_task);
  void write_default_sub_job(Job& job, SubJob& s);

  // --- the records (session.cpp; kept ones: session_reuse.cpp) -------------
  // Writes every record from the snapshot.
  void write_records(const Snapshot& snap);
  void write_queues(const Snapshot& snap);
  // Writes job `index` and its tasks (from `first_task`) and sub-jobs from
  // `in`, its two vectors at `vectors`: appended to the arrays, or over the
  // records there (`append` false: same size, no policies, and the node
  // lists and the session's lists are written apart).
  void write_job(uint32_t index, const Snapshot::JobIn& in, uint32_t first_task, double* vectors,
                 bool append);
  // How many node and queue vectors are shorter than the session's
  // dimensions (each copied into the arena's tail).
  size_t short_header_vectors(const Snapshot& snap) const;
  // A capacity with room for jobs that arrive later (session_reuse.cpp):
  // an eighth more, so that arrivals seldom move the arrays.
  static size_t with_room(size_t n) { return n + n / 8 + 64; }
  // A fresh vector from the arena's tail (a copy of `init`, zero-padded).
  double* take(std::span<const double> init = {});
  const double* read(std::span<const double> v) { return v.size() >= dims() ? v.data() : take(v); }
  // Adds (sign 1) or takes away (-1) a task of `status` asking `resreq` in
  // the node's sums, as Volcano's NodeInfo does.
  void node_sums(Node& node, uint32_t status, const double* resreq, double sign);
  // What SessionMemory keeps, traded with it.
  void swap_kept(SessionMemory& m);
  // Keeps the last session's records, written again where they changed;
  // false (having changed nothing) when they cannot serve.
  bool keep_records(const Snapshot& snap);
  // Takes the jobs at `changes.removed` (their bits set in `gone`) out of
  // the kept records, every index after them renamed (kept_removal.cpp).
  void take_out_jobs(const Snapshot::Changes& changes, const std::vector<uint64_t>& gone);
  // Notes in the memory what the records are at open, and starts tracking.
  void note_opening(const Snapshot& snap);
  void verify_records(const Snapshot& snap) const;
  void touch_job(uint32_t job);
  void touch_node(uint32_t node);
  // Notes in the memory the queue sums just taken at open.
  void note_opening_sums();
  // Makes queue_sums_ point into zeroed memory for `queues` queues.
  void prepare_queue_sums(size_t queues);
  // Adds (sign 1) or takes away (-1) what `job` adds to its queue's sums
  // (queue_job_sums) into `base` (TouchJournal::kSumVectors vectors).
  void job_sums(const Job& job, double* base, double sign) const;

  const config::SchedulerConfig& config_;
  WorkerPool* workers_;
  SessionMemory* memory_ = nullptr;  // lends the arrays of jobs, tasks and sub-jobs, and the arena
  int64_t now_ms_;
  std::string action_;
  uint64_t preemption_attempts_ = 0;
  std::optional<size_t> preemption_victims_;
  std::vector<std::pair<std::string, uint64_t>> eviction_transactions_;
  std::vector<std::string> dim_names_;
  std::vector<double> arena_;          // every resource vector of the session
  std::deque<std::string> made_keys_;  // jobs' keys the snapshot did not hold
  std::vector<Task> tasks_;
  // Tasks whose pods have any feature bit of kListedFeatures, in order.
  std::vector<uint32_t> featured_;
  std::vector<Job> jobs_;
  std::vector<SubJob> sub_jobs_;                  // job after job
  std::vector<uint32_t> sub_job_members_;         // tasks of the sub-jobs of jobs with policies
  std::optional<NodeTaskMemory> own_node_tasks_;  // before nodes_: outlives them
  NodeTaskMemory* node_tasks_ = nullptr;          // the memory's, else own_node_tasks_
  std::vector<Node> nodes_;
  std::vector<Queue> queues_;
  std::vector<const model::Namespace*> namespaces_;  // by name
  std::vector<Snapshot::KindObjects> objects_;
  HyperNodeTopology topology_;
  // The jobs with a network topology or sub-group policies, to prepare.
  std::vector<uint32_t> topology_jobs_;
  std::vector<const Node*> all_nodes_;
  TierDispatch dispatch_;
  std::vector<uint32_t> insufficient_reason_;  // per dimension, interned
  uint32_t undefined_answer_reason_ = 0;       // a predicate's undefined code
  // Node shards (model/node_shard.h): the mode, each node's place in the
  // working set (by index), and the reason a hard shard refuses with.
  model::ShardingMode sharding_ = model::ShardingMode::None;
  std::vector<uint8_t> in_shard_;
  uint32_t not_in_shard_reason_ = 0;
  // Equivalence classes (null when config_.equivalence_cache is off: the
  // memory's, else own_equivalence_).
  EquivalenceCache* equivalence_ = nullptr;
  std::optional<EquivalenceCache> own_equivalence_;
  // The search of nodes for a task, and its buffers.
  NodeSearch search_{*this, config_, workers_};
  std::vector<std::unique_ptr<Statement>> statements_;
  std::vector<std::unique_ptr<std::string>> messages_;
  // Tasks placed this session, or handed over Allocated, Pipelined or
  // Binding (close settles them); may repeat.
  std::vector<uint32_t> placed_;
  // Bumped by every change of a task's status or a job's phase: what
  // queue_job_sums() last answered holds while it stays.
  uint64_t changes_ = 0;
  // What queue_job_sums() and jobs_where() last answered (their storage),
  // and the changes_ the sums were taken at (0: never).
  std::vector<double> queue_sums_memory_;
  std::vector<QueueJobSums> queue_sums_;
  uint64_t queue_sums_at_ = 0;
  std::vector<const Job*> jobs_where_;
  // close(): the entry of an earlier outcome written for each cache slot,
  // indexed once a job is found out of its place.
  std::vector<uint32_t> entry_of_source_;
  bool entries_indexed_ = false;
  // The jobs jobs_where() finds, a bit per job index, kept as task statuses
  // and job phases change: with Pending tasks, in phase Pending, queueless.
  std::vector<uint64_t> pending_task_jobs_, phase_pending_jobs_, queueless_jobs_;
  static void mark(std::vector<uint64_t>& bits, uint32_t job, bool on) {
    const uint64_t bit = uint64_t{1} << (job % 64);
    bits[job / 64] = on ? bits[job / 64] | bit : bits[job / 64] & ~bit;
  }
  // The records' writing: the arena's tail cursor; whether tasks' requests
  // are noted (whole numbers, their sum) for a later session to keep them.
  double* tail_ = nullptr;
  bool noting_requests_ = false;
  ExactSums exact_;
  // What this session touched of the records (SessionMemory), tracked once
  // the constructor is done.
  bool tracking_ = false;
  bool kept_records_ = false;
  bool kept_entries_ = false;
  uint64_t number_ = 0;  // SessionMemory::sessions when this one opened
  // With kept records: the jobs written again at open (ascending, those
  // that arrived included), and those taken out (Snapshot::Changes::removed).
  std::vector<uint32_t> rewritten_, removed_at_open_;
  bool timing_stages_ = false;
  StageDurations stages_;
  // Where a stage's time goes: null unless timing and `when`.
  std::vector<double>* stage_sink(std::vector<double> StageDurations::*stage,
                                  bool when = true) override {
    return timing_stages_ && when ? &(stages_.*stage) : nullptr;
  }
  bool kept_sums_ = false;  // keep_records brought the queue sums too
  TouchJournal journal_;
  uint64_t changes_at_open_ = 0;
  std::vector<FitErrors> fit_errors_;          // Task::fit
  std::vector<Annotations> bind_annotations_;  // Task::bind_annotations
  VolumeBinder volumes_;
  DeviceAllocator devices_;
  std::vector<Outcome::Bind> binds_;
  std::vector<std::string> evictions_;
  std::vector<std::string> ungated_;      // lift_queue_gate; sorted, each once, at close
  std::unique_ptr<Explanation> explain_;  // set only when asked
};

}  // namespace scoria::session
