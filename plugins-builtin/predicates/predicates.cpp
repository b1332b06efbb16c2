// The predicates plugin: may a task run on a node, leaving resources aside
// (the host's resource check does those)? Follows Volcano's predicates plugin
// and the kube-scheduler filters it runs, with kube-scheduler's reason texts:
// node readiness, cordoned nodes, node selector and required node affinity,
// taints, the node's pod limit, host ports, topology spread constraints
// (DoNotSchedule) and required inter-pod affinity and anti-affinity.
//
// Hooks may run concurrently for different nodes, so they only read: the
// instance's switches are immutable after on_create, its per-session pod
// terms are written at session open before any hook runs, the pods evicted
// in the session are written by the allocate and deallocate events (on the
// session thread, between predicate calls), and everything a call derives
// from the task lives on that call's stack.
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "evicted_pods.h"
#include "node_selection.h"
#include "pod_rules.h"
#include "pod_terms.h"
#include "toleration.h"

namespace {

using scoria::api;
using scoria::view;

// Volcano's argument keys for the checks this plugin implements.
constexpr const char* kNodeAffinityEnable = "predicate.NodeAffinityEnable";
constexpr const char* kTaintTolerationEnable = "predicate.TaintTolerationEnable";
constexpr const char* kNodePortsEnable = "predicate.NodePortsEnable";
constexpr const char* kPodAffinityEnable = "predicate.PodAffinityEnable";
constexpr const char* kPodTopologySpreadEnable = "predicate.PodTopologySpreadEnable";
constexpr const char* kVolumeBindingEnable = "predicate.VolumeBindingEnable";
constexpr const char* kVolumeZoneEnable = "predicate.VolumeZoneEnable";
constexpr const char* kNodeVolumeLimitsEnable = "predicate.NodeVolumeLimitsEnable";

// Every argument Volcano's predicates plugin reads (predicates.go, helper.go),
// with Volcano's defaults. The host refuses any other argument, or a value of
// the wrong type, and passes the default of one left out. The switches and
// settings of filters Scoria does not have (dynamic resource allocation,
// Volcano's predicate cache, the volume binding's timeout and score) are
// accepted so that Volcano configs load, and say that they do nothing.
constexpr scoria_arg_spec kArgs[] = {
    scoria::declare_arg(SCORIA_ARG_BOOL, kNodeAffinityEnable, "true",
                        "check the pod's nodeSelector and required node affinity"),
    scoria::declare_arg(SCORIA_ARG_BOOL, kNodePortsEnable, "true",
                        "check that the host ports the pod asks for are free on the node"),
    scoria::declare_arg(SCORIA_ARG_BOOL, kTaintTolerationEnable, "true",
                        "keep the pod off nodes with NoSchedule or NoExecute taints it does "
                        "not tolerate"),
    scoria::declare_arg(SCORIA_ARG_BOOL, kPodAffinityEnable, "true",
                        "check required inter-pod affinity and anti-affinity, the pod's and "
                        "the running pods'"),
    scoria::declare_arg(SCORIA_ARG_BOOL, kPodTopologySpreadEnable, "true",
                        "check topology spread constraints with whenUnsatisfiable "
                        "DoNotSchedule"),
    scoria::declare_arg(SCORIA_ARG_BOOL, kNodeVolumeLimitsEnable, "true",
                        "check each CSI driver's attach limit on the node (CSINode "
                        "allocatable.count), counting the volumes of the pods already there"),
    scoria::declare_arg(SCORIA_ARG_BOOL, kVolumeZoneEnable, "true",
                        "check that the zone and region labels of the pod's bound volumes "
                        "match the node's"),
    scoria::declare_arg(SCORIA_ARG_BOOL, kVolumeBindingEnable, "true",
                        "check the pod's PersistentVolumeClaims: they exist, bound ones' "
                        "volumes allow the node, unbound WaitForFirstConsumer ones find a "
                        "volume or can be provisioned there; ReadWriteOncePod claims in use "
                        "refuse the pod"),
    scoria::declare_arg(SCORIA_ARG_BOOL, "predicate.DynamicResourceAllocationEnable", "true",
                        "accepted for Volcano configs (Volcano itself follows its "
                        "DynamicResourceAllocation feature gate); Scoria has no dynamic "
                        "resource allocation: no effect"),
    scoria::declare_arg(SCORIA_ARG_BOOL, "predicate.CacheEnable", "false",
                        "accepted for Volcano configs; Scoria keeps no cache of predicate "
                        "results: no effect"),
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_INT, "volumebinding.bindTimeoutSeconds", "600",
                                         "accepted for Volcano configs; Scoria writes a pod's "
                                         "volumes before its binding and does not wait for "
                                         "them: no effect"),
                     0),
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_INT, "volumebinding.weight", "1",
                                         "accepted for Volcano configs; Scoria does not score "
                                         "volume binding: no effect"),
                     0),
    scoria::declare_arg(SCORIA_ARG_LIST, "volumebinding.shape", nullptr,
                        "accepted for Volcano configs (utilization and score points); Scoria "
                        "does not score volume binding: no effect"),
    scoria::with_min(
        scoria::declare_arg(SCORIA_ARG_INT, "dynamicresources.filterTimeoutSeconds", "10",
                            "accepted for Volcano configs; Scoria has no dynamic "
                            "resource allocation: no effect"),
        0),
};

