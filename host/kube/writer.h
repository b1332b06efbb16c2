// What sessions decided, written to the API server by worker threads, so
// that a session never waits for the server: binds (pods/binding), evictions
// (policy/v1 Eviction), PodGroup status (the status subresource, retried on
// conflict) and core Events. Each worker has a connection of its own; all
// share the client's rate limit.
//
// A write that cannot be done is not retried blindly: the pod is read again
// and its current state goes to the cache (through the ChangeQueue), so the
// next session decides on what the server has, as Volcano resyncs a task
// whose bind failed. A bind answered 409 means someone else bound it: the
// pod is taken as it is now. An eviction refused with 429 (a disruption
// budget) is not done: the pod stays, and a later session may decide again.
// Pending pods are marked PodScheduled=False (a strategic merge patch of
// pods/status, as kube-scheduler writes it; cluster autoscalers read it) on
// a background queue behind every other write.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cycle/outcome.h"
#include "kube/api_client.h"
#include "kube/change_queue.h"

namespace scoria::kube {

struct WriteOp {
  enum class Type : uint8_t {
    Bind,
    Evict,
    PodGroupStatus,
    Event,
    QueueStatus,
    PodCondition,
    EnsureQueue,
    // A scheduling.k8s.io PodGroup's status, from the PodGroupStatus
    // fields a Volcano PodGroup would be given: its condition
    // (api::initially_scheduled_condition).
    NativeGroupStatus,
    // This instance's NodeShard's status (api::NodeShardReport).
    NodeShardStatus,
    // Volcano's queue-allocation gate removed from pod `key`
    // (Outcome::ungated).
    LiftGate
  };
  Type type = Type::Bind;
  std::string key;   // "ns/name" of the pod or PodGroup
  std::string node;  // Bind
  // PodGroupStatus, QueueStatus: the status fields to write (null removes
  // one); Event: the Event object; PodCondition: the condition to merge;
  // EnsureQueue: the Queue to create if `key` names none.
  nlohmann::json status;
  // Bind: annotations plugins set on the allocation, sent as the Binding's
  // metadata.annotations (the API server copies them onto the pod).
  std::vector<std::pair<std::string, std::string>> annotations = {};
  // Bind: the claims given a volume or a node, written before the binding.
  std::vector<cycle::Outcome::VolumeBinding> volumes = {};
  // Bind: the ResourceClaims allocated or reserved with it, written before
  // the binding, and the pod's uid they are reserved for.
  std::vector<cycle::Outcome::ClaimAllocation> claims = {};
  std::string pod_uid = {};
};

/// How a bind ended, for the cache's assumed pods.
struct BindSettled {
  std::string pod;
  bool bound = false;
};

/// How long each bind's stages took, in ms, as Volcano times them
/// (scheduling_stage_duration{stage="PreBind"|"Bind"}): the volume and claim
/// writes before the binding, when they all succeeded, and the binding's
/// request, when the server accepted it.
struct BindStageTimes {
  std::vector<double> pre_bind_ms, bind_ms;
};

struct WriterStats {
  uint64_t binds = 0, bind_failures = 0, evictions = 0, eviction_failures = 0;
  uint64_t statuses = 0, events = 0, conditions = 0, retries = 0;
};

class Writer {
 public:
  /// `leading` says whether writes may go out (leader election); a write
  /// taken while not leading is dropped.
  Writer(ApiClient& client, ChangeQueue& resync, const std::atomic<bool>& leading, size_t workers);
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  void start();
  void stop();
  void submit(std::vector<WriteOp> ops);
  /// Writes that only report (pending pods' conditions and their events):
  /// taken when no other write waits, so they never hold up a bind.
  void submit_background(std::vector<WriteOp> ops);
  /// Binds finished since the last call.
  std::vector<BindSettled> take_settled();
  /// The stage times of the binds since the last call.
  BindStageTimes take_stage_times();
  /// Writes queued or under way.
  size_t backlog() const;
  WriterStats stats() const;

