// Kubernetes- and Volcano-shaped objects as the host holds them after
// parsing (DESIGN.md section 4). Immutable once parsed: sessions point at
// them instead of copying them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/numatopology.h"

namespace scoria::model {

/// Resource amounts by Kubernetes name, already in Scoria's units:
/// cpu in millicores, memory in bytes, pods as a count, every other
/// (extended) resource in milli-units (1 GPU = 1000), as Volcano counts.
using ResourceList = std::vector<std::pair<std::string, double>>;

enum class TaintEffect : uint32_t { NoSchedule = 1, PreferNoSchedule = 2, NoExecute = 3 };

/// Values match scoria_selector_op in the SDK.
enum class SelectorOp : uint32_t {
  In = 1,
  NotIn = 2,
  Exists = 3,
  DoesNotExist = 4,
  Gt = 5,
  Lt = 6,
  Equal = 7
};

struct Taint {
  std::string key;
  std::string value;
  TaintEffect effect = TaintEffect::NoSchedule;
};

struct Toleration {
  std::string key;  // empty with Exists: tolerates everything
  std::string value;
  SelectorOp op = SelectorOp::Equal;  // Equal or Exists
  uint32_t effect = 0;                // TaintEffect value, 0 = all effects
};

struct SelectorRequirement {
  std::string key;
  SelectorOp op = SelectorOp::In;
  std::vector<std::string> values;
  bool is_field = false;  // matchFields rather than matchExpressions
};

/// A metav1.LabelSelector: matchLabels and matchExpressions (In, NotIn,
/// Exists, DoesNotExist), all of which a pod's labels must meet.
struct LabelSelector {
  std::map<std::string, std::string> match_labels;
  std::vector<SelectorRequirement> match_expressions;

  bool empty() const { return match_labels.empty() && match_expressions.empty(); }
};

/// A node selector term; `weight` is set for preferred terms only.
struct NodeSelectorTerm {
  std::vector<SelectorRequirement> requirements;
  int32_t weight = 0;
};

struct Node {
  std::string name;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::vector<Taint> taints;
  bool unschedulable = false;
  bool ready = true;  // condition Ready=True (absent: true)
  ResourceList allocatable;
};

enum class PodPhase { Pending, Running, Succeeded, Failed, Unknown };

/// The phase as Kubernetes writes it in a pod's status.phase.
constexpr const char* phase_name(PodPhase p) {
  switch (p) {
    case PodPhase::Pending:
      return "Pending";
    case PodPhase::Running:
      return "Running";
    case PodPhase::Succeeded:
      return "Succeeded";
    case PodPhase::Failed:
      return "Failed";
    case PodPhase::Unknown:
      break;
  }
  return "Unknown";
}

/// One claim a pod's volumes name: `spec.volumes[].persistentVolumeClaim`,
/// or a generic ephemeral volume, whose claim is POD-VOLUME and must be
/// owned by the pod (model/storage.h holds the storage kinds).
struct PodClaim {
  std::string name;  // the claim's name, in the pod's namespace
  bool ephemeral = false;
};

/// One entry of a pod's `spec.resourceClaims` (Dynamic Resource
/// Allocation): the ResourceClaim it names, or the ResourceClaimTemplate a
/// claim is made from for the pod.
struct DeviceClaimRef {
  std::string name;       // the entry's name, which containers' resources.claims use
  std::string claim;      // resourceClaimName; empty when made from a template
  std::string template_;  // resourceClaimTemplateName
  /// For a template: the claim made for the pod, as the resource-claim
  /// controller records it in status.resourceClaimStatuses; empty if none.
  std::string made;
};

/// Parts of a pod's spec that only some plugins read; bit values match
/// SCORIA_TASK_FEATURE_* in the SDK.
enum PodFeature : uint32_t {
  kPodAffinity = 0x1,
  kPodAntiAffinity = 0x2,
  kPreferredPodAffinity = 0x4,
  kTopologySpread = 0x8,
  kHostPorts = 0x10,
  kVolumes = 0x20,         // names PersistentVolumeClaims (Pod::claims)
  kDeviceClaims = 0x40,    // spec.resourceClaims (Pod::device_claims)
  kQueueGateOptIn = 0x80,  // opts in to the queue-admission gate (QueueGate)
};

/// Volcano's queue-admission gate (SchedulingGatesQueueAdmission): the
/// scheduling gate its webhook adds, and the annotation ("true") a pod opts
/// in with.
inline constexpr std::string_view kQueueAllocationGate =
    "scheduling.volcano.sh/queue-allocation-gate";

/// What a pod carries of that gate; bit values match
/// SCORIA_TASK_QUEUE_GATE_* in the SDK.
enum QueueGate : uint8_t {
  kOnlyQueueGate = 0x1,       // spec.schedulingGates is that gate alone
  kQueueGateAnnotated = 0x2,  // the annotation is "true"
};

struct Pod {
  std::string namespace_;
  std::string name;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  // Annotation scheduling.k8s.io/group-name (a Volcano PodGroup), or
  // spec.schedulingGroup.podGroupName (a scheduling.k8s.io one: native_group).
  std::string group_name;
  bool native_group = false;
  std::string scheduler_name;  // spec.schedulerName
  std::string node_name;       // spec.nodeName
  ResourceList requests;       // sum over containers
  ResourceList init_requests;  // max(sum containers, each init container)
  std::map<std::string, std::string> node_selector;
  std::vector<NodeSelectorTerm> required_affinity;
  std::vector<NodeSelectorTerm> preferred_affinity;
  std::vector<Toleration> tolerations;
  std::string priority_class_name;
  std::optional<int32_t> priority;  // spec.priority when given
  bool preempt_never = false;       // preemptionPolicy: Never
  PodPhase phase = PodPhase::Pending;
  bool deleting = false;                      // metadata.deletionTimestamp set
  bool preemptable = true;                    // volcano.sh/preemptable
  std::string role;                           // volcano.sh/task-spec
  int64_t creation_ms = 0;                    // metadata.creationTimestamp
  uint32_t features = 0;                      // PodFeature bits
  bool scheduling_gated = false;              // spec.schedulingGates not empty
  uint8_t queue_gate = 0;                     // QueueGate bits
  std::string nominated_node;                 // status.nominatedNodeName
  std::vector<PodClaim> claims;               // PersistentVolumeClaims its volumes name
  std::vector<DeviceClaimRef> device_claims;  // spec.resourceClaims
  // lastTransitionTime of status.conditions PodScheduled=True (when it was
  // bound); 0 if it has none.
  int64_t scheduled_ms = 0;
  std::string uid;   // metadata.uid (events name it)
  std::string json;  // the whole object as JSON