// Reason texts as kube-scheduler words them, so that the fit-error histogram
// reads as users know it. The taint reason leaves out the taint itself so that
// nodes with different taints count as one reason.
constexpr std::string_view kReasonNotReady = "node(s) were not ready";
constexpr std::string_view kReasonUnschedulable = "node(s) were unschedulable";
constexpr std::string_view kReasonNodeAffinity =
    "node(s) didn't match Pod's node affinity/selector";
constexpr std::string_view kReasonTaint = "node(s) had untolerated taint";
constexpr std::string_view kReasonTooManyPods = "Too many pods";
constexpr std::string_view kReasonAffinity = "node(s) didn't match pod affinity rules";
constexpr std::string_view kReasonAntiAffinity = "node(s) didn't match pod anti-affinity rules";
constexpr std::string_view kReasonExistingAntiAffinity =
    "node(s) didn't satisfy existing pods anti-affinity rules";
constexpr std::string_view kReasonSpread = "node(s) didn't match pod topology spread constraints";
constexpr std::string_view kReasonSpreadLabel =
    "node(s) didn't match pod topology spread constraints (missing required label)";
constexpr std::string_view kReasonVolumesUnchecked =
    "node(s) could not be checked for the pod's volumes (the host predates ABI 1.12)";
constexpr std::string_view kReasonPorts =
    "node(s) didn't have free ports for the requested pod ports";

// The taint a cordoned node is treated as having (kube-scheduler's
// NodeUnschedulable filter): a pod that tolerates it may still go there.
constexpr std::string_view kUnschedulableTaintKey = "node.kubernetes.io/unschedulable";

// Reason ids, interned once per instance.
struct Reasons {
  uint32_t not_ready = 0;
  uint32_t unschedulable = 0;
  uint32_t node_affinity = 0;
  uint32_t taint = 0;
  uint32_t too_many_pods = 0;
  uint32_t volumes_unchecked = 0;
};

// A switch. The host has checked it is a boolean and passes the declared
// default when the config leaves it out; the fallback is for a host that
// passes no arguments at all.
bool read_switch(const scoria_args* args, std::string_view key) {
  return args == nullptr || scoria::arg_bool(args, key, true);
}

uint32_t intern(std::string_view reason) { return api().reason_intern(scoria::str(reason)); }

// Switches and reasons built by on_create; the pod terms of the session set
// at session open. Hooks on several threads only read it.
struct Instance {
  explicit Instance(const scoria_args* args)
      : node_affinity(read_switch(args, kNodeAffinityEnable)),
        taint_toleration(read_switch(args, kTaintTolerationEnable)),
        volume_checks((read_switch(args, kVolumeBindingEnable)
                           ? SCORIA_VOLUME_BINDING | SCORIA_VOLUME_RESTRICTIONS
                           : 0u) |
                      (read_switch(args, kVolumeZoneEnable) ? SCORIA_VOLUME_ZONE : 0u) |
                      (read_switch(args, kNodeVolumeLimitsEnable) ? SCORIA_VOLUME_LIMITS : 0u)),
        pod_switches{read_switch(args, kPodAffinityEnable),
                     read_switch(args, kPodTopologySpreadEnable),
                     read_switch(args, kNodePortsEnable)},
        reasons{intern(kReasonNotReady),     intern(kReasonUnschedulable),
                intern(kReasonNodeAffinity), intern(kReasonTaint),
                intern(kReasonTooManyPods),  intern(kReasonVolumesUnchecked)},
        pod_reasons{intern(kReasonAffinity),
                    intern(kReasonAntiAffinity),
                    intern(kReasonExistingAntiAffinity),
                    intern(kReasonSpread),
                    intern(kReasonSpreadLabel),
                    intern(kReasonPorts)} {}

  bool node_affinity;     // nodeSelector and required node affinity
  bool taint_toleration;  // NoSchedule and NoExecute taints
  // SCORIA_VOLUME_* checks asked of the host for pods with claims (a host
  // before 1.12 has none to ask: pods with claims are refused then).
  uint32_t volume_checks = 0;
  predicates::PodRuleSwitches pod_switches;
  Reasons reasons;
  predicates::PodRuleReasons pod_reasons;