 private:
  void work();
  void execute(Connection& c, WriteOp& op);
  void bind(Connection& c, const WriteOp& op);
  /// Writes what the bind's volumes need before the binding, as
  /// kube-scheduler's VolumeBinding PreBind does: a chosen volume's
  /// claimRef (read, checked still free, written at the version read), or
  /// the claim's selected-node annotation. An error message, or empty.
  std::string bind_volumes(Connection& c, const WriteOp& op);
  /// One of them. A written object is handed to the cache at once
  /// (assume); one whose write failed is read again.
  std::string bind_volume(Connection& c, const cycle::Outcome::VolumeBinding& v);
  /// Writes the bind's ResourceClaims before the binding, as kube-
  /// scheduler's DynamicResources PreBind does (writer_claims.cpp): an
  /// allocation made now (with the delete-protection finalizer first) and
  /// the pod in reservedFor, each checked against what the server holds.
  /// Empty if all were written, else why not.
  std::string bind_claims(Connection& c, const WriteOp& op);
  std::string bind_claim(Connection& c, const WriteOp& op,
                         const cycle::Outcome::ClaimAllocation& a);
  void evict(Connection& c, const WriteOp& op);
  /// Reads the object at `path`, sets the fields of op.status in its status
  /// and writes it through the status subresource, again on conflict.
  /// Reads the object at `path`, lets `change` change it (false: nothing
  /// to write) and writes its status, read again when another writer came
  /// between.
  void status_update(Connection& c, const std::string& path, const std::string& what,
                     const std::function<bool(nlohmann::json&)>& change);
  void event(Connection& c, const WriteOp& op);
  void pod_condition(Connection& c, const WriteOp& op);
  void lift_gate(Connection& c, const WriteOp& op);
  /// Creates the Queue op.status unless one of that name exists, as
  /// Volcano's scheduler makes root and default at start.
  void ensure_queue(Connection& c, const WriteOp& op);
  /// Reads the pod again and queues its current state (or its deletion).
  void resync(Connection& c, const std::string& key);
  // Reads the object of `kind` at `path` (cache key `key`) again into the
  // cache: what the server has after a write that failed.
  void reread(Connection& c, cache::Kind kind, const std::string& path, const std::string& key);
  // Hands the object a write answered with to the cache, as kube-scheduler's
  // assume cache holds a written volume until its watch event arrives.
  void assume(const std::string& body, cache::Kind kind, const std::string& key);
  /// One request, rate limited, retried on 429 and 5xx (honouring
  /// Retry-After) and on transport errors, a few times.
  Response call(Connection& c, std::string_view method, const std::string& target,
                const std::string& body, std::string_view content_type = "application/json");
  void settle(const std::string& pod, bool bound);

  ApiClient& client_;
  ChangeQueue& resync_;
  const std::atomic<bool>& leading_;
  size_t worker_count_;
  std::vector<std::thread> workers_;
  std::vector<Connection*> connections_;  // for stop(), guarded by mutex_
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<WriteOp> queue_;
  std::deque<WriteOp> background_;
  size_t in_flight_ = 0;
  // The status writes under way (PodGroup and Queue statuses, pods'
  // PodScheduled conditions; one per worker at most): a later status of the
  // same object waits for its own, so that statuses land in the order
  // sessions made them (two at once could put an older one last).
  std::vector<const WriteOp*> statuses_in_flight_;
  /// The next op a worker may take from `from` (queue_ or background_),
  /// or from.end(); guarded by mutex_.
  std::deque<WriteOp>::iterator next_op(std::deque<WriteOp>& from);
  std::vector<BindSettled> settled_;
  BindStageTimes stage_times_;  // guarded by mutex_
  void note_stage(std::vector<double> BindStageTimes::*stage, double ms);
  WriterStats stats_;
  std::atomic<bool> stop_{false};
};

}  // namespace scoria::kube
