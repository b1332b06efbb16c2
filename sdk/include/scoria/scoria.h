/*
 * scoria.h — the Scoria plugin ABI, version 1.
 *
 * This header is the only contract between the Scoria host (the `scoria`
 * executable) and the shared objects it loads: scheduling *actions*
 * (enqueue, allocate, ...) and policy *plugins* (gang, priority,
 * predicates, ...). It is plain C so that plugins can be written in C, C++
 * or any language with a C FFI.
 *
 * Naming: who implements what.
 *   scoria_*_t / scoria_*     types and constants shared by both sides.
 *   scoria_plugin_entry        the one symbol a shared object exports.
 *   on_*                       function pointers a plugin implements (in
 *                              scoria_descriptor and scoria_hooks); the host
 *                              calls them.
 *   scoria_host_api.*          functions the host implements; a plugin calls
 *                              them through the table it receives at entry.
 *
 * Compatibility promise (major.minor):
 *   - Within one major version, structs and the host table are only ever
 *     appended to. No field is removed, reordered or retyped.
 *   - Every struct that crosses the boundary begins with `struct_size`, set by
 *     whoever allocates it. A reader never touches a field that lies beyond
 *     the struct_size it was given.
 *   - The host loads a plugin built for the same major and a minor up to its
 *     own; it refuses a different major or a newer minor, naming the file and
 *     both versions. Build flags play no part in the check.
 *   - A plugin that wants a host function added in a later minor checks
 *     SCORIA_HOST_HAS(api, field) before calling it.
 *
 * Ownership, in one sentence: memory is freed by the side that allocated it.
 * Every pointer below says who owns it and how long it stays valid.
 *
 * Threading: the host calls every hook on its session thread, except
 * on_predicate, on_predicate_batch, on_node_order and on_node_order_batch,
 * which it may call concurrently from several threads of the same session
 * (for different nodes) unless the descriptor sets SCORIA_FLAG_SERIAL_HOOKS.
 * Host functions that only read (everything not named *_set_*, statement_*,
 * session_* or log/report) are safe to call from any hook.
 */
/* Hand-formatted: the layout of this file is part of its documentation. */
/* clang-format off */
#ifndef SCORIA_SCORIA_H
#define SCORIA_SCORIA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Versions                                                                   */
/* ------------------------------------------------------------------------ */

/** ABI major version: a change here means old plugins no longer load. */
#define SCORIA_ABI_VERSION_MAJOR 1
/** ABI minor version: bumped when something is appended. */
#define SCORIA_ABI_VERSION_MINOR 16

/** Name of the one symbol every plugin shared object exports. */
#define SCORIA_ENTRY_SYMBOL "scoria_plugin_entry"

/** Marks a function exported from a plugin with default visibility. */
#if defined(_WIN32)
#define SCORIA_EXPORT __declspec(dllexport)
#else
#define SCORIA_EXPORT __attribute__((visibility("default")))
#endif

/* ------------------------------------------------------------------------ */
/* Basic types                                                                */
/* ------------------------------------------------------------------------ */

/**
 * A string as pointer plus length; not necessarily NUL-terminated.
 * Strings handed out by the host are owned by the host and stay valid until
 * the end of the session they came from (or, for strings from the argument
 * table, until on_destroy). Strings a plugin hands to the host are only read
 * during the call.
 */
typedef struct scoria_str {
  const char* data; /**< first byte; may be NULL when len == 0 */
  size_t len;       /**< length in bytes */
} scoria_str;

/**
 * The one status type (after kube-scheduler's framework.Status).
 * Returned by host functions and by hooks that can fail.
 */
typedef enum scoria_code {
  /** Everything went as asked. */
  SCORIA_OK = 0,
  /** An internal failure: the host logs it, counts it and skips the hook.
      Failing closed: a predicate's failure (this code, INVALID_ARGUMENT or
      NOT_FOUND) refuses the node for that task, and a score's counts as 0. */
  SCORIA_ERROR = 1,
  /** A predicate found the node unfit for now (for example: resources). */
  SCORIA_UNSCHEDULABLE = 2,
  /** Unfit, and preempting tasks on that node would not help either
      (for example: node selector mismatch, untolerated taint). */
  SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE = 3,
  /** The hook has nothing to say for this input; treat as not registered. */
  SCORIA_SKIP = 4,
  /** A handle or argument was invalid (NULL, wrong session, out of range). */
  SCORIA_INVALID_ARGUMENT = 5,
  /** The requested item does not exist (argument key, label, ...). */
  SCORIA_NOT_FOUND = 6
} scoria_code;

/**
 * A vote, as Volcano's permit / abstain / reject. Used by job_pipelined,
 * job_enqueueable, preemptable and reclaimable hooks.
 */
typedef enum scoria_vote {
  SCORIA_VOTE_REJECT = -1,
  SCORIA_VOTE_ABSTAIN = 0,
  SCORIA_VOTE_PERMIT = 1
} scoria_vote;

/** What a shared object provides. */
typedef enum scoria_kind {
  /** A scheduling action: runs once per session, in config order. */
  SCORIA_KIND_ACTION = 1,
  /** A policy plugin: registers hooks at session open, sits in a tier. */
  SCORIA_KIND_PLUGIN = 2
} scoria_kind;

/** Log verbosity, as klog's -v levels: 0 is always shown. */
typedef enum scoria_log_level {
  SCORIA_LOG_ERROR = -2,
  SCORIA_LOG_WARNING = -1,
  SCORIA_LOG_INFO = 0,
  SCORIA_LOG_V1 = 1,
  SCORIA_LOG_V2 = 2,
  SCORIA_LOG_V3 = 3,
  SCORIA_LOG_V4 = 4,
  SCORIA_LOG_V5 = 5
} scoria_log_level;

/** Volcano's task statuses, each a single bit so sets can be OR-ed. */
typedef enum scoria_task_status {
  SCORIA_TASK_PENDING = 1u << 0,   /**< waiting for a node */
  SCORIA_TASK_ALLOCATED = 1u << 1, /**< given a node in this session */
  SCORIA_TASK_PIPELINED = 1u << 2, /**< waits for resources being released */
  SCORIA_TASK_BINDING = 1u << 3,   /**< bind sent, not yet confirmed */
  SCORIA_TASK_BOUND = 1u << 4,     /**< bound to a node */
  SCORIA_TASK_RUNNING = 1u << 5,   /**< running on its node */
  SCORIA_TASK_RELEASING = 1u << 6, /**< being deleted or evicted */
  SCORIA_TASK_SUCCEEDED = 1u << 7, /**< finished successfully */
  SCORIA_TASK_FAILED = 1u << 8,    /**< finished with failure */
  SCORIA_TASK_UNKNOWN = 1u << 9    /**< status cannot be told */
} scoria_task_status;

/** Every task status at once, for iteration filters. */
#define SCORIA_TASK_ANY 0x3FFu

/** PodGroup phases, as Volcano's. */
typedef enum scoria_job_phase {
  SCORIA_PHASE_PENDING = 0,
  SCORIA_PHASE_INQUEUE = 1,
  SCORIA_PHASE_RUNNING = 2,
  SCORIA_PHASE_UNKNOWN = 3,
  SCORIA_PHASE_COMPLETED = 4
} scoria_job_phase;

/** Taint effects. */
typedef enum scoria_taint_effect {
  SCORIA_TAINT_NO_SCHEDULE = 1,
  SCORIA_TAINT_PREFER_NO_SCHEDULE = 2,
  SCORIA_TAINT_NO_EXECUTE = 3
} scoria_taint_effect;

/** Operators of node selector requirements and tolerations. */
typedef enum scoria_selector_op {
  SCORIA_OP_IN = 1,
  SCORIA_OP_NOT_IN = 2,
  SCORIA_OP_EXISTS = 3,
  SCORIA_OP_DOES_NOT_EXIST = 4,
  SCORIA_OP_GT = 5,
  SCORIA_OP_LT = 6,
  SCORIA_OP_EQUAL = 7 /**< tolerations only */
} scoria_selector_op;

/* ------------------------------------------------------------------------ */
/* Opaque handles                                                             */
/* ------------------------------------------------------------------------ */

/** Scheduling session (one cycle). Valid from open to close. */
typedef struct scoria_session scoria_session;
/** A job: a PodGroup and its tasks. Valid for its session. */
typedef struct scoria_job scoria_job;
/** A task: one pod. Valid for its session. */
typedef struct scoria_task scoria_task;
/** A node. Valid for its session. */
typedef struct scoria_node scoria_node;
/** A queue. Valid for its session. */
typedef struct scoria_queue scoria_queue;
/** A statement: a set of tentative operations committed or discarded as one.
    Valid from statement_open until statement_commit or statement_discard. */
typedef struct scoria_statement scoria_statement;
/** The `arguments` of a plugin or action from the config. Valid from
    on_create until on_destroy. */
typedef struct scoria_args scoria_args;
/** Identifies one loaded shared object to the host (logs, error counts).
    Valid while the object is loaded. */
typedef struct scoria_plugin_ctx scoria_plugin_ctx;

/* ------------------------------------------------------------------------ */
/* Resources                                                                  */
/* ------------------------------------------------------------------------ */

/**
 * A resource amount is a dense vector of doubles; index i is dimension i of
 * the session (see host_api.resource_dim_count and resource_dim_name).
 * Dimension 0 is cpu in millicores, 1 is memory in bytes, 2 is pods (every
 * task asks for 1), then every extended resource seen in the cluster (such as
 * nvidia.com/gpu), in milli-units as Volcano counts them (1 GPU = 1000).
 * A vector pointer handed out by the host is owned by it and valid until the
 * session closes; its contents change as the session allocates.
 */
#define SCORIA_DIM_CPU 0u
#define SCORIA_DIM_MEMORY 1u
#define SCORIA_DIM_PODS 2u

/**
 * Smallest meaningful difference in any dimension (Volcano's minResource):
 * l <= r holds when l < r or |l - r| < SCORIA_RESOURCE_EPSILON.
 */
#define SCORIA_RESOURCE_EPSILON 0.1

/* ------------------------------------------------------------------------ */
/* Read-only views                                                            */
/* ------------------------------------------------------------------------ */

/**
 * What a task is. Filled by host_api.task_info; the caller sets struct_size
 * to sizeof(scoria_task_info) first. Strings and vectors are owned by the
 * host, valid for the session.
 */
typedef struct scoria_task_info {
  uint32_t struct_size;
  uint32_t status;         /**< one scoria_task_status bit */
  scoria_str namespace_;   /**< metadata.namespace */
  scoria_str name;         /**< metadata.name */
  scoria_str uid;          /**< "namespace/name" */
  scoria_str node_name;    /**< node it is on or headed to; empty if none */
  scoria_str role;         /**< volcano.sh/task-spec; empty if unset */
  scoria_str priority_class; /**< priorityClassName; empty if unset */
  int32_t priority;        /**< resolved pod priority */
  int32_t preemptable;     /**< 1 if volcano.sh/preemptable (default 1) */
  int32_t best_effort;     /**< 1 if it requests no resources */
  int32_t preempt_never;   /**< 1 if preemptionPolicy is Never */
  const double* resreq;    /**< what it asks for (containers), per dimension */
  const double* init_resreq; /**< what it needs to start (init containers
                                  as Kubernetes counts them), per dimension */
  const scoria_job* job;   /**< the job it belongs to */
  int64_t creation_ms;     /**< creation time, ms since the epoch, 0 if unknown */
  uint32_t index;          /**< position of the task in its session, dense */
  uint32_t reserved0;
  /* --- since 1.1 --------------------------------------------------------- */
  uint32_t features;       /**< SCORIA_TASK_FEATURE_* bits: which parts of
                                the pod's spec are used, so that a plugin
                                parses task_object_json only when needed */
  int32_t scheduling_gated; /**< 1 if spec.schedulingGates is not empty: the
                                 pod must not be scheduled yet */
  scoria_str nominated_node; /**< status.nominatedNodeName; empty if unset */
  /* --- since 1.3 --------------------------------------------------------- */
  int64_t scheduled_ms;    /**< when the pod was bound: lastTransitionTime of
                                its PodScheduled=True condition, ms since the
                                epoch; 0 if it has none. Compare it with
                                session_now_ms, not with a clock of your own */
  /* --- since 1.16 -------------------------------------------------------- */
  uint32_t queue_gate;     /**< SCORIA_TASK_QUEUE_GATE_* bits: what the pod
                                carries of Volcano's queue-admission gate.
                                Always 0 unless the host runs with Volcano's
                                SchedulingGatesQueueAdmission feature gate */
  uint32_t reserved1;
} scoria_task_info;