  // Per session.
  const scoria_session* ssn = nullptr;
  kube::SessionPodTerms pod_terms;
  predicates::EvictedPods evicted;
};

// What a task asks of a node, read from the host once per hook call and then
// checked against each node.
class TaskConstraints {
 public:
  TaskConstraints(const Instance& inst, const scoria_task* task)
      : inst_(inst),
        task_(task),
        volumes_((scoria::info(task).features & SCORIA_TASK_FEATURE_VOLUMES) != 0),
        tolerations_(task) {
    if (inst.node_affinity) selection_.emplace(task);
    tolerates_unschedulable_ =
        tolerations_.tolerate(kUnschedulableTaintKey, {}, SCORIA_TAINT_NO_SCHEDULE);
    if (inst.ssn != nullptr) {
      pod_rules_.emplace(inst.ssn, task, inst.pod_terms, inst.pod_switches, inst.pod_reasons,
                         selection_ ? &*selection_ : nullptr, tolerations_, inst.evicted);
    }
  }

  // SCORIA_OK, or the first failing check's code with its reason id in
  // *reason. The checks that preemption cannot fix come first.
  scoria_code check(const scoria_node* node, uint32_t* reason) const {
    *reason = 0;
    scoria_node_info ni{};
    ni.struct_size = sizeof ni;
    if (node == nullptr || api().node_info(node, &ni) != SCORIA_OK) return SCORIA_ERROR;

    const Reasons& why = inst_.reasons;
    if (ni.ready == 0) return fail(reason, why.not_ready, SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE);
    if (ni.unschedulable != 0 && !tolerates_unschedulable_)
      return fail(reason, why.unschedulable, SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE);
    if (inst_.node_affinity && !matches_node_affinity(node, view(ni.name)))
      return fail(reason, why.node_affinity, SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE);
    if (inst_.taint_toleration && has_untolerated_taint(node))
      return fail(reason, why.taint, SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE);
    if (too_many_pods(ni, evicted_on(node, ni)))
      return fail(reason, why.too_many_pods, SCORIA_UNSCHEDULABLE);
    if (volumes_ && inst_.volume_checks != 0) {
      // A host too old to check volumes cannot say a node suits them: fail
      // closed rather than bind a pod where its volumes never attach.
      if (!SCORIA_HOST_HAS(&api(), session_volume_check))
        return fail(reason, why.volumes_unchecked, SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE);
      const scoria_code code =
          api().session_volume_check(inst_.ssn, task_, node, inst_.volume_checks, reason);
      if (code != SCORIA_OK) return code;
    }
    if (pod_rules_) return pod_rules_->check(node, ni.index, reason);
    return SCORIA_OK;
  }

 private:
  static scoria_code fail(uint32_t* reason, uint32_t id, scoria_code code) {
    *reason = id;
    return code;
  }

  // nodeSelector and required affinity, when the NodeAffinity check is on.
  bool matches_node_affinity(const scoria_node* node, std::string_view node_name) const {
    return !selection_ || selection_->matches(node, node_name);
  }

  bool has_untolerated_taint(const scoria_node* node) const {
    return !tolerations_.tolerate_node(node);
  }

  // The pods evicted this session that are still on `node` (Releasing):
  // counted on it, where a question asked as if some pods were gone
  // (session_predicate_without) has already taken them off.
  uint32_t evicted_on(const scoria_node* node, const scoria_node_info& ni) const {
    if (inst_.evicted.on_node(ni.index) == 0) return 0;
    uint32_t n = 0;
    const size_t tasks = api().node_task_count(node);
    for (size_t t = 0; t < tasks; ++t)
      n += inst_.evicted.contains(scoria::info(api().node_task_at(node, t)).index) ? 1 : 0;
    return n;
  }

  // The node's pod limit, counting the pods pipelined onto it and not those
  // evicted this session, as Volcano's node view does: one more pod must fit
  // under allocatable pods.
  static bool too_many_pods(const scoria_node_info& ni, uint32_t evicted) {
    if (ni.allocatable == nullptr || ni.used == nullptr) return false;
    double pods = ni.used[SCORIA_DIM_PODS] - evicted;
    if (ni.pipelined != nullptr) pods += ni.pipelined[SCORIA_DIM_PODS];
    return pods + 1 > ni.allocatable[SCORIA_DIM_PODS];
  }

  const Instance& inst_;
  const scoria_task* task_;
  bool volumes_;  // the pod names PersistentVolumeClaims
  std::optional<kube::NodeSelection> selection_;
  kube::Tolerations tolerations_;
  bool tolerates_unschedulable_ = false;
  std::optional<predicates::PodRules> pod_rules_;
};