  std::string key() const { return namespace_ + "/" + name; }
};

enum class PodGroupPhase { Pending, Inqueue, Running, Unknown, Completed };

/// The phase as Volcano writes it in status.phase.
constexpr const char* phase_name(PodGroupPhase p) {
  switch (p) {
    case PodGroupPhase::Pending:
      return "Pending";
    case PodGroupPhase::Inqueue:
      return "Inqueue";
    case PodGroupPhase::Running:
      return "Running";
    case PodGroupPhase::Unknown:
      return "Unknown";
    case PodGroupPhase::Completed:
      return "Completed";
  }
  return "Unknown";
}

/// A PodGroup's spec.networkTopology (Volcano's NetworkTopologySpec).
struct NetworkTopology {
  enum class Mode : uint8_t { Hard = 1, Soft = 2 };

  Mode mode = Mode::Hard;
  std::optional<int32_t> highest_tier_allowed;
  std::string highest_tier_name;  // translated by the session via spec.tierName
};

/// One entry of a PodGroup's spec.subGroupPolicy (Volcano's
/// SubGroupPolicySpec): the pods its selector takes, grouped by the values
/// of matchLabelKeys, form sub-jobs of subGroupSize; minSubGroups of them
/// must be ready for the job to be.
struct SubGroupPolicy {
  std::string name;
  int32_t sub_group_size = 1;  // at least 1 (the CRD's default and minimum)
  int32_t min_sub_groups = 0;
  std::optional<LabelSelector> selector;  // absent: every pod
  std::vector<std::string> match_label_keys;
  std::optional<NetworkTopology> network_topology;
};

struct PodGroup {
  std::string namespace_;
  std::string name;
  std::map<std::string, std::string> annotations;
  int32_t min_member = 1;
  std::map<std::string, int32_t> min_task_member;
  ResourceList min_resources;
  bool has_min_resources = false;
  std::string queue = "default";
  std::string priority_class_name;
  PodGroupPhase phase = PodGroupPhase::Pending;
  // volcano.sh/preemptable (annotation, else label); false when unset, as
  // Volcano's JobInfo reads a PodGroup.
  bool preemptable = false;
  bool implicit = false;  // made up for a pod without a group
  int64_t creation_ms = 0;
  std::string uid;  // metadata.uid (events name it)
  // status.conditions: the message of Unschedulable=True, as the scheduler
  // last wrote it (so that a restarted one does not write it again).
  std::string unschedulable;
  std::optional<NetworkTopology> network_topology;  // spec.networkTopology
  // spec.subGroupPolicy (Volcano HEAD's sub-jobs), in their order: the
  // session forms sub-jobs from them (session/sub_jobs.h).
  std::vector<SubGroupPolicy> sub_group_policy;
  // Kubernetes' own PodGroup (scheduling.k8s.io, KEP-4671) rather than
  // Volcano's: min_member is its gang's minCount (1 for basic), its queue
  // the annotation scheduling.volcano.sh/queue-name.
  bool native = false;
  std::optional<int32_t> priority;  // spec.priority (native), over the class's
  bool disrupt_whole = false;       // spec.disruptionMode all: preempted whole