/** scoria_task_info.queue_gate (1.16): the pod's only scheduling gate is
    `scheduling.volcano.sh/queue-allocation-gate` (Volcano's
    HasOnlyVolcanoSchedulingGate). scheduling_gated is 1 as well: the pod
    must not be placed, but its queue's capacity check may decide that the
    gate goes (host_api.session_lift_queue_gate), as Volcano's allocate
    takes such a pod into its worksheet for that check alone. */
#define SCORIA_TASK_QUEUE_GATE_ONLY 0x1u
/** scoria_task_info.queue_gate (1.16): the pod opts in with the annotation
    `scheduling.volcano.sh/queue-allocation-gate: "true"` (Volcano's
    HasQueueAllocationGateAnnotation). Without the gate (scheduling_gated 0)
    and still Pending, the pod has passed its queue's check in an earlier
    session: Volcano's capacity keeps its request reserved in the queue. */
#define SCORIA_TASK_QUEUE_GATE_OPTED_IN 0x2u

/** scoria_task_info.features (1.1): required podAffinity terms. */
#define SCORIA_TASK_FEATURE_POD_AFFINITY 0x1u
/** scoria_task_info.features (1.1): required podAntiAffinity terms. */
#define SCORIA_TASK_FEATURE_POD_ANTI_AFFINITY 0x2u
/** scoria_task_info.features (1.1): preferred podAffinity or podAntiAffinity
    terms (scoring only). */
#define SCORIA_TASK_FEATURE_PREFERRED_POD_AFFINITY 0x4u
/** scoria_task_info.features (1.1): spec.topologySpreadConstraints. */
#define SCORIA_TASK_FEATURE_TOPOLOGY_SPREAD 0x8u
/** scoria_task_info.features (1.1): a container or init container port
    with a hostPort. */
#define SCORIA_TASK_FEATURE_HOST_PORTS 0x10u
/** scoria_task_info.features (1.12): a volume naming a PersistentVolumeClaim
    (spec.volumes[].persistentVolumeClaim, or a generic ephemeral volume);
    host_api.session_volume_check answers for it. */
#define SCORIA_TASK_FEATURE_VOLUMES 0x20u
/** scoria_task_info.features (1.14): spec.resourceClaims names a
    ResourceClaim or a ResourceClaimTemplate (Dynamic Resource Allocation);
    host_api.session_task_device_demands answers for it. The host lists
    these tasks for session_tasks_with_features by walking every task. */
#define SCORIA_TASK_FEATURE_DEVICE_CLAIMS 0x40u
/** scoria_task_info.features (1.16): the pod opts in to Volcano's
    queue-admission gate (queue_gate has SCORIA_TASK_QUEUE_GATE_OPTED_IN);
    set only while the host runs with SchedulingGatesQueueAdmission. The
    host keeps these tasks listed for session_tasks_with_features, so a
    plugin finds the few of them without a walk over every task. */
#define SCORIA_TASK_FEATURE_QUEUE_GATE 0x80u

/**
 * What one of a task's ResourceClaims asks of one DeviceClass (1.14), as
 * Volcano's queue quota counts it: filled by the host, read by the plugin.
 *
 * For each request of the claim's spec given `exactly` with allocationMode
 * ExactCount: one entry with an empty `dimension` and `amount` its count of
 * devices, and one entry per consumable capacity it requests
 * (exactly.capacity.requests) with `dimension` that capacity's name and
 * `amount` the quantity per device times the count. Requests with
 * firstAvailable alternatives or allocationMode All are not counted (the
 * devices they take are not known before allocation), as Volcano skips
 * them. Entries of one claim, class and dimension are added up.
 */
typedef struct scoria_device_demand {
  uint32_t struct_size;    /**< set by the host */
  scoria_str claim;        /**< "namespace/name" of the claim; for a claim
                                made from a template, of the claim made for
                                this pod. Several tasks naming one claim
                                share it: count it once per queue */
  scoria_str device_class; /**< exactly.deviceClassName */
  scoria_str dimension;    /**< "" for the number of devices, else the name
                                of a consumable capacity ("memory", or
                                "domain/name") */
  double amount;           /**< devices, or the capacity's quantity in its
                                base unit (bytes for "40Gi") */
} scoria_device_demand;

/* session_volume_check (1.12): which of kube-scheduler's volume checks to
   make, as bits. */

/** VolumeBinding: the claims exist, are not being deleted or lost, a
    generic ephemeral volume's claim is its pod's, none is unbound with an
    Immediate class; a bound claim's volume exists and its node affinity
    allows the node; a claim waiting for its first consumer finds a volume
    that fits on the node, or its class provisions there (allowedTopologies,
    and CSIStorageCapacity when its driver publishes it). */
#define SCORIA_VOLUME_BINDING 0x1u
/** VolumeZone: the zone and region labels of the bound volumes match the
    node's (a node with none of those labels passes). */
#define SCORIA_VOLUME_ZONE 0x2u
/** NodeVolumeLimits (CSI): the node's CSINode attach limit per driver,
    counting the volumes of the pods already there. */
#define SCORIA_VOLUME_LIMITS 0x4u
/** VolumeRestrictions: the claims exist, and a ReadWriteOncePod claim is
    used by no other pod. */
#define SCORIA_VOLUME_RESTRICTIONS 0x8u

/** What a job (PodGroup) is. Filled by host_api.job_info. */
typedef struct scoria_job_info {
  uint32_t struct_size;
  uint32_t phase;          /**< scoria_job_phase, as it stands in the session */
  scoria_str namespace_;
  scoria_str name;
  scoria_str uid;          /**< "namespace/name" */
  scoria_str queue_name;
  const scoria_queue* queue; /**< NULL if the queue does not exist */
  int32_t min_available;   /**< spec.minMember */
  int32_t priority;        /**< from the PodGroup's priorityClassName */
  int32_t preemptable;     /**< volcano.sh/preemptable on the PodGroup
                                (annotation, else label); 0 when unset,
                                as Volcano reads a PodGroup */
  int32_t task_count;      /**< all tasks */
  const double* min_resources; /**< spec.minResources; all zero if unset */
  int32_t has_min_resources;   /**< 1 if spec.minResources was given */
  uint32_t index;          /**< position of the job in its session, dense */
  int64_t creation_ms;
  /** Counts of tasks per status, indexed by bit position of
      scoria_task_status (0 = pending, 1 = allocated, ...). */
  int32_t status_count[10];
  const double* allocated; /**< sum of resreq of tasks in allocated statuses */
  const double* total_request; /**< sum of resreq of all tasks */
  /* --- since 1.10 --- */
  int32_t pending_best_effort; /**< its Pending tasks that ask for no
                                    resources (best-effort), live: Volcano's
                                    IsReady counts them as ready */
  int32_t reserved0;
  /* --- since 1.16 --- */
  int32_t disrupt_whole;   /**< 1 if the job is a scheduling.k8s.io PodGroup
                                whose disruptionMode is all (KEP-5710): the
                                host evicts every placed task of it in the
                                statement that evicts one, so a plugin that
                                guards gangs may let such a job go whole */
  int32_t reserved1;
} scoria_job_info;

/** What a queue is. Filled by host_api.queue_info. */
typedef struct scoria_queue_info {
  uint32_t struct_size;
  uint32_t index;          /**< position in the session, dense */
  scoria_str name;
  scoria_str parent;       /**< empty if none */
  int32_t weight;
  int32_t priority;
  int32_t reclaimable;     /**< spec.reclaimable, default 1 */
  int32_t open;            /**< 1 if status.state is Open (or unset) */
  const double* capability; /**< per dimension; +inf where unlimited */
  const double* deserved;   /**< spec.deserved; 0 where unset */
  const double* guarantee;  /**< spec.guarantee; 0 where unset */
  const double* allocated;  /**< sum over its jobs, live in the session */
  int64_t creation_ms;
} scoria_queue_info;

/** What a node is. Filled by host_api.node_info. */
typedef struct scoria_node_info {
  uint32_t struct_size;
  uint32_t index;          /**< position in the session, dense */
  scoria_str name;
  int32_t ready;           /**< 1 if condition Ready is True */
  int32_t unschedulable;   /**< spec.unschedulable */
  const double* allocatable; /**< status.allocatable */
  const double* idle;        /**< allocatable - used */
  const double* used;        /**< sum of resreq of tasks on it */
  const double* releasing;   /**< sum of resreq of releasing tasks on it */
  const double* pipelined;   /**< sum of resreq of tasks pipelined onto it */
  uint32_t task_count;       /**< tasks placed on it */
  uint32_t reserved0;
  /* --- since 1.16 --- */
  int32_t outside_soft_shard; /**< 1 if the host runs with a soft node shard
                                   (Volcano's --scheduler-sharding-mode soft)
                                   and this node is not in its working set:
                                   Volcano's preempt and reclaim try such
                                   nodes only after the shard's. Always 0
                                   otherwise (a hard shard's predicates
                                   refuse the nodes outside it) */
  int32_t reserved1;
} scoria_node_info;

/** One taint of a node. Filled by host_api.node_taint_at; the caller sets
    struct_size first. Strings owned by the host, valid for the session. */
typedef struct scoria_taint {
  uint32_t struct_size;
  uint32_t effect; /**< scoria_taint_effect */
  scoria_str key;
  scoria_str value;
} scoria_taint;

/** One toleration of a task, filled by host_api.task_toleration_at (caller
    sets struct_size). An empty key with op EXISTS tolerates all. */
typedef struct scoria_toleration {
  uint32_t struct_size;
  uint32_t op;     /**< SCORIA_OP_EQUAL or SCORIA_OP_EXISTS */
  uint32_t effect; /**< scoria_taint_effect, or 0 for every effect */
  uint32_t reserved0;
  scoria_str key;
  scoria_str value;
} scoria_toleration;

/**
 * One requirement of a node selector term (matchExpressions or matchFields),
 * filled by host_api.task_affinity_requirement_at (caller sets struct_size).
 * For matchFields the key is a field path such as "metadata.name".
 */
typedef struct scoria_selector_requirement {
  uint32_t struct_size;
  uint32_t op;            /**< scoria_selector_op */
  uint32_t is_field;      /**< 1 for matchFields, 0 for matchExpressions */
  uint32_t reserved0;
  scoria_str key;
  const scoria_str* values; /**< owned by the host, valid for the session */
  size_t value_count;
} scoria_selector_requirement;

/**
 * Which node-affinity term list to read: the required terms (ORed; each
 * term's requirements ANDed) or the preferred, weighted ones.
 */
typedef enum scoria_affinity_kind {
  SCORIA_AFFINITY_REQUIRED = 1,
  SCORIA_AFFINITY_PREFERRED = 2
} scoria_affinity_kind;

/** What an eviction is for (1.3; Volcano's EvictionKind). */
typedef enum scoria_eviction_kind {
  SCORIA_EVICTION_GANG_PREEMPT = 1, /**< gangpreempt: room for a whole gang
                                         within its queue, by priority */
  SCORIA_EVICTION_GANG_RECLAIM = 2, /**< gangreclaim: room for a whole gang,
                                         taken from other queues */
  SCORIA_EVICTION_TASK_PREEMPT = 3, /**< task-level preemption */
  SCORIA_EVICTION_TASK_RECLAIM = 4  /**< task-level reclaim */
} scoria_eviction_kind;

/**
 * Who asks for an eviction, as on_evictable and session_evictable see it
 * (1.3; Volcano's EvictionContext). Owned by whoever calls; valid during
 * the call. The caller sets struct_size.
 */
typedef struct scoria_eviction_context {
  uint32_t struct_size;
  uint32_t kind;           /**< scoria_eviction_kind */
  const scoria_job* job;   /**< the job that wants room */
  const scoria_task* task; /**< the task that wants room, for the task kinds;
                                NULL for the gang kinds (use job) */
  scoria_str domain;       /**< the topology domain (HyperNode) the victims
                                are sought in; empty for the whole cluster */
} scoria_eviction_context;

/* --- HyperNodes and network topology (1.6) -------------------------------- */

/** "No HyperNode" where a HyperNode index (1.6: a uint32_t, its position in
    the session, 0 to hypernode_count - 1) is expected. */
#define SCORIA_NO_HYPERNODE 0xFFFFFFFFu
/** Name of the virtual HyperNode the host adds above every root (1.6), as
    Volcano's ClusterTopHyperNode. */
#define SCORIA_CLUSTER_TOP_HYPERNODE "<cluster-top-hypernode>"

