// The parts of a pod's spec that refer to other pods: inter-pod affinity and
// anti-affinity terms, topology spread constraints and host ports. They are
// read from the pod's JSON (the SDK has no typed accessor for them), so a
// session parses each task that uses them once (the task's feature bits say
// which do) and keeps the result for every hook call.
#ifndef SCORIA_KUBE_TERMS_POD_TERMS_H
#define SCORIA_KUBE_TERMS_POD_TERMS_H

#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "label_selector.h"
#include "node_selection.h"
#include "toleration.h"

namespace kube {

// One podAffinity or podAntiAffinity term (required, or preferred with its
// weight).
struct PodAffinityTerm {
  LabelSelector selector;
  // With neither, the declaring pod's own namespace; else those listed
  // and those whose labels the selector matches ({} matches every one).
  std::vector<std::string> namespaces;
  LabelSelector namespace_selector;
  std::string topology_key;
  int32_t weight = 0;  // preferred terms only

  // Does this term, declared by a pod of namespace `owner_namespace`, select
  // `other` (of namespace `other_namespace`)?
  bool selects(const scoria_session* ssn, std::string_view owner_namespace,
               const scoria_task* other, std::string_view other_namespace) const;
};

// One topologySpreadConstraints item.
struct SpreadConstraint {
  int32_t max_skew = 1;
  std::string topology_key;
  bool hard = true;  // whenUnsatisfiable: DoNotSchedule
  LabelSelector selector;
  int32_t min_domains = 1;
  bool honor_node_affinity = true;  // nodeAffinityPolicy: Honor (default)
  bool honor_node_taints = false;   // nodeTaintsPolicy: Ignore (default)

  // Does the constraint count the pods of `node` (its node inclusion
  // policies)? `selection` is the incoming pod's, null when node affinity is
  // not checked at all; `tolerations` the incoming pod's.
  bool counts(const scoria_node* node, std::string_view node_name, const NodeSelection* selection,
              const Tolerations& tolerations) const {
    return (!honor_node_affinity || selection == nullptr || selection->matches(node, node_name)) &&
           (!honor_node_taints || tolerations.tolerate_node(node));
  }
};

struct HostPort {
  std::string ip;  // empty or 0.0.0.0: every address
  std::string protocol;
  int32_t port = 0;

  bool conflicts(const HostPort& other) const;
};

struct PodTerms {
  std::vector<PodAffinityTerm> affinity;       // required
  std::vector<PodAffinityTerm> anti_affinity;  // required
  std::vector<PodAffinityTerm> preferred_affinity;
  std::vector<PodAffinityTerm> preferred_anti_affinity;
  std::vector<SpreadConstraint> spread;
  std::vector<HostPort> host_ports;
};

// Parses what a pod's JSON says; fields that are absent or malformed read as
// absent (the host's loader has already refused malformed pods).
PodTerms parse_pod_terms(std::string_view pod_json);

// Every task of a session whose spec refers to other pods, parsed once at
// session open. Read-only afterwards, so hooks on several threads may share
// it.
class SessionPodTerms {
 public:
  SessionPodTerms() = default;
  explicit SessionPodTerms(const scoria_session* ssn);

  // The terms of a task, or nullptr if it uses none.
  const PodTerms* of(const scoria_task* task) const;
  // Tasks with required anti-affinity terms (their symmetry binds others).
  std::span<const scoria_task* const> with_anti_affinity() const { return anti_affinity_; }
  // Tasks with any inter-pod affinity term (scoring symmetry).
  std::span<const scoria_task* const> with_pod_affinity() const { return pod_affinity_; }
  // Tasks with host ports.
  std::span<const scoria_task* const> with_host_ports() const { return host_ports_; }

 private:
  void add(const scoria_task* task);

  std::unordered_map<uint32_t, std::unique_ptr<PodTerms>> by_index_;
  std::vector<const scoria_task*> anti_affinity_;
  std::vector<const scoria_task*> pod_affinity_;
  std::vector<const scoria_task*> host_ports_;
};

// The feature bits that make a task worth parsing.
inline constexpr uint32_t kPodTermFeatures =
    SCORIA_TASK_FEATURE_POD_AFFINITY | SCORIA_TASK_FEATURE_POD_ANTI_AFFINITY |
    SCORIA_TASK_FEATURE_PREFERRED_POD_AFFINITY | SCORIA_TASK_FEATURE_TOPOLOGY_SPREAD |
    SCORIA_TASK_FEATURE_HOST_PORTS;

// A node's value of a label, empty view and false if it has none.
bool node_label(const scoria_node* node, std::string_view key, std::string_view& value);

// Whether a task is on its node as far as other pods' rules go: placed in
// the session (allocated, pipelined) or on the node (binding, bound,
// running, releasing: a pod being deleted is still there).
bool occupies_node(const scoria_task_info& info);

// Calls fn(task, info, node) for every pod on a node of the session.
template <class Fn>
void for_each_placed(const scoria_session* ssn, Fn&& fn) {
  const scoria_host_api& api = scoria::api();
  const size_t nodes = api.node_count(ssn);
  for (size_t n = 0; n < nodes; ++n) {
    const scoria_node* node = api.node_at(ssn, n);
    const size_t tasks = api.node_task_count(node);
    for (size_t t = 0; t < tasks; ++t) {
      const scoria_task* task = api.node_task_at(node, t);
      const scoria_task_info info = scoria::info(task);
      if (occupies_node(info)) fn(task, info, node);
    }
  }
}

// Calls fn(task, info, node, terms) for every task of `tasks` (one of the
// SessionPodTerms lists) but `except` that is on a node.
template <class Fn>
void for_each_placed_of(const scoria_session* ssn, const SessionPodTerms& terms,
                        std::span<const scoria_task* const> tasks, const scoria_task* except,
                        Fn&& fn) {
  for (const scoria_task* task : tasks) {
    if (task == except) continue;
    const scoria_task_info info = scoria::info(task);
    if (!occupies_node(info)) continue;
    const scoria_node* node = scoria::api().node_find(ssn, info.node_name);
    const PodTerms* theirs = terms.of(task);
    if (node != nullptr && theirs != nullptr) fn(task, info, node, *theirs);
  }
}

}  // namespace kube

#endif  // SCORIA_KUBE_TERMS_POD_TERMS_H