scoria_code on_predicate(void* user_data, const scoria_task* task, const scoria_node* node,
                         uint32_t* reason) {
  // Nothing may unwind into the host; host logging is not for these threads.
  try {
    uint32_t ignored = 0;
    return TaskConstraints(*static_cast<const Instance*>(user_data), task)
        .check(node, reason != nullptr ? reason : &ignored);
  } catch (...) {
    return SCORIA_ERROR;
  }
}

scoria_code on_predicate_batch(void* user_data, const scoria_task* task,
                               const scoria_node* const* nodes, size_t count, scoria_code* codes,
                               uint32_t* reasons) {
  try {
    const TaskConstraints constraints(*static_cast<const Instance*>(user_data), task);
    for (size_t i = 0; i < count; ++i) codes[i] = constraints.check(nodes[i], &reasons[i]);
    return SCORIA_OK;
  } catch (...) {
    return SCORIA_ERROR;
  }
}

// Every check is about the node alone (its object, and the pods on it for
// the pod limit and host ports) unless another node's pods count: the
// task's own inter-pod terms and spread constraints, or a pod of the
// session whose required anti-affinity may reject it from a whole domain.
uint32_t cache_policy(void* user_data, const scoria_task* task) {
  const auto& self = *static_cast<const Instance*>(user_data);
  const uint32_t features = scoria::info(task).features;
  // A pod's own claims decide where it may go; from 1.13 the host keeps
  // those answers true for a class (SCORIA_CACHE_CLAIMS), before it not.
  if (self.volume_checks != 0 && (features & SCORIA_TASK_FEATURE_VOLUMES) != 0 &&
      (api().abi_major != 1 || api().abi_minor < 13))
    return 0;
  if (self.pod_switches.pod_affinity &&
      ((features & (SCORIA_TASK_FEATURE_POD_AFFINITY | SCORIA_TASK_FEATURE_POD_ANTI_AFFINITY)) !=
           0 ||
       !self.pod_terms.with_anti_affinity().empty()))
    return 0;
  if (self.pod_switches.topology_spread && (features & SCORIA_TASK_FEATURE_TOPOLOGY_SPREAD) != 0)
    return 0;
  return SCORIA_CACHE_PREDICATE | SCORIA_CACHE_CLAIMS;  // claims only through the host
}

// An eviction leaves the task Releasing on its node; undoing it puts the
// task back as it was, with on_allocate.
void on_deallocate(void* user_data, const scoria_task* task) {
  auto& self = *static_cast<Instance*>(user_data);
  const scoria_task_info ti = scoria::info(task);
  if (ti.status != SCORIA_TASK_RELEASING) return;
  if (const scoria_node* node = api().node_find(self.ssn, ti.node_name); node != nullptr)
    self.evicted.evicted(ti.index, scoria::info(node).index);
}

void on_allocate(void* user_data, const scoria_task* task) {
  auto& self = *static_cast<Instance*>(user_data);
  if (!self.evicted.empty()) self.evicted.restored(scoria::info(task).index);
}

scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  // Every hook set below exists since ABI 1.0; refuse a table that is smaller.
  if (hooks == nullptr || hooks->struct_size < sizeof(scoria_hooks)) return SCORIA_INVALID_ARGUMENT;
  return scoria::guarded([&] {
    auto& self = *static_cast<Instance*>(instance);
    self.ssn = ssn;
    self.pod_terms = kube::SessionPodTerms(ssn);
    self.evicted.clear();
    hooks->user_data = instance;
    hooks->on_predicate = on_predicate;
    hooks->on_predicate_batch = on_predicate_batch;
    hooks->on_allocate = on_allocate;
    hooks->on_deallocate = on_deallocate;
    if (hooks->struct_size >= offsetof(scoria_hooks, on_cache_policy) + sizeof(void*))
      hooks->on_cache_policy = cache_policy;
  });
}

void on_session_close(void* instance, scoria_session* /*ssn*/) {
  auto& self = *static_cast<Instance*>(instance);
  self.ssn = nullptr;
  self.pod_terms = kube::SessionPodTerms();
  self.evicted.clear();
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "predicates",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS,
    .version = "1.0.0",
    .description =
        "Node filters: readiness, cordon, node selector and affinity, taints, pod limit, host "
        "ports, topology spread, inter-pod affinity",
    .on_create = scoria::create_instance<Instance>,
    .on_destroy = scoria::destroy_instance<Instance>,
    .on_session_open = on_session_open,
    .on_session_close = on_session_close,
    .on_execute = nullptr,
    .args = kArgs,
    .arg_count = std::size(kArgs),
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