/**
 * A HyperNode of the session (1.6; topology.volcano.sh/v1alpha1), with its
 * members resolved as Volcano's cache resolves them: `nodes` are the real
 * nodes under it (its Node members and those of every HyperNode below it),
 * `children` the HyperNodes it names as members. Filled by
 * host_api.hypernode_info (caller sets struct_size). The session always has
 * one more HyperNode than the cluster defines: the last, named
 * SCORIA_CLUSTER_TOP_HYPERNODE, holds every node of the session, is the
 * parent of every root, and its tier is one above the highest defined tier
 * (1 when none is defined). Pointers are owned by the host, valid for the
 * session.
 */
typedef struct scoria_hypernode_info {
  uint32_t struct_size;
  uint32_t index;           /**< position in the session, dense */
  scoria_str name;          /**< metadata.name */
  int32_t tier;             /**< spec.tier */
  uint32_t parent;          /**< index of the HyperNode naming it as a member;
                                 SCORIA_NO_HYPERNODE for the top only */
  const uint32_t* children; /**< indices of its member HyperNodes, by name */
  size_t child_count;
  const uint32_t* nodes;    /**< scoria_node_info.index of each real node,
                                 ascending (session node order) */
  size_t node_count;
} scoria_hypernode_info;

/** Network topology modes of a PodGroup (1.6; spec.networkTopology.mode). */
typedef enum scoria_topology_mode {
  SCORIA_TOPOLOGY_NONE = 0, /**< the PodGroup has no networkTopology */
  SCORIA_TOPOLOGY_HARD = 1, /**< keep the job within one HyperNode */
  SCORIA_TOPOLOGY_SOFT = 2  /**< prefer to (see scoria_network_topology) */
} scoria_topology_mode;

/** Why HyperNodes are being searched (1.6; Volcano's SearchPurpose). */
typedef enum scoria_search_purpose {
  SCORIA_SEARCH_ALLOCATE = 0, /**< room for the job from idle resources */
  SCORIA_SEARCH_EVICT = 1     /**< room for the job by evicting others */
} scoria_search_purpose;

/**
 * A job's network topology (1.6), filled by host_api.job_network_topology
 * (caller sets struct_size). As Volcano's session prepares it: `mode` and
 * `highest_tier_allowed` as the PodGroup gives them, except that a soft
 * topology is given as hard with the cluster top's tier as its highest
 * allowed tier (`declared_mode` keeps SOFT), so that it is searched as a
 * hard one that may end up anywhere.
 */
typedef struct scoria_network_topology {
  uint32_t struct_size;
  uint32_t mode;                 /**< scoria_topology_mode, after the above */
  uint32_t declared_mode;        /**< scoria_topology_mode as written */
  int32_t highest_tier_allowed;  /**< 0 when has_highest_tier_allowed is 0 */
  int32_t has_highest_tier_allowed; /**< 1 if set (a hard topology without it
                                         is not searched by HyperNode) */
  uint32_t allocated_hypernode;  /**< index of the lowest HyperNode holding
                                      every placed task of the job (recovered
                                      at session open, then as the allocating
                                      action sets it); SCORIA_NO_HYPERNODE if
                                      none */
} scoria_network_topology;

/* --- Sub-jobs (1.9) --------------------------------------------------------- */

/**
 * A sub-job (1.9; Volcano's SubJobInfo): a gang within a job, formed from its
 * PodGroup's spec.subGroupPolicy. Valid for its session.
 *
 * Every task of a job is in exactly one of its sub-jobs, formed as Volcano
 * forms them: a pod goes to the first policy (in spec order) whose
 * labelSelector selects it (no selector selects every pod) and whose
 * matchLabelKeys it carries, each with a non-empty value; the pods of one
 * policy with the same values form one sub-job. A policy without
 * matchLabelKeys takes no pod. Pods no policy takes form the job's default
 * sub-job. A job without spec.subGroupPolicy therefore has exactly one
 * sub-job, its default one, holding all its tasks, whose min_available is
 * the job's minMember.
 */
typedef struct scoria_sub_job scoria_sub_job;

/** scoria_sub_job_info.policy of a job's default sub-job (1.9). */
#define SCORIA_NO_SUB_GROUP_POLICY 0xFFFFFFFFu

/**
 * What a sub-job is (1.9), filled by host_api.sub_job_info (caller sets
 * struct_size). Strings are owned by the host, valid for the session.
 */
typedef struct scoria_sub_job_info {
  uint32_t struct_size;
  uint32_t index;          /**< position among its job's sub-jobs
                                (job_sub_job_at), in the order their first
                                task comes in the job */
  const scoria_job* job;   /**< the job it belongs to */
  scoria_str uid;          /**< "namespace/podgroup/policy-v1-v2..." (the
                                values of its matchLabelKeys, joined by "-";
                                over 128 characters they are replaced by a
                                hash, as Volcano's getSubJobID does); the
                                job's uid for the default sub-job */
  scoria_str gid;          /**< "namespace/podgroup/policy", shared by the
                                sub-jobs of one policy name; the job's uid
                                for the default sub-job */
  uint32_t policy;         /**< index of its policy (job_sub_group_policy_at),
                                or SCORIA_NO_SUB_GROUP_POLICY */
  int32_t min_available;   /**< subGroupSize (default 1); for the default
                                sub-job, the job's minMember when the job has
                                no policy, else 1 */
  int64_t match_index;     /**< its first matchLabelKeys value read as a
                                decimal number, else 0; the order's fallback */
  int32_t priority;        /**< highest priority of its tasks, at least 0 */
  int32_t task_count;      /**< its tasks */
  /** Counts of its tasks per status, as scoria_job_info.status_count, live. */
  int32_t status_count[10];
  /* --- since 1.10 --- */
  int32_t pending_best_effort; /**< as scoria_job_info.pending_best_effort */
  int32_t reserved0;
} scoria_sub_job_info;

/**
 * One entry of a PodGroup's spec.subGroupPolicy (1.9), filled by
 * host_api.job_sub_group_policy_at (caller sets struct_size). The name is
 * owned by the host, valid for the session.
 */
typedef struct scoria_sub_group_policy_info {
  uint32_t struct_size;
  int32_t sub_group_size;  /**< subGroupSize (default 1): each sub-job's gang */
  scoria_str name;         /**< name */
  int32_t min_sub_groups;  /**< minSubGroups (default 0): how many of its
                                sub-jobs must be ready for the job to be */
  int32_t reserved0;
} scoria_sub_group_policy_info;

/* --- Node choice (1.10) ---------------------------------------------------- */

/**
 * A node chosen for a task (1.10), filled by host_api.session_select_node
 * (caller sets struct_size).
 */
typedef struct scoria_node_choice {
  uint32_t struct_size;
  uint32_t fit_count;        /**< nodes that passed the predicates, as many as
                                  session_predicate_nodes would return */
  const scoria_node* node;   /**< the chosen node; NULL when none passed */
  int32_t idle;              /**< 1: the task fits the node's idle resources
                                  now (allocate it); 0: only once the node's
                                  releasing resources are free (pipeline it) */
  int32_t reserved0;
} scoria_node_choice;

/* --- Queue sums and job lists (1.11) -------------------------------------- */

/**
 * What one queue's jobs hold and ask for (1.11), added up job by job as
 * Volcano's proportion, capacity and overcommit plugins add them up when a
 * session opens. Filled by host_api.session_queue_job_sums (caller sets
 * struct_size). Each vector has session_dims values; it belongs to the host
 * and stays valid until the next session_queue_job_sums call or the
 * session's close. The allocated statuses are Allocated, Binding, Bound and
 * Running, as in scoria_job_info.allocated.
 */
typedef struct scoria_queue_job_sums {
  uint32_t struct_size;
  uint32_t jobs;                     /**< jobs whose job_info.queue is this queue */
  const double* allocated;           /**< sum of their job_info.allocated */
  const double* request;             /**< sum of the resreq of their tasks that
                                          are Pending or in an allocated status */
  const double* elastic;             /**< sum over them of max(0, allocated -
                                          min_resources), dimension by dimension
                                          (all of allocated without minResources) */
  const double* inqueue_minimum;     /**< sum of min_resources of those Inqueue
                                          with has_min_resources */
  const double* inqueue_unallocated; /**< sum over the same Inqueue jobs of
                                          max(0, min_resources - allocated) */
  const double* running_unallocated; /**< sum of max(0, min_resources -
                                          allocated) over those Running with
                                          has_min_resources and at least
                                          min_available tasks in an allocated
                                          status */
} scoria_queue_job_sums;

/** session_jobs_where (1.11): jobs in phase Pending. */
#define SCORIA_JOBS_PHASE_PENDING 0x1u
/** session_jobs_where (1.11): jobs with at least one Pending task. */
#define SCORIA_JOBS_WITH_PENDING_TASKS 0x2u
/** session_jobs_where (1.11): jobs without a queue (job_info.queue is NULL:
    it does not exist, or the job is invalid). */
#define SCORIA_JOBS_WITHOUT_QUEUE 0x4u

/* ------------------------------------------------------------------------ */
/* Hooks a plugin registers (Volcano's ssn.AddXxxFn)                          */
/* ------------------------------------------------------------------------ */

/**
 * Filled by a plugin in on_session_open. The host zeroes it and sets
 * struct_size; a plugin sets the hooks it implements and leaves the rest
 * NULL. Every hook receives `user_data` as its first argument.
 *
 * Dispatch across tiers follows Volcano's framework/session_plugins.go:
 *   orders          first non-zero answer, tier by tier, plugin by plugin;
 *   predicates      every one must pass;
 *   node scores     added up over all plugins;
 *   best node       first plugin that picks one;
 *   job_valid, job_ready, allocatable, preemptive   every one must pass;
 *   overused        any one says yes;
 *   job_pipelined, job_enqueueable      a reject wins; a permit in a tier
 *                   ends the walk; all abstain means yes;
 *   job_starving    the first tier with a registered hook decides (all of
 *                   that tier must say yes); none registered means no;
 *   preemptable, reclaimable, evictable within a tier the permitted sets
 *                   are intersected; the first tier that decides wins; an
 *                   empty permitted set means no victims;
 *   victim_tasks    union within the first tier that selects any.
 * A hook's enable flag in the config (enableJobOrder, ...) turns it off
 * for that plugin alone.
 */