  std::string key() const { return namespace_ + "/" + name; }
};

struct Queue {
  std::string name;
  std::map<std::string, std::string> annotations;
  int32_t weight = 1;
  int32_t priority = 0;
  std::string parent;
  ResourceList capability;  // absent dimension: unlimited
  ResourceList deserved;
  ResourceList guarantee;
  bool reclaimable = true;
  bool open = true;  // status.state Open (or unset)
  int64_t creation_ms = 0;
  std::string json;  // the whole object as JSON (spec.affinity is read from it)
};

struct PriorityClass {
  std::string name;
  int32_t value = 0;
  bool global_default = false;
};

/// A Namespace: only its labels matter, to pod affinity terms'
/// namespaceSelector.
struct Namespace {
  std::string name;
  std::map<std::string, std::string> labels;
};

/// An IntOrString that counts pods: a number, or a percentage ("50%").
struct IntOrPercent {
  int32_t value = 0;
  bool percent = false;
};

/// policy/v1 PodDisruptionBudget. The scheduler hands plugins its JSON
/// (`json`); the fields are what the decoder checked, for the host's own
/// readers.
struct PodDisruptionBudget {
  std::string namespace_;
  std::string name;
  std::optional<LabelSelector> selector;  // absent or empty: selects no pod
  std::optional<IntOrPercent> min_available;
  std::optional<IntOrPercent> max_unavailable;
  // Status, as Kubernetes' disruption controller writes it; has_status
  // when it wrote status.disruptionsAllowed (files and the local store
  // have no such controller).
  bool has_status = false;
  int32_t disruptions_allowed = 0;
  int32_t current_healthy = 0;
  int32_t desired_healthy = 0;
  int32_t expected_pods = 0;
  // Pods evicted through the API and not yet gone: name -> when, ms since
  // the epoch.
  std::map<std::string, int64_t> disrupted_pods;
  std::string json;  // the whole object as JSON

  std::string key() const { return namespace_ + "/" + name; }
};

/// v1 ResourceQuota. Amounts are in Scoria's units by their names, as every
/// ResourceList (requests.cpu in millicores, count/pods in milli-units).
struct ResourceQuota {
  std::string namespace_;
  std::string name;
  ResourceList hard;         // spec.hard
  ResourceList status_hard;  // status.hard, as the quota controller copies it
  ResourceList used;         // status.used
  std::string json;          // the whole object as JSON

  std::string key() const { return namespace_ + "/" + name; }
};

/// topology.volcano.sh/v1alpha1 HyperNode: a tier of the network and its
/// members (nodes, or HyperNodes one tier down), each chosen by exact name,
/// by a regular expression over node names or by node labels. The session
/// resolves the members (session/hyper_nodes.h).
struct HyperNodeMember {
  enum class Type : uint8_t { Node, HyperNode };
  enum class Match : uint8_t { Exact, Regex, Label };
  Type type = Type::Node;
  Match match = Match::Exact;
  std::string name;      // exactMatch.name
  std::string pattern;   // regexMatch.pattern (checked to compile)
  LabelSelector labels;  // labelMatch
};

struct HyperNode {
  std::string name;
  int32_t tier = 0;
  std::string tier_name;
  std::vector<HyperNodeMember> members;
  std::string json;  // the whole object as JSON

  const std::string& key() const { return name; }
};

}  // namespace scoria::model
