// What a session decided, handed back at close to the cache (binds,
// evictions, statuses) and to whoever reports it (metrics, the API, the
// simulation). Plain data, below both.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cycle/explanation.h"
#include "model/devices.h"
#include "model/objects.h"

namespace scoria::cycle {

/// What the session decided, handed back to the cache at close.
struct Outcome {
  /// A claim of a bound pod given a volume with it (written before the pod
  /// is bound): `volume` is the PersistentVolume chosen for it, or, with
  /// `provision`, the one the claim's class is to provision on `node`
  /// (named as a CSI provisioner names it, pvc-UID).
  struct VolumeBinding {
    std::string claim;  // "ns/name"
    std::string claim_uid;
    std::string volume;
    std::string node;
    bool provision = false;
  };
  /// A claim of a bound pod, written before the pod is bound: allocated
  /// now (`devices` chosen, `node_selector` where they may be used) or
  /// allocated before, and reserved for the pod either way.
  struct ClaimAllocation {
    std::string claim;  // "ns/name"
    std::string claim_uid;
    std::string node;
    bool allocated_now = false;
    // Reserved only, allocated by another bind of the same session (a
    // shared claim): that bind's write may still be on its way.
    bool allocated_by_another = false;
    std::vector<model::DeviceResult> devices = {};
    std::optional<std::vector<model::NodeSelectorTerm>> node_selector = {};
  };
  struct Bind {
    std::string pod;  // "ns/name"
    std::string node;
    // Annotations plugins set on the allocation (task_set_bind_annotation),
    // written on the pod with the binding; sorted by key.
    std::vector<std::pair<std::string, std::string>> annotations = {};
    // The task's index in the session: its place in Snapshot::tasks when
    // the snapshot is exact_vectors (a cache's). For what reads the outcome
    // beside the snapshot.
    uint32_t task = UINT32_MAX;
    // The claims given volumes with this bind (kube-scheduler's PreBind).
    std::vector<VolumeBinding> volumes = {};
    // The pod's ResourceClaims, allocated or reserved with this bind.
    std::vector<ClaimAllocation> claims = {};
  };
  struct PodGroupStatus {
    std::string key;      // "ns/name"
    bool native = false;  // a scheduling.k8s.io PodGroup (else Volcano's)
    model::PodGroupPhase phase = model::PodGroupPhase::Pending;
    std::string unschedulable;  // condition message; empty if schedulable
    // Members by status, as Volcano's PodGroup status counts them.
    int32_t running = 0, succeeded = 0, failed = 0;
    // Each member not placed this session, with why, as Volcano's
    // TaskSchedulingReason says it: the PodScheduled=False condition it
    // gets (reason "Unschedulable", or "Schedulable" when it fit before its
    // gang was discarded) and the message.
    struct Pending {
      std::string pod;  // "ns/name"
      const char* reason;
      std::string message;
    };
    std::vector<Pending> pending;
    // For metrics: the job's queue, how many of its minMember are not ready
    // (Volcano's unschedule_task_count; 0 when ready), when it was created,
    // and how many of its tasks were placed (allocated or pipelined) now.
    std::string queue;
    int32_t unready = 0;
    int64_t creation_ms = 0;
    int32_t placed = 0;  // tasks
    // Its dominant share as Volcano's drf keeps it for volcano_job_share:
    // the largest, over the cluster's resources (pods aside), of what the
    // job holds (pipelined tasks included) over the nodes' total; -1 when
    // no tier of the config has drf.
    double share = -1;
    uint32_t source = UINT32_MAX;  // the job's Snapshot::JobIn::source
    uint64_t source_seq = 0;       // and its source_seq
  };
  std::vector<std::string> dims;  // what the resource vectors below hold, by index
  int64_t now_ms = 0;             // the session's clock (Snapshot::now_ms)
  std::vector<Bind> binds;
  std::vector<Bind> pipelined;
  std::vector<std::string> evictions;
  /// Pods ("ns/name") whose queue-allocation gate the session lifted
  /// (session_lift_queue_gate): the source removes it from each.
  std::vector<std::string> ungated;
  std::vector<PodGroupStatus> pod_groups;
  /// Which close wrote this outcome: a number the sessions of one scheduler
  /// give each close (0: none). A session handed back, unchanged, the
  /// outcome its predecessor closed writes again only the PodGroup entries
  /// of the jobs that may have changed (session/closed_entries.cpp); whoever
  /// changes pod_groups or queues in between sets it to 0.
  uint64_t closed_by = 0;
  struct QueueStatus {
    std::string name;
    std::vector<double> allocated;  // by dimension
    std::vector<double> deserved;   // by dimension; empty if no plugin set it
    // As Volcano's proportion counts them: what its jobs' tasks ask for
    // (allocated and pending), and the minResources of its Inqueue jobs.
    std::vector<double> request;
    std::vector<double> inqueue;
    std::vector<double> capability;  // spec.capability; infinite where unset
    // What a plugin settled as the most its jobs may hold (capacity's real
    // capability; infinite where unlimited); empty if no plugin said.
    std::vector<double> real_capability;
    int32_t weight = 1;
    std::optional<bool> overused;  // the last answer of the overused hooks, if asked
    // What the claims of its placed tasks hold, a claim once, as Volcano
    // writes it beside the resources: "deviceclass/CLASS" (devices) and
    // "DIM.deviceclass/CLASS" (consumable capacity), by name.
    std::vector<std::pair<std::string, double>> devices;
  };
  std::vector<QueueStatus> queues;
  /// Pending tasks of the jobs that ended the session unschedulable.
  size_t unschedulable_tasks = 0;
  /// The preempt action: how many times it found victims for a preemptor on
  /// a node, and how many the last time it asked.
  uint64_t preemption_attempts = 0;
  std::optional<size_t> preemption_victims;
  /// Statements committed with evictions in them, by action.
  std::vector<std::pair<std::string, uint64_t>> eviction_transactions;
  /// Why the task asked about went where it went (Session::explain).
  std::optional<Explanation> explanation;
};

}  // namespace scoria::cycle