typedef struct scoria_hooks {
  uint32_t struct_size;
  uint32_t reserved0;
  /** Passed back as the first argument of every hook. Owned by the plugin. */
  void* user_data;

  /** Job order: <0 if l goes first, >0 if r goes first, 0 if no opinion. */
  int (*on_job_order)(void* user_data, const scoria_job* l, const scoria_job* r);
  /** Queue order, same convention. */
  int (*on_queue_order)(void* user_data, const scoria_queue* l, const scoria_queue* r);
  /** Task order, same convention. */
  int (*on_task_order)(void* user_data, const scoria_task* l, const scoria_task* r);
  /** Victim queue order for preemption across queues: <0 if l should lose
      tasks first. `preemptor` is the task that wants resources. */
  int (*on_victim_queue_order)(void* user_data, const scoria_queue* l,
                               const scoria_queue* r, const scoria_task* preemptor);

  /**
   * Predicate: may `task` run on `node`? Returns SCORIA_OK,
   * SCORIA_UNSCHEDULABLE or SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE (with
   * *reason set to an id from host_api.reason_intern, such as the id of
   * "node(s) had untolerated taint"), or SCORIA_ERROR.
   * A failure refuses the node for this task, as an unresolvable answer
   * would, with the reason "node(s) were refused because plugin NAME
   * failed": a broken plugin never lets a pod onto a node it did not check.
   * A batch predicate that returns a failure refuses every node it was
   * asked about.
   */
  scoria_code (*on_predicate)(void* user_data, const scoria_task* task,
                              const scoria_node* node, uint32_t* reason);
  /**
   * Batch predicate over many nodes at once. Writes codes[i] and reasons[i]
   * for nodes[i]; both arrays are owned by the host and hold `count` items.
   * A plugin that sets this need not set on_predicate: the host calls it
   * with one node where it needs a single answer.
   */
  scoria_code (*on_predicate_batch)(void* user_data, const scoria_task* task,
                                    const scoria_node* const* nodes, size_t count,
                                    scoria_code* codes, uint32_t* reasons);

  /**
   * Node score for `task` on `node` (higher is better), into *score.
   *
   * Scale: the host adds every plugin's score and takes the node with the
   * highest total, so a score only means something next to the others.
   * The built-ins score as kube-scheduler's plugins do, 0 to 100 before
   * their weights: nodeorder sums leastrequested (weight 1 by default),
   * mostrequested (0), balancedresource (1), nodeaffinity (2),
   * tainttoleration (3) and podaffinity (2), each 0-100 times its weight
   * argument; binpack gives 0-100 times binpack.weight (1). With the
   * defaults nodeorder alone gives a node up to 900. A plugin that should
   * decide against them scores on the same 0-100 scale and takes a weight
   * argument its users can raise; `scoria simulate --explain NS/POD` shows
   * every plugin's score per node.
   */
  scoria_code (*on_node_order)(void* user_data, const scoria_task* task,
                               const scoria_node* node, double* score);
  /** Batch node order: writes scores[i] for nodes[i] (host-owned arrays). */
  scoria_code (*on_node_order_batch)(void* user_data, const scoria_task* task,
                                     const scoria_node* const* nodes, size_t count,
                                     double* scores);
  /** Best node among scored candidates: returns an index into `nodes`, or
      -1 to leave the choice to the next plugin or the highest score. */
  int64_t (*on_best_node)(void* user_data, const scoria_task* task,
                          const scoria_node* const* nodes, const double* scores,
                          size_t count);

  /** Job valid: SCORIA_OK, or any other code with a message written into
      `message` (host-owned buffer of `message_capacity` bytes, NUL-terminated
      by the plugin) to keep the job out of this session. */
  scoria_code (*on_job_valid)(void* user_data, const scoria_job* job,
                              char* message, size_t message_capacity);
  /** Job ready: 1 if the job has what it needs to run (gang: minAvailable). */
  int (*on_job_ready)(void* user_data, const scoria_job* job);
  /** Job pipelined: a vote on whether allocated plus pipelined suffice. */
  scoria_vote (*on_job_pipelined)(void* user_data, const scoria_job* job);
  /** Job enqueueable: a vote on moving a Pending job to Inqueue. */
  scoria_vote (*on_job_enqueueable)(void* user_data, const scoria_job* job);
  /** Job enqueued: told when the enqueue action admits `job`. */
  void (*on_job_enqueued)(void* user_data, const scoria_job* job);
  /** Job starving: 1 if the job still needs resources (preempt). */
  int (*on_job_starving)(void* user_data, const scoria_job* job);

  /** Overused: 1 if the queue has more than its share now. */
  int (*on_overused)(void* user_data, const scoria_queue* queue);
  /** Allocatable: 1 if the queue may take `task` now. */
  int (*on_allocatable)(void* user_data, const scoria_queue* queue,
                        const scoria_task* task);

  /**
   * Preemptable: which of `candidates` may `preemptor` evict? Set
   * selected[i] = 1 for each permitted candidate (the host zeroes the array,
   * which it owns and sizes `count`). Return SCORIA_VOTE_ABSTAIN to stay out
   * of the decision, SCORIA_VOTE_PERMIT to make it.
   */
  scoria_vote (*on_preemptable)(void* user_data, const scoria_task* preemptor,
                                const scoria_task* const* candidates, size_t count,
                                uint8_t* selected);
  /** Reclaimable: as on_preemptable, for reclaiming across queues. */
  scoria_vote (*on_reclaimable)(void* user_data, const scoria_task* reclaimer,
                                const scoria_task* const* candidates, size_t count,
                                uint8_t* selected);
  /** Victim tasks: mark in selected[i] the tasks the plugin wants evicted
      (shuffle). Host-owned array of `count`, zeroed. */
  void (*on_victim_tasks)(void* user_data, const scoria_task* const* tasks,
                          size_t count, uint8_t* selected);

  /** Event: `task` was allocated or pipelined onto its node (tentatively;
      a discard sends on_deallocate). */
  void (*on_allocate)(void* user_data, const scoria_task* task);
  /** Event: `task` was deallocated or evicted (tentatively). */
  void (*on_deallocate)(void* user_data, const scoria_task* task);

  /* --- since 1.1 --------------------------------------------------------- */

  /** Preemptive: 1 if `queue` may reclaim resources from other queues so
      that `task` can run (Volcano's AddPreemptiveFn; proportion and capacity
      answer whether the queue would stay within its share). Every plugin
      must agree. */
  int (*on_preemptive)(void* user_data, const scoria_queue* queue, const scoria_task* task);

  /* --- since 1.3 --------------------------------------------------------- */

  /**
   * Evictable (Volcano's UnifiedEvictableFn): which of `candidates` may be
   * evicted for the eviction `ctx` describes (who asks, and whether for a
   * whole gang or for one task)? As on_preemptable: set selected[i] = 1 for
   * each permitted candidate (host-owned array of `count`, zeroed) and
   * return SCORIA_VOTE_PERMIT, or SCORIA_VOTE_ABSTAIN to stay out. The gang
   * actions (gangpreempt, gangreclaim) ask through session_evictable; no
   * enable flag of the config turns this hook off.
   */
  scoria_vote (*on_evictable)(void* user_data, const scoria_eviction_context* ctx,
                              const scoria_task* const* candidates, size_t count,
                              uint8_t* selected);
  /** Preemptive for several tasks at once: 1 if `queue` may reclaim from
      other queues so that all `count` tasks can run together (Volcano's
      PreemptiveFn over a job's pending tasks; the gangreclaim action asks
      it). A plugin that registers only on_preemptive is asked task by task
      and must agree for each. Every plugin must agree. */
  int (*on_preemptive_tasks)(void* user_data, const scoria_queue* queue,
                             const scoria_task* const* tasks, size_t count);

  /* --- since 1.6 --------------------------------------------------------- */

  /**
   * HyperNode order (Volcano's AddHyperNodeOrderFn): writes scores[i] for
   * hypernodes[i], the candidates a job (all its tasks) could be placed in;
   * higher is better. Scores of every plugin add up (enable flag
   * enabledHyperNodeOrder). Both arrays are host-owned, read or written
   * during the call. The host zeroes the whole struct before
   * on_session_open, so a plugin built before 1.6 leaves it NULL.
   */
  scoria_code (*on_hypernode_order)(void* user_data, const scoria_job* job,
                                    const uint32_t* hypernodes, size_t count,
                                    double* scores);
  /**
   * HyperNode gradient (Volcano's AddHyperNodeGradientForJobFn): the
   * HyperNodes under (and including) `root` that `job` may be placed in for
   * `purpose` (scoria_search_purpose), grouped into gradients tried in
   * order. Writes up to `capacity` entries (capacity is at least the
   * session's hypernode_count): hypernodes[i] and gradient[i], the
   * gradient it belongs to (0, 1, ..., non-decreasing). Returns the number
   * written, or -1 for no opinion. The first plugin (tier by tier) that
   * registers it decides (enable flag enabledHyperNodeGradient); with none,
   * `root` alone is the one gradient.
   */
  int64_t (*on_hypernode_gradient)(void* user_data, const scoria_job* job,
                                   uint32_t root, uint32_t purpose,
                                   uint32_t* hypernodes, uint32_t* gradient,
                                   size_t capacity);

  /* --- since 1.7 --------------------------------------------------------- */

  /**
   * Cache policy (equivalence classes): which of this plugin's node hooks
   * answer for `task` as a pure function of the task's class and one node's
   * state, so that the host may reuse an answer for every task of the class
   * until that node changes. Returns a mask of SCORIA_CACHE_PREDICATE (the
   * answers of on_predicate / on_predicate_batch: code and reason) and
   * SCORIA_CACHE_NODE_ORDER (the scores of on_node_order /
   * on_node_order_batch); 0 caches nothing.
   *
   * A task's class: tasks of one session whose pods are alike in everything
   * but their identity. The host leaves out of the comparison
   * metadata.name, generateName, uid, resourceVersion, creationTimestamp,
   * ownerReferences and managedFields; the PodGroup annotation
   * (scheduling.k8s.io/group-name, scheduling.volcano.sh/group-name); the
   * Volcano Job's task index (label and annotation volcano.sh/task-index);
   * spec.nodeName, spec.hostname, spec.subdomain and status. Everything else
   * (namespace, labels, annotations, the whole spec) must be equal. A
   * plugin's answer may therefore depend on the task only through what the
   * class keeps, never on which job it belongs to.
   *
   * A node's state: its object and resource vectors and the tasks on it.
   * The host counts a change whenever a task is added to or removed from the
   * node or a task on it changes status, and then asks again. An answer that
   * depends on anything else that changes during the session (tasks on other
   * nodes, a plugin's own state, which other nodes are candidates, as a
   * score normalised over the candidates does) must not be declared
   * cacheable for that task.
   *
   * Asked at most once per class and session, with the first task of the
   * class met; the answer holds for every task of the class in that session.
   * A plugin that registers a predicate or score hook and not this one is
   * never cached, which is what every plugin built before 1.7 gets. The
   * cache changes no decision: `scoria simulate --no-cache` runs the plain
   * path, and the host's differential tests compare both.
   */
  uint32_t (*on_cache_policy)(void* user_data, const scoria_task* task);

  /* --- since 1.9 --------------------------------------------------------- */

  /**
   * Sub-job ready (Volcano's AddSubJobReadyFn): 1 if `sub_job` has what it
   * needs to run (gang: its ready tasks reach its min_available). Asked only
   * for jobs with spec.subGroupPolicy; for the others
   * session_sub_job_ready is session_job_ready. Every plugin must agree
   * (enable flag enabledSubJobReady).
   */
  int (*on_sub_job_ready)(void* user_data, const scoria_sub_job* sub_job);
  /** Sub-job pipelined (AddSubJobPipelinedFn): a vote, as on_job_pipelined,
      for a sub-job of a job with spec.subGroupPolicy (enable flag
      enabledSubJobPipelined). */
  scoria_vote (*on_sub_job_pipelined)(void* user_data, const scoria_sub_job* sub_job);
  /** Sub-job order (AddSubJobOrderFn), between two sub-jobs of one job:
      <0 if l goes first, >0 if r does, 0 if no opinion (enable flag
      enabledSubJobOrder). */
  int (*on_sub_job_order)(void* user_data, const scoria_sub_job* l, const scoria_sub_job* r);
  /**
   * HyperNode order for a sub-job: as on_hypernode_order, for the tasks of
   * `sub_job` (enable flag enabledHyperNodeOrder). A plugin that registers
   * only on_hypernode_order is asked that, with the sub-job's job, for the
   * sub-job of a job without spec.subGroupPolicy.
   */
  scoria_code (*on_sub_job_hypernode_order)(void* user_data, const scoria_sub_job* sub_job,
                                            const uint32_t* hypernodes, size_t count,
                                            double* scores);
  /**
   * HyperNode gradient for a sub-job (AddHyperNodeGradientForSubJobFn): as
   * on_hypernode_gradient, the HyperNodes under `root` that `sub_job` may be
   * placed in, by the sub-job's own topology (sub_job_network_topology).
   * A plugin that registers only on_hypernode_gradient is asked that, with
   * the sub-job's job, for the sub-job of a job without
   * spec.subGroupPolicy.
   */
  int64_t (*on_sub_job_hypernode_gradient)(void* user_data, const scoria_sub_job* sub_job,
                                           uint32_t root, uint32_t purpose,
                                           uint32_t* hypernodes, uint32_t* gradient,
                                           size_t capacity);
} scoria_hooks;

/** on_cache_policy (1.7): predicate answers may be cached. */
#define SCORIA_CACHE_PREDICATE 0x1u
/** on_cache_policy (1.7): node scores may be cached. */
#define SCORIA_CACHE_NODE_ORDER 0x2u
/**
 * on_cache_policy (1.13): the plugin's answers for the task read its
 * PersistentVolumeClaims only through session_volume_check, never by their
 * names. A host of 1.13 or later may then share the answers (with those of
 * SCORIA_CACHE_PREDICATE and SCORIA_CACHE_NODE_ORDER) among tasks alike in
 * everything but the names of the claims their persistentVolumeClaim
 * volumes name, where those claims mean the same to the volume checks (the
 * same bound volume; for claims waiting for a first consumer the same
 * class, size, access modes and volume mode). It does so only when every
 * plugin with a predicate or score hook for the task declares this bit.
 *
 * From 1.13 the host also keeps session_volume_check's answers true for a
 * class: it asks again after a placement takes or gives back a volume, and
 * never keeps those of a task with a ReadWriteOncePod claim (they depend
 * on where other pods are). A plugin whose only reason not to declare a
 * task's predicates cacheable was its volume checks may declare them on a
 * host whose abi_minor is 13 or more.
 */
#define SCORIA_CACHE_CLAIMS 0x4u

/* ------------------------------------------------------------------------ */
/* The host's service table                                                   */
/* ------------------------------------------------------------------------ */

/**
 * Functions the host implements. Owned by the host, valid while the plugin
 * is loaded. Append-only: check SCORIA_HOST_HAS before calling a function
 * added after the minor version you need.
 */
typedef struct scoria_host_api {
  uint32_t struct_size;
  uint16_t abi_major;
  uint16_t abi_minor;

  /* --- logging and errors ------------------------------------------------ */

  /** Writes a log line at `level`, tagged with the plugin's name. */
  void (*log)(const scoria_plugin_ctx* ctx, int level, scoria_str message);
  /** 1 if a line at `level` would be written (to skip formatting). */
  int (*log_enabled)(const scoria_plugin_ctx* ctx, int level);
  /** Records why the hook about to return SCORIA_ERROR failed; the host logs
      it with the plugin's name and counts it in metrics. */
  void (*report_error)(const scoria_plugin_ctx* ctx, scoria_str message);

  /* --- arguments (Volcano's `arguments` map) ------------------------------ */
  /* Nested maps and lists arrive flattened with dotted keys
     ("strategies.0.params.thresholds.cpu"). Volcano's enableHierarchy
     plugin option, which switches a mode rather than a hook, arrives as the
     argument "enableHierarchy" ("true" or "false") when the config sets it. */

  /** Reads integer argument `key` into *out. SCORIA_NOT_FOUND if absent,
      SCORIA_INVALID_ARGUMENT if it is not an integer. */
  scoria_code (*args_get_int)(const scoria_args* args, scoria_str key, int64_t* out);
  /** Reads a number argument (integer or float). SCORIA_NOT_FOUND if absent,
      SCORIA_INVALID_ARGUMENT if it is not a finite number (never NaN or an
      infinity). */
  scoria_code (*args_get_float)(const scoria_args* args, scoria_str key, double* out);
  /** Reads a boolean (true/false, also as the strings "true"/"false"). */
  scoria_code (*args_get_bool)(const scoria_args* args, scoria_str key, int* out);
  /** Reads the argument as text (numbers and booleans as written).
      *out is owned by the host, valid until on_destroy. */
  scoria_code (*args_get_string)(const scoria_args* args, scoria_str key, scoria_str* out);
  /** Number of arguments, and the key of the i-th (for prefix scans such
      as Volcano's "binpack.resources.*"). */
  size_t (*args_count)(const scoria_args* args);
  scoria_str (*args_key_at)(const scoria_args* args, size_t i);

  /* --- predicate reasons --------------------------------------------------- */

  /** Interns a reason text ("Insufficient cpu") and returns its id (>= 1).
      Same text, same id, for the life of the host; call once and keep it. */
  uint32_t (*reason_intern)(scoria_str text);
  /** The text of a reason id; empty for an unknown id. */
  scoria_str (*reason_text)(uint32_t id);

  /* --- resources ----------------------------------------------------------- */

  /** Number of resource dimensions in this session (>= 3). */
  size_t (*resource_dim_count)(const scoria_session* ssn);
  /** Kubernetes name of dimension `dim` ("cpu", "memory", "pods", ...). */
  scoria_str (*resource_dim_name)(const scoria_session* ssn, size_t dim);
  /** Dimension of a resource name; SCORIA_NOT_FOUND if nothing uses it. */
  scoria_code (*resource_dim_find)(const scoria_session* ssn, scoria_str name,
                                   size_t* dim);

  /* --- session: iteration -------------------------------------------------- */

  size_t (*queue_count)(const scoria_session* ssn);
  const scoria_queue* (*queue_at)(const scoria_session* ssn, size_t i);
  size_t (*job_count)(const scoria_session* ssn);
  const scoria_job* (*job_at)(const scoria_session* ssn, size_t i);
  size_t (*node_count)(const scoria_session* ssn);
  const scoria_node* (*node_at)(const scoria_session* ssn, size_t i);
  /** Finds a node by name; NULL if there is none. */
  const scoria_node* (*node_find)(const scoria_session* ssn, scoria_str name);
  /** Finds a queue by name; NULL if there is none. */
  const scoria_queue* (*queue_find)(const scoria_session* ssn, scoria_str name);

  /** Number of tasks of `job` (all statuses), and the i-th. */
  size_t (*job_task_count)(const scoria_job* job);
  const scoria_task* (*job_task_at)(const scoria_job* job, size_t i);
  /** Number of tasks placed on `node`, and the i-th. */
  size_t (*node_task_count)(const scoria_node* node);
  const scoria_task* (*node_task_at)(const scoria_node* node, size_t i);

  /* --- session: reading objects ---------------------------------------------- */

  /** Fill the info struct; the caller sets out->struct_size first. */
  scoria_code (*task_info)(const scoria_task* task, scoria_task_info* out);
  scoria_code (*job_info)(const scoria_job* job, scoria_job_info* out);
  scoria_code (*queue_info)(const scoria_queue* queue, scoria_queue_info* out);
  scoria_code (*node_info)(const scoria_node* node, scoria_node_info* out);

  /** Session of a handle's owner: every handle belongs to one session. */
  const scoria_session* (*job_session)(const scoria_job* job);

  /** A node label's value; SCORIA_NOT_FOUND if the label is absent. */
  scoria_code (*node_label)(const scoria_node* node, scoria_str key, scoria_str* value);
  /** Number of labels of a node, and the i-th key/value. */
  size_t (*node_label_count)(const scoria_node* node);
  void (*node_label_at)(const scoria_node* node, size_t i, scoria_str* key,
                        scoria_str* value);
  /** Taints of a node. */
  size_t (*node_taint_count)(const scoria_node* node);
  void (*node_taint_at)(const scoria_node* node, size_t i, scoria_taint* out);

  /** A pod label / annotation; SCORIA_NOT_FOUND if absent. */
  scoria_code (*task_label)(const scoria_task* task, scoria_str key, scoria_str* value);
  scoria_code (*task_annotation)(const scoria_task* task, scoria_str key,
                                 scoria_str* value);
  /** A PodGroup annotation; SCORIA_NOT_FOUND if absent. */
  scoria_code (*job_annotation)(const scoria_job* job, scoria_str key, scoria_str* value);
  /** spec.nodeSelector of a task. */
  size_t (*task_node_selector_count)(const scoria_task* task);
  void (*task_node_selector_at)(const scoria_task* task, size_t i, scoria_str* key,
                                scoria_str* value);
  /** Tolerations of a task. */
  size_t (*task_toleration_count)(const scoria_task* task);
  void (*task_toleration_at)(const scoria_task* task, size_t i, scoria_toleration* out);
  /** Node affinity terms of a task: count of terms of `kind`; for each term
      its weight (preferred only; 0 for required), its requirement count and
      each requirement. */
  size_t (*task_affinity_term_count)(const scoria_task* task, uint32_t kind);
  int32_t (*task_affinity_term_weight)(const scoria_task* task, uint32_t kind,
                                       size_t term);
  size_t (*task_affinity_requirement_count)(const scoria_task* task, uint32_t kind,
                                            size_t term);
  void (*task_affinity_requirement_at)(const scoria_task* task, uint32_t kind,
                                       size_t term, size_t i,
                                       scoria_selector_requirement* out);
  /**
   * The task's whole Pod object as JSON, for anything no typed accessor
   * covers. Owned by the host, valid for the session. Slower than the typed
   * accessors: parse once per job or task and keep the result.
   */
  scoria_str (*task_object_json)(const scoria_task* task);

  /* --- session: Volcano's tier-dispatched decisions (for actions) ---------- */

  /** Ordering across all plugins and tiers, with Volcano's fallbacks
      (creation time, then uid). Return 1 if l goes before r. */
  int (*session_job_less)(const scoria_session* ssn, const scoria_job* l,
                          const scoria_job* r);
  int (*session_queue_less)(const scoria_session* ssn, const scoria_queue* l,
                            const scoria_queue* r);
  int (*session_task_less)(const scoria_session* ssn, const scoria_task* l,
                           const scoria_task* r);
  int (*session_victim_queue_less)(const scoria_session* ssn, const scoria_queue* l,
                                   const scoria_queue* r, const scoria_task* preemptor);

  /**
   * Runs every predicate of the session for `task` over `candidates` (or
   * all nodes of the session when candidates is NULL), on every core the
   * host uses, and writes the passing nodes, in the order of `candidates`
   * (session node order when NULL), into `fit`
   * (host-sized: at least node_count items, owned by the caller). Returns the
   * number written. The per-reason counts of the failures are kept as the
   * task's fit error (the PodGroup's unschedulable message).
   * `check_resources`: 1 to also require task.init_resreq <= node's
   * future idle (idle + releasing - pipelined), as allocate does.
   *
   * Node shards (the host's --scheduler-sharding-mode): in hard mode a node
   * outside this instance's shard fails every predicate with "node isn't in
   * scheduler node shard"; in soft mode, when any node of the shard passes,
   * only those are written (Volcano's GetPredicatedNodeByShard: the shard's
   * nodes first, the others only where the shard has no room).
   */
  size_t (*session_predicate_nodes)(scoria_session* ssn, const scoria_task* task,
                                    const scoria_node* const* candidates,
                                    size_t candidate_count, int check_resources,
                                    const scoria_node** fit);
  /** Single predicate over every plugin; SCORIA_OK or the first failure's
      code, with its reason id in *reason. */
  scoria_code (*session_predicate)(scoria_session* ssn, const scoria_task* task,
                                   const scoria_node* node, uint32_t* reason);
  /** Sum of node scores of every plugin (batch and single) for each node;
      writes scores[i] for nodes[i]. */
  scoria_code (*session_node_scores)(scoria_session* ssn, const scoria_task* task,
                                     const scoria_node* const* nodes, size_t count,
                                     double* scores);
  /** Best node: first plugin's on_best_node, else the highest score (ties to
      the lowest node index). Returns an index into nodes, -1 if count is 0. */
  int64_t (*session_best_node)(scoria_session* ssn, const scoria_task* task,
                               const scoria_node* const* nodes, const double* scores,
                               size_t count);
  /** Job valid over all plugins; on failure writes the message (host-owned
      until session close) into *message. */
  int (*session_job_valid)(scoria_session* ssn, const scoria_job* job,
                           scoria_str* message);
  int (*session_job_ready)(scoria_session* ssn, const scoria_job* job);
  int (*session_job_pipelined)(scoria_session* ssn, const scoria_job* job);
  int (*session_job_enqueueable)(scoria_session* ssn, const scoria_job* job);
  void (*session_job_enqueued)(scoria_session* ssn, const scoria_job* job);
  int (*session_job_starving)(scoria_session* ssn, const scoria_job* job);
  int (*session_overused)(scoria_session* ssn, const scoria_queue* queue);
  int (*session_allocatable)(scoria_session* ssn, const scoria_queue* queue,
                             const scoria_task* task);
  /** Preemptable / reclaimable / victim tasks over all plugins: sets
      selected[i] = 1 for each chosen candidate (caller-owned array). */
  void (*session_preemptable)(scoria_session* ssn, const scoria_task* preemptor,
                              const scoria_task* const* candidates, size_t count,
                              uint8_t* selected);
  void (*session_reclaimable)(scoria_session* ssn, const scoria_task* reclaimer,
                              const scoria_task* const* candidates, size_t count,
                              uint8_t* selected);
  void (*session_victim_tasks)(scoria_session* ssn, const scoria_task* const* tasks,
                               size_t count, uint8_t* selected);

  /** Sets the PodGroup phase in the session (enqueue: Pending -> Inqueue). */
  scoria_code (*session_job_set_phase)(scoria_session* ssn, const scoria_job* job,
                                       uint32_t phase);
  /** Records a job-level reason the job cannot proceed (for example "queue
      resource quota insufficient"); shown in the PodGroup condition. */
  void (*session_job_set_fit_error)(scoria_session* ssn, const scoria_job* job,
                                    scoria_str message);
  /** 1 if the named action is in the configured action list. */
  int (*session_action_enabled)(const scoria_session* ssn, scoria_str action);

  /* --- statements ------------------------------------------------------------- */

  /** Opens a statement. Owned by the host; ends with commit or discard.
      A statement still open when the session closes (Volcano's allocate
      leaves a pipelined gang so) keeps its effects for the rest of the
      session — its tasks stay Allocated or Pipelined and are reported as
      pipelined — but nothing of it is bound; the host frees it at close.
      Several statements may be open at once. */
  scoria_statement* (*statement_open)(scoria_session* ssn);
  /** Tentatively places `task` (Pending) on `node` using idle resources;
      fires on_allocate. */
  scoria_code (*statement_allocate)(scoria_statement* stmt, const scoria_task* task,
                                    const scoria_node* node);
  /** Tentatively places `task` on `node` waiting for releasing resources. */
  scoria_code (*statement_pipeline)(scoria_statement* stmt, const scoria_task* task,
                                    const scoria_node* node);
  /** Tentatively evicts a running `task`; `reason` is recorded. */
  scoria_code (*statement_evict)(scoria_statement* stmt, const scoria_task* task,
                                 scoria_str reason);
  /** Makes every operation final (binds, evictions) and frees the statement. */
  scoria_code (*statement_commit)(scoria_statement* stmt);
  /** Undoes every operation, newest first, and frees the statement. */
  void (*statement_discard)(scoria_statement* stmt);
  /** Number of operations recorded so far. */
  size_t (*statement_size)(const scoria_statement* stmt);

  /* --- since 1.1 (check SCORIA_HOST_HAS before calling) --------------------- */

  /** A Queue annotation (for example volcano.sh/hierarchy);
      SCORIA_NOT_FOUND if absent. *value is owned by the host, valid for the
      session. */
  scoria_code (*queue_annotation)(const scoria_queue* queue, scoria_str key,
                                  scoria_str* value);
  /** Records the share a queue deserves in this session, as computed by a
      fair-share plugin (proportion, capacity), `deserved` holding one value
      per dimension (read during the call). Written back to the Queue's
      status at close and shown by `scoria simulate` and metrics; the last
      call for a queue wins. queue_info.deserved keeps spec.deserved. */
  scoria_code (*session_queue_set_deserved)(scoria_session* ssn, const scoria_queue* queue,
                                            const double* deserved);
  /** Preemptive over all plugins (every one must agree; none registered
      means yes): may `queue` reclaim from other queues for `task`? */
  int (*session_preemptive)(scoria_session* ssn, const scoria_queue* queue,
                            const scoria_task* task);
  /** Moves every operation of `from` to the end of `into` (Volcano's
      Statement.Merge) and frees `from`; the operations stay in effect and
      are committed or discarded with `into`. Both must belong to the same
      session. */
  scoria_code (*statement_merge)(scoria_statement* into, scoria_statement* from);

  /* --- since 1.2 (check SCORIA_HOST_HAS before calling) --------------------- */

  /**
   * Namespaces, as pod affinity terms' namespaceSelector matches them (the
   * cluster's v1 Namespace objects; a namespace that pods use but that has
   * no Namespace object matches no selector, as in kube-scheduler).
   *
   * Number of labels of Namespace `ns` into *count: SCORIA_OK, or
   * SCORIA_NOT_FOUND (and *count 0) when the cluster has no such Namespace.
   */
  scoria_code (*namespace_label_count)(const scoria_session* ssn, scoria_str ns,
                                       size_t* count);
  /** The i-th label of Namespace `ns` (i < its count, in key order).
      Strings owned by the host, valid for the session. SCORIA_NOT_FOUND
      when there is no such Namespace or label. */
  scoria_code (*namespace_label_at)(const scoria_session* ssn, scoria_str ns, size_t i,
                                    scoria_str* key, scoria_str* value);
  /** A label of Namespace `ns`: SCORIA_OK with *value (host-owned, valid
      for the session), or SCORIA_NOT_FOUND when the Namespace or the label
      is absent. */
  scoria_code (*namespace_label)(const scoria_session* ssn, scoria_str ns, scoria_str key,
                                 scoria_str* value);

  /* --- since 1.3 (check SCORIA_HOST_HAS before calling) --------------------- */

  /**
   * The session's clock, in milliseconds since the Unix epoch: the wall
   * clock when the session opened under `scoria serve`; under `scoria
   * simulate`, the simulated time of this session (--now for the first, one
   * schedule_period more for each next). The same value for the whole
   * session. A plugin that judges time (waiting times, cooldowns, time
   * windows) reads this rather than its own clock, so that a simulated run
   * decides as a live one would at that time.
   */
  int64_t (*session_now_ms)(const scoria_session* ssn);
  /** A Node annotation (for example one a metrics adapter writes):
      SCORIA_OK with *value (host-owned, valid for the session), or
      SCORIA_NOT_FOUND when the node has no such annotation. */
  scoria_code (*node_annotation)(const scoria_node* node, scoria_str key,
                                 scoria_str* value);
  /** Evictable over all plugins (on_evictable; dispatched as preemptable
      is): selected[i] = 1 for each of `candidates` that may be evicted for
      `ctx` (host-owned or caller-owned array of `count`, written by the
      host). No plugin answering means no victims. */
  void (*session_evictable)(scoria_session* ssn, const scoria_eviction_context* ctx,
                            const scoria_task* const* candidates, size_t count,
                            uint8_t* selected);
  /** Preemptive over all plugins for `count` tasks together
      (on_preemptive_tasks, else on_preemptive per task): 1 if `queue` may
      reclaim from other queues for all of them. */
  int (*session_preemptive_tasks)(scoria_session* ssn, const scoria_queue* queue,
                                  const scoria_task* const* tasks, size_t count);
  /** The whole Queue object as JSON, as the source gave it (for fields the
      ABI has no typed view of, such as spec.affinity's node groups).
      Empty for a queue no object defines (the default queue the host
      provides). Owned by the host, valid for the session; parse it once per
      session, not per call. */
  scoria_str (*queue_object_json)(const scoria_queue* queue);

  /* --- since 1.4 (check SCORIA_HOST_HAS before calling) --------------------- */

  /**
   * Cluster objects the ABI has no typed view of, read whole: the kinds a
   * plugin of Volcano's reads from its informers, as the host carries them
   * (today "PodDisruptionBudget", policy/v1, for pdb, and "ResourceQuota",
   * v1, for resourcequota). The host reads them from every source (object
   * files, the local store, a Kubernetes API server's watch) and has
   * already refused any it could not decode, so their fields have the
   * shapes Kubernetes' validation allows; what a field means is the
   * plugin's to read (a status the cluster's controllers have not written,
   * as in object files, is simply absent).
   *
   * Number of objects of `kind` (its Kubernetes kind, e.g.
   * "PodDisruptionBudget", "ResourceQuota"; compared exactly) in the
   * session; 0 for a kind the host does not carry.
   */
  size_t (*session_object_count)(const scoria_session* ssn, scoria_str kind);
  /** The i-th (by namespace, then name, each in byte order) object of
      `kind` as the JSON of the whole object (apiVersion, kind, metadata,
      spec and status as the source gave them), host-owned, valid for the
      session; empty when i is out of range (not below
      session_object_count). The objects do not change while a session
      runs: parse each once per session and keep what you need. */
  scoria_str (*session_object_json)(const scoria_session* ssn, scoria_str kind, size_t i);

  /**
   * The job's per-role minimums: its PodGroup's spec.minTaskMember, each a
   * task role (scoria_task_info.role, the pod's volcano.sh/task-spec) and
   * the number of tasks of that role the gang needs, as the PodGroup gives
   * it (0 or more). Volcano's gang checks a job's roles against them only
   * when minAvailable is at least their sum.
   *
   * Number of roles of `job` with a minimum; 0 when the PodGroup sets none
   * (or `job` is NULL).
   */
  size_t (*job_min_task_member_count)(const scoria_job* job);
  /** The i-th (by role, in byte order) role and its minimum into *role and
      *min (either may be NULL). The role is host-owned, valid for the
      session. When i is not below job_min_task_member_count, *role is set
      empty and *min 0. */
  void (*job_min_task_member_at)(const scoria_job* job, size_t i, scoria_str* role,
                                 int32_t* min);

  /* --- since 1.5 (check SCORIA_HOST_HAS before calling) --------------------- */

  /**
   * session_predicate for a state that does not exist: as if the tasks of
   * `gone` (`gone_count` of them) had left their nodes. This is how an
   * action asks "does `task` fit on `node` if these pods are gone?"
   * (Volcano's SimulateRemoveTask then SimulatePredicate, as its
   * topology-aware preemption asks it). A statement cannot ask it:
   * statement_evict leaves a task on its node as Releasing, and a pod being
   * deleted still counts for other pods' rules (inter-pod affinity and
   * anti-affinity, host ports, the node's pod count).
   *
   * For the duration of the call, and only then, each task of `gone` that
   * is on a node (status Allocated, Pipelined, Binding, Bound, Running or
   * Releasing) is off it:
   *   - node_task_count / node_task_at of its node no longer list it;
   *   - task_info gives it an empty node_name (its status, and its job's and
   *     queue's accounting, are unchanged);
   *   - node_info of its node no longer holds its request: used and (if it
   *     is Releasing) releasing are lower and idle higher by its resreq, or,
   *     if it is Pipelined, pipelined is lower.
   * Every predicate hook of the session (on_predicate, else
   * on_predicate_batch, tier by tier as session_predicate runs them) reads
   * the session through these functions and so answers for that state; no
   * plugin needs to know it is being asked a hypothetical question. Before
   * the call returns, everything is exactly as it was (the order of each
   * node's tasks and its resource vectors included). No hook but the
   * predicates is called: no on_allocate or on_deallocate fires, no fit
   * error is recorded, no statement is involved.
   *
   * `task` itself, NULL entries, duplicates and tasks on no node are
   * ignored. `gone` is owned by the caller and read during the call.
   *
   * Returns SCORIA_OK, or the first failure's code with its reason id in
   * *reason, as session_predicate does; SCORIA_INVALID_ARGUMENT if `ssn`,
   * `task` or `node` is NULL or of another session, or `gone` is NULL
   * while `gone_count` is not 0. Like session_predicate it does not compare
   * resources: the caller compares task.init_resreq with the node's future
   * idle, counting the requests of `gone` as freed. Call it from an
   * action on the session thread, never from a hook.
   */
  scoria_code (*session_predicate_without)(scoria_session* ssn, const scoria_task* task,
                                           const scoria_node* node,
                                           const scoria_task* const* gone,
                                           size_t gone_count, uint32_t* reason);

  /* --- since 1.6 (check SCORIA_HOST_HAS before calling) --------------------- */

  /**
   * Bind annotations: what a plugin writes on a pod when it is bound, such
   * as the device it chose (Volcano's deviceshare writes the GPU card, and a
   * device plugin on the node honours it). Volcano keeps them in its task's
   * PodAnnotations and sends them with the Binding.
   *
   * Sets annotation `key` to `value` on `task`'s current allocation. Call it
   * from on_allocate (or from an action, after statement_allocate or
   * statement_pipeline), while the task is Allocated or Pipelined in `ssn`.
   * Setting a key again replaces its value; `value` may be empty. The host
   * keeps the annotations with the allocation:
   *   - when the allocation is undone (statement_discard, or the task
   *     leaves its node in any other way before it is bound) they are
   *     dropped, before on_deallocate fires; a later allocation starts
   *     with none;
   *   - when the task is bound (its statement committed), they are written
   *     on the pod with the binding: on a Kubernetes API server as the
   *     Binding's metadata.annotations, which the server copies onto the
   *     pod with spec.nodeName; in `scoria serve`'s own store onto the pod
   *     object; and `scoria simulate --output json` lists them under
   *     "bind_annotations". A pipelined task that is not bound this session
   *     writes nothing.
   * An annotation the pod already has is overwritten by the bind.
   *
   * `key` and `value` are owned by the caller and copied during the call.
   * Returns SCORIA_OK; SCORIA_INVALID_ARGUMENT if `ssn` or `task` is NULL
   * or of another session, `key` is empty, or the task is neither
   * Allocated nor Pipelined. Call it on the session thread (on_allocate,
   * an action), never from a predicate or score hook.
   */
  scoria_code (*task_set_bind_annotation)(scoria_session* ssn, const scoria_task* task,
                                          scoria_str key, scoria_str value);
  /** The bind annotation `key` set on `task`'s current allocation (see
      task_set_bind_annotation): SCORIA_OK with *value (host-owned, valid
      until the annotation is set again, dropped, or the session closes), or
      SCORIA_NOT_FOUND when none is set; SCORIA_INVALID_ARGUMENT if `task`
      is NULL. The pod's own annotations are read with task_annotation. */
  scoria_code (*task_bind_annotation)(const scoria_task* task, scoria_str key,
                                      scoria_str* value);

  /**
   * HyperNodes (topology.volcano.sh/v1alpha1), resolved by the host once per
   * session as Volcano's cache resolves them (scoria_hypernode_info). The
   * count includes the virtual cluster top, which is always last, so it is
   * at least 1.
   */
  size_t (*hypernode_count)(const scoria_session* ssn);
  /** Fills *out for HyperNode `index` (caller sets out->struct_size first).
      SCORIA_INVALID_ARGUMENT if `index` is not below hypernode_count. */
  scoria_code (*hypernode_info)(const scoria_session* ssn, uint32_t index,
                                scoria_hypernode_info* out);
  /** The index of the HyperNode named `name`; SCORIA_NO_HYPERNODE if none. */
  uint32_t (*hypernode_find)(const scoria_session* ssn, scoria_str name);
  /** The job's network topology into *out (caller sets out->struct_size
      first); mode SCORIA_TOPOLOGY_NONE when its PodGroup sets none. */
  scoria_code (*job_network_topology)(const scoria_job* job, scoria_network_topology* out);
  /** Sets the job's allocated HyperNode for the rest of the session (what
      job_network_topology then reports, and node scoring reads): the
      allocating action calls it as it places the job's tasks, as Volcano's
      allocate sets JobAllocatedHyperNode. SCORIA_NO_HYPERNODE clears it. */
  scoria_code (*session_job_set_allocated_hypernode)(scoria_session* ssn, const scoria_job* job,
                                                     uint32_t hypernode);
  /** Sum of every plugin's on_hypernode_order for `job` over `hypernodes`,
      into scores[i] (caller-owned arrays of `count`; 0 where no plugin
      answers). */
  scoria_code (*session_hypernode_scores)(scoria_session* ssn, const scoria_job* job,
                                          const uint32_t* hypernodes,
                                          size_t count, double* scores);
  /** The first plugin's on_hypernode_gradient (see it), else `root` alone as
      gradient 0. `hypernodes` and `gradient` are caller-owned arrays of
      `capacity` (at least hypernode_count). Returns the number written. */
  size_t (*session_hypernode_gradient)(scoria_session* ssn, const scoria_job* job,
                                       uint32_t root, uint32_t purpose,
                                       uint32_t* hypernodes, uint32_t* gradient,
                                       size_t capacity);

  /* --- since 1.8 (check SCORIA_HOST_HAS before calling) --------------------- */

  /**
   * The tasks of `ssn` whose scoria_task_info.features share a bit with
   * `features` (SCORIA_TASK_FEATURE_* bits), in task index order, which is
   * the order of a walk over every job's tasks. Writes the first
   * min(count, capacity) of them into `out` (a caller-owned array; NULL when
   * `capacity` is 0) and returns count, so a first call with capacity 0
   * sizes the array. The pointers are host-owned and valid for the session.
   *
   * Why: a plugin that needs the few pods with inter-pod terms or host
   * ports (kube-scheduler's PreFilter state) finds them without asking for
   * the info of every task in the cluster each session. The host keeps the
   * list as it builds the session. Returns 0 if `ssn` is NULL.
   */
  size_t (*session_tasks_with_features)(const scoria_session* ssn, uint32_t features,
                                        const scoria_task** out, size_t capacity);

  /* --- since 1.9 (check SCORIA_HOST_HAS before calling) --------------------- */

  /** Number of sub-jobs of `job` (scoria_sub_job): at least 1 when the job
      has a task; 0 if `job` is NULL. */
  size_t (*job_sub_job_count)(const scoria_job* job);
  /** Sub-job `i` of `job` (0 <= i < job_sub_job_count); NULL if out of
      range. */
  const scoria_sub_job* (*job_sub_job_at)(const scoria_job* job, size_t i);
  /** The sub-job `task` is in; NULL if `task` is NULL. */
  const scoria_sub_job* (*task_sub_job)(const scoria_task* task);
  /** Fills *out (caller sets out->struct_size first). */
  scoria_code (*sub_job_info)(const scoria_sub_job* sub_job, scoria_sub_job_info* out);
  /** Number of tasks of `sub_job`. */
  size_t (*sub_job_task_count)(const scoria_sub_job* sub_job);
  /** Task `i` of `sub_job`, in its job's task order; NULL if out of range. */
  const scoria_task* (*sub_job_task_at)(const scoria_sub_job* sub_job, size_t i);
  /** Number of entries in the job's spec.subGroupPolicy (0 for none). A
      policy may have no sub-job in the session (none of the job's pods
      matched it); gang counts it against its minSubGroups all the same. */
  size_t (*job_sub_group_policy_count)(const scoria_job* job);
  /** Fills *out with entry `i` of the job's spec.subGroupPolicy (caller sets
      out->struct_size first); SCORIA_INVALID_ARGUMENT if out of range. */
  scoria_code (*job_sub_group_policy_at)(const scoria_job* job, size_t i,
                                         scoria_sub_group_policy_info* out);
  /**
   * The sub-job's network topology into *out (caller sets out->struct_size
   * first), prepared as job_network_topology prepares the job's: its
   * policy's networkTopology (mode NONE without one), with a highestTierName
   * read as its tier; a soft one is given as hard up to the job's highest
   * allowed tier (after the job's own soft-to-hard), else the cluster top's
   * tier. The default sub-job has the job's topology. allocated_hypernode is
   * the lowest HyperNode holding the sub-job's placed tasks, then as the
   * allocating action sets it.
   */
  scoria_code (*sub_job_network_topology)(const scoria_sub_job* sub_job,
                                          scoria_network_topology* out);
  /** Sets the sub-job's allocated HyperNode for the rest of the session (as
      session_job_set_allocated_hypernode does the job's); node scoring of
      its tasks reads it. SCORIA_NO_HYPERNODE clears it. */
  scoria_code (*session_sub_job_set_allocated_hypernode)(scoria_session* ssn,
                                                         const scoria_sub_job* sub_job,
                                                         uint32_t hypernode);
  /** 1 if the sub-job is ready: session_job_ready of its job when the job has
      no spec.subGroupPolicy, else every on_sub_job_ready agrees (1 when
      none is registered). */
  int (*session_sub_job_ready)(scoria_session* ssn, const scoria_sub_job* sub_job);
  /** 1 if the sub-job is pipelined: session_job_pipelined of its job when the
      job has no spec.subGroupPolicy, else the on_sub_job_pipelined votes
      (a reject wins; all abstaining means yes). */
  int (*session_sub_job_pipelined)(scoria_session* ssn, const scoria_sub_job* sub_job);
  /** 1 if sub-job `l` goes before `r` (two sub-jobs of one job): the first
      non-zero on_sub_job_order, else the lower match_index, then the lower
      uid. */
  int (*session_sub_job_less)(scoria_session* ssn, const scoria_sub_job* l,
                              const scoria_sub_job* r);
  /** Sum of every plugin's on_sub_job_hypernode_order for `sub_job` over
      `hypernodes` into scores[i] (caller-owned arrays of `count`; 0 where no
      plugin answers). */
  scoria_code (*session_sub_job_hypernode_scores)(scoria_session* ssn,
                                                  const scoria_sub_job* sub_job,
                                                  const uint32_t* hypernodes, size_t count,
                                                  double* scores);
  /** The first plugin's on_sub_job_hypernode_gradient, else `root` alone as
      gradient 0; as session_hypernode_gradient. */
  size_t (*session_sub_job_hypernode_gradient)(scoria_session* ssn,
                                               const scoria_sub_job* sub_job, uint32_t root,
                                               uint32_t purpose, uint32_t* hypernodes,
                                               uint32_t* gradient, size_t capacity);

  /* --- since 1.10 (check SCORIA_HOST_HAS before calling) -------------------- */

  /**
   * Chooses a node for `task` as Volcano's allocate does, in one call:
   * session_predicate_nodes over `candidates` (NULL: every node of the
   * session; else `count` nodes) with the resource check; of the nodes that
   * pass, those where the task fits the idle resources now, else those
   * where it fits only the future idle (idle + releasing - pipelined); of
   * that group, session_node_scores and session_best_node (a group of one
   * node is chosen without scoring). With a soft node shard each group is
   * split in two, the shard's nodes first (Volcano's allocate). Writes *out (caller sets
   * out->struct_size first); out->node is NULL when no node passed.
   *
   * The answer, the task's fit errors and the search rotation are what
   * those calls in turn would give. For a task whose plugins all declared
   * their predicates and scores cacheable (on_cache_policy), with no
   * on_best_node and no candidates given, the host answers from an index
   * of the task's equivalence class kept current as nodes change: a task
   * then costs O(log nodes) instead of a pass over the sampled nodes.
   */
  scoria_code (*session_select_node)(scoria_session* ssn, const scoria_task* task,
                                     const scoria_node* const* candidates, size_t count,
                                     scoria_node_choice* out);

  /* --- since 1.11 (check SCORIA_HOST_HAS before calling) -------------------- */

  /**
   * Fills out[i] with the sums over the jobs of queue index i as they stand
   * now (scoria_queue_job_sums), for i < count; count is at most
   * queue_count and the caller sets each out[i].struct_size. The host adds
   * them up in one pass over its own records: a plugin that needs them at
   * session open calls this instead of reading every job through job_info.
   * SCORIA_INVALID_ARGUMENT if count exceeds queue_count or a struct_size
   * is too small for the 1.11 fields.
   */
  scoria_code (*session_queue_job_sums)(scoria_session* ssn, scoria_queue_job_sums* out,
                                        size_t count);
  /**
   * The session's jobs that match any bit of `which` (SCORIA_JOBS_*), as they
   * stand now, in job order (ascending index), with their number in *count:
   * an array that belongs to the host, valid until the next
   * session_jobs_where call or the session's close. An action that works on
   * some jobs only (those with Pending tasks, those still Pending) asks for
   * them instead of walking every job through job_info. Never NULL; *count
   * is 0 when none match.
   */
  const scoria_job* const* (*session_jobs_where)(scoria_session* ssn, uint32_t which,
                                                 size_t* count);

  /* --- since 1.12 (check SCORIA_HOST_HAS before calling) -------------------- */

  /**
   * kube-scheduler's volume checks for `task` on `node`, as its volume
   * plugins make them (Volcano's predicates plugin runs the same): the
   * SCORIA_VOLUME_* bits of `checks` say which. The host holds the
   * PersistentVolumes, claims, StorageClasses, CSINodes, CSIDrivers and
   * CSIStorageCapacities of every source, and what this session's
   * placements took: a volume given to one claim is not offered to
   * another, and is offered again when the placement is undone.
   *
   * Returns SCORIA_OK (always, quickly, for a task without
   * SCORIA_TASK_FEATURE_VOLUMES or with `checks` 0); else
   * SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE or SCORIA_UNSCHEDULABLE (a
   * ReadWriteOncePod claim in use, the attach limit: preemption may help)
   * with *reason an interned reason id in kube-scheduler's words ("node(s)
   * had volume node affinity conflict", "persistentvolumeclaim \"x\" not
   * found", ...). A rejection that holds on every node (a claim missing,
   * unbound Immediate claims) is reported as kube-scheduler reports a
   * PreFilter rejection: "0/N nodes are available: <reason>.".
   * SCORIA_INVALID_ARGUMENT if an argument is NULL.
   *
   * Thread-safe as predicates are: call it from on_predicate or
   * on_predicate_batch. On a 1.12 host a plugin calling it for a task should
   * not declare that task's predicates cacheable (on_cache_policy): its
   * answers depend on the task's own claims. From 1.13 it may (see
   * SCORIA_CACHE_CLAIMS).
   *
   * When a task is placed, the host gives each of its claims waiting for a
   * first consumer the smallest volume that fits on the node, or marks it
   * for provisioning there; when the task is bound those are written
   * before the pod's binding (a volume's claimRef, or the claim's
   * volume.kubernetes.io/selected-node annotation), and a pod whose volume
   * writes fail is not bound.
   */
  scoria_code (*session_volume_check)(const scoria_session* ssn, const scoria_task* task,
                                      const scoria_node* node, uint32_t checks,
                                      uint32_t* reason);

  /* --- since 1.14 (check SCORIA_HOST_HAS before calling) -------------------- */

  /**
   * What the ResourceClaims of `task` ask of each DeviceClass
   * (scoria_device_demand), in the order of the pod's spec.resourceClaims,
   * with their number in *count: an array the host owns, valid until the
   * session's close, made on the first call for the task. Never NULL;
   * *count is 0 for a task without SCORIA_TASK_FEATURE_DEVICE_CLAIMS, and
   * a claim that does not exist yet (one a resource-claim controller has
   * still to make from its template) adds nothing.
   *
   * Why: queue quota by device class (Volcano's capacity with
   * capacity.DynamicResourceAllocationEnable) charges a queue for the
   * devices its tasks' claims ask for, a shared claim once. The host has
   * the claims of every source and resolves a template's claim; a plugin
   * would otherwise have to read and resolve them from JSON itself.
   * Call it from the session's thread (not from predicate workers).
   */
  const scoria_device_demand* (*session_task_device_demands)(const scoria_session* ssn,
                                                             const scoria_task* task,
                                                             size_t* count);

  /* --- since 1.15 (check SCORIA_HOST_HAS before calling) -------------------- */

  /**
   * Records the real capability of `queue` in this session: the most its
   * jobs may hold, as a fair-share plugin settled it (Volcano's capacity:
   * the cluster, or the parent queue's real capability, less the other
   * queues' guarantees, plus the queue's own guarantee, capped by its
   * capability). `real_capability` holds one value per dimension
   * (resource_dim_count), each finite and >= 0 or +infinity for no limit;
   * the host copies it during the call and keeps no pointer. The last call
   * for a queue in a session wins.
   *
   * The host shows it, it decides nothing: as Volcano's
   * volcano_queue_real_capacity_* metrics (milli-cpu, bytes, and the
   * extended resources by name) once the session closes. A queue no plugin
   * reported in a session keeps the values last shown, as Volcano's
   * gauges keep theirs in a session its capacity plugin does not record.
   *
   * Returns SCORIA_OK; SCORIA_INVALID_ARGUMENT (nothing recorded) when an
   * argument is NULL, `queue` is not of `ssn`, or a value is negative or
   * NaN; SCORIA_ERROR, with the reason in the host's log, if the host
   * failed. Call it from the session's thread, in or after on_session_open
   * and no later than on_session_close.
   *
   * Why: the host owns the metrics registry and a plugin sees only the
   * SDK; the real capability is the plugin's to compute.
   */
  scoria_code (*session_queue_set_real_capability)(scoria_session* ssn, const scoria_queue* queue,
                                                   const double* real_capability);

  /* --- since 1.16 (check SCORIA_HOST_HAS before calling) -------------------- */

  /**
   * Lifts Volcano's queue-admission gate from `task`'s pod once the
   * session closes (Volcano's SchGateManager.Enqueue, which its allocate
   * calls when a gated task passes session_allocatable). The host removes
   * `scheduling.volcano.sh/queue-allocation-gate` from spec.schedulingGates:
   * a strategic-merge patch of the pod on a Kubernetes cluster, an update of
   * the stored pod in the local store, the pod itself in `simulate`. The pod
   * stays gated for the rest of this session (do not place it); the next
   * session sees it without the gate, once the source has it. A removal the
   * server refuses is logged and the pod keeps its gate: a later session
   * asks again.
   *
   * Returns SCORIA_OK when the removal is recorded (a second call for the
   * same task in a session records nothing more); SCORIA_SKIP, recording
   * nothing, when the task's queue_gate lacks SCORIA_TASK_QUEUE_GATE_ONLY
   * (the pod has other gates or none, or the host runs without
   * SchedulingGatesQueueAdmission), as Volcano's Enqueue declines;
   * SCORIA_INVALID_ARGUMENT when an argument is NULL or `task` is not of
   * `ssn`; SCORIA_ERROR, with the reason in the host's log, if the host
   * failed. Call it from the session's thread, during an action.
   *
   * Why: only the host writes to the cluster, and Volcano lifts the gate
   * from its scheduler, not from a controller.
   */
  scoria_code (*session_lift_queue_gate)(scoria_session* ssn, const scoria_task* task);

  /**
   * The nodes' allocatable and used resources, each added up over every
   * node of the session in node order from zero: to the bit what a plugin
   * gets adding node_info's `allocatable` and `used` node by node (Volcano's
   * ssn.TotalResource, and the Used its overcommit adds up). Writes
   * session_dims values into each of `allocatable` and `used` (caller's
   * arrays; either may be NULL). `used` is as tasks stand at the call.
   *
   * Returns SCORIA_OK; SCORIA_INVALID_ARGUMENT when `ssn` is NULL.
   *
   * Why: drf, proportion, capacity and overcommit each add up every node
   * when a session opens, a call or two per node through this table; the
   * host adds them up from its own records. Since 1.16.
   */
  scoria_code (*session_node_totals)(scoria_session* ssn, double* allocatable, double* used);
} scoria_host_api;

/** 1 if the host table `api` is large enough to contain `field`. */
#define SCORIA_HOST_HAS(api, field)                                          \
  ((api)->struct_size >= offsetof(scoria_host_api, field) + sizeof((api)->field))

/* ------------------------------------------------------------------------ */
/* The descriptor a plugin returns                                            */
/* ------------------------------------------------------------------------ */

/** Descriptor flag: call this plugin's hooks from one thread only. */
#define SCORIA_FLAG_SERIAL_HOOKS 0x1u
/** Descriptor flag (1.2): `args` and `arg_count` list every argument the
    plugin takes. The host then refuses a config that gives it any other
    argument, or one of the wrong type or outside its range, and fills in
    declared defaults; without the flag arguments are passed unchecked. */
#define SCORIA_FLAG_DECLARES_ARGS 0x2u

/* ------------------------------------------------------------------------ */
/* Declared arguments (1.2)                                                   */
/* ------------------------------------------------------------------------ */

/**
 * The type of a declared argument, which is also the form the host accepts
 * for it in a config (`scoria plugins --describe NAME` prints them).
 */
typedef enum scoria_arg_type {
  /** true or false (also True, TRUE, False, FALSE). Read with args_get_bool. */
  SCORIA_ARG_BOOL = 1,
  /** A whole number in int64 range. Read with args_get_int. */
  SCORIA_ARG_INT = 2,
  /** A finite number, whole or not. Read with args_get_float. */
  SCORIA_ARG_FLOAT = 3,
  /** Any text. Read with args_get_string. */
  SCORIA_ARG_STRING = 4,
  /** A Kubernetes quantity: 500m, 2, 1.5Gi, 4k. Read with args_get_string;
      bounds apply to its plain value (500m is 0.5). */
  SCORIA_ARG_QUANTITY = 5,
  /** A duration in Go's spelling: 500ms, 30s, 5m, 1h30m. Read with
      args_get_string; bounds apply to it in seconds. */
  SCORIA_ARG_DURATION = 6,
  /** A list: written as a YAML or TOML list, it arrives flattened as
      NAME.0, NAME.1, ... (items that are maps as NAME.0.KEY ...); written as
      text, its items are separated by commas. `allowed` applies to each
      scalar item. */
  SCORIA_ARG_LIST = 7,
  /** A map with keys of the user's choosing: arrives flattened as NAME.KEY
      (and deeper). Its contents are not checked. */
  SCORIA_ARG_MAP = 8
} scoria_arg_type;

/** scoria_arg_spec.bounds: `min` applies. */
#define SCORIA_ARG_HAS_MIN 0x1u
/** scoria_arg_spec.bounds: `max` applies. */
#define SCORIA_ARG_HAS_MAX 0x2u

/**
 * One argument a plugin takes, as Volcano's plugin `arguments` map names it.
 * Owned by the plugin and valid while it is loaded (a static array is the
 * usual choice). Every element of a descriptor's `args` array has the same
 * struct_size, and the host steps through the array by it.
 *
 * `name` is the key as a config writes it, e.g. "binpack.weight". A name
 * ending in ".*" declares a family: "binpack.resources.*" accepts
 * "binpack.resources.nvidia.com/gpu" and any other key with that prefix and
 * at least one character after it, each of the declared type.
 *
 * When the config leaves out an argument that has a `default_value`, the
 * host passes the default, so the getters return it: the declaration is the
 * one place the default lives. A NULL default means "absent" has a meaning
 * of its own (see `help`), and the getters return SCORIA_NOT_FOUND.
 */
typedef struct scoria_arg_spec {
  uint32_t struct_size;      /**< sizeof(scoria_arg_spec) as the plugin saw it */
  uint32_t type;             /**< scoria_arg_type */
  const char* name;          /**< key in the config, NUL-terminated */
  const char* default_value; /**< as a config would write it, or NULL */
  const char* help;          /**< one line: what it does, in the plugin's terms */
  /** The values accepted (STRING, and LIST items), a NULL-terminated array;
      NULL for any value. Compared exactly. */
  const char* const* allowed;
  uint32_t bounds;           /**< SCORIA_ARG_HAS_MIN | SCORIA_ARG_HAS_MAX */
  uint32_t reserved0;        /**< zero */
  double min;                /**< inclusive lower bound (INT, FLOAT, QUANTITY,
                                  DURATION in seconds) when HAS_MIN */
  double max;                /**< inclusive upper bound when HAS_MAX */
} scoria_arg_spec;

/**
 * What a shared object is and what it implements. Returned by
 * scoria_plugin_entry; owned by the plugin and valid while it is loaded
 * (a static object is the usual choice).
 *
 * Lifecycle:
 *   on_create       once per configured use (each config load), with the
 *                   plugin's arguments; returns the instance in *instance.
 *   on_session_open (plugins) every session: fill `hooks`.
 *   on_execute      (actions) every session, in configured order.
 *   on_session_close (plugins) every session, after the actions.
 *   on_destroy      when the config that created it is replaced or the
 *                   host stops. The host keeps the library loaded until the
 *                   last instance it created is destroyed.
 */
typedef struct scoria_descriptor {
  uint32_t struct_size; /**< sizeof(scoria_descriptor) as the plugin saw it */
  uint16_t abi_major;   /**< SCORIA_ABI_VERSION_MAJOR the plugin was built with */
  uint16_t abi_minor;   /**< SCORIA_ABI_VERSION_MINOR the plugin was built with */
  const char* name;     /**< unique name used in configs, NUL-terminated */
  uint32_t kind;        /**< scoria_kind */
  uint32_t flags;       /**< SCORIA_FLAG_* */
  const char* version;  /**< the plugin's own version, e.g. "1.2.0" */
  const char* description; /**< one line for `scoria plugins` */

  /** Creates an instance. On failure, write a message into `error`
      (host-owned, `error_capacity` bytes, NUL-terminate it) and return
      anything but SCORIA_OK. May be NULL (instance is then NULL). */
  scoria_code (*on_create)(const scoria_plugin_ctx* ctx, const scoria_args* args,
                           void** instance, char* error, size_t error_capacity);
  /** Destroys an instance created by on_create. May be NULL. */
  void (*on_destroy)(void* instance);

  /** Plugins: register hooks for this session into `hooks`. */
  scoria_code (*on_session_open)(void* instance, scoria_session* ssn,
                                 scoria_hooks* hooks);
  /** Plugins: the session is closing (write status, free per-session data). */
  void (*on_session_close)(void* instance, scoria_session* ssn);

  /** Actions: run once in this session. */
  scoria_code (*on_execute)(void* instance, scoria_session* ssn);

  /* --- since 1.2 ----------------------------------------------------------- */

  /** The arguments the plugin takes: `arg_count` specs, owned by the plugin,
      valid while it is loaded. Read only when `flags` has
      SCORIA_FLAG_DECLARES_ARGS (a plugin taking no arguments sets the flag
      with arg_count 0). Plugins built for 1.0 and 1.1 have no such field
      and are not checked. */
  const scoria_arg_spec* args;
  size_t arg_count;
} scoria_descriptor;

/**
 * The entry point every plugin exports (SCORIA_ENTRY_SYMBOL), as a function
 * so that the host can check versions before trusting any data.
 *
 * `host_major` / `host_minor`: the host's ABI version. `host`: the service
 * table (owned by the host, valid while loaded). `ctx`: identifies this
 * shared object in host calls. Return the descriptor, or NULL to refuse
 * loading (log why through host->log first).
 */
typedef const scoria_descriptor* (*scoria_entry_fn)(uint32_t host_major,
                                                     uint32_t host_minor,
                                                     const scoria_host_api* host,
                                                     const scoria_plugin_ctx* ctx);

/** The entry point's prototype, so that a compiler checks a plugin's
    definition against it (C and C++ alike). */
SCORIA_EXPORT const scoria_descriptor* scoria_plugin_entry(uint32_t host_major,
                                                           uint32_t host_minor,
                                                           const scoria_host_api* host,
                                                           const scoria_plugin_ctx* ctx);

/**
 * Defines scoria_plugin_entry for a plugin written in C: it refuses a host
 * of another major version, keeps the host table and context in the two
 * variables named (declare them `static const scoria_host_api* api;` and
 * `static const scoria_plugin_ctx* ctx;` before), and returns `descriptor`
 * (a static scoria_descriptor). C++ plugins use SCORIA_DEFINE_PLUGIN from
 * scoria.hpp instead.
 *
 *   static const scoria_host_api* api;
 *   static const scoria_plugin_ctx* ctx;
 *   static const scoria_descriptor descriptor = { ... };
 *   SCORIA_DEFINE_PLUGIN_C(descriptor, api, ctx)
 */
#define SCORIA_DEFINE_PLUGIN_C(descriptor, api_var, ctx_var)                          \
  SCORIA_EXPORT const scoria_descriptor* scoria_plugin_entry(                         \
      uint32_t scoria_host_major_, uint32_t scoria_host_minor_,                       \
      const scoria_host_api* scoria_host_api_, const scoria_plugin_ctx* scoria_ctx_) { \
    (void)scoria_host_minor_;                                                         \
    if (scoria_host_major_ != SCORIA_ABI_VERSION_MAJOR || scoria_host_api_ == NULL)   \
      return NULL;                                                                    \
    (api_var) = scoria_host_api_;                                                     \
    (ctx_var) = scoria_ctx_;                                                          \
    return &(descriptor);                                                             \
  }

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SCORIA_SCORIA_H */
