// The predicates that look at other pods: inter-pod affinity and
// anti-affinity (required terms, both the incoming pod's and, by symmetry,
// the anti-affinity of pods already placed), topology spread constraints
// with DoNotSchedule, and host ports. Each is built once per hook call from
// the pods placed in the session and then checked node by node, as
// kube-scheduler's PreFilter and Filter do.
#ifndef SCORIA_PREDICATES_POD_RULES_H
#define SCORIA_PREDICATES_POD_RULES_H

#include <scoria/scoria.h>

#include <cstdint>
#include <map>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "evicted_pods.h"
#include "pod_terms.h"

namespace predicates {

// (topology key, value) of a domain.
using Domain = std::pair<std::string_view, std::string_view>;

struct PodRuleReasons {
  uint32_t affinity = 0;
  uint32_t anti_affinity = 0;
  uint32_t existing_anti_affinity = 0;
  uint32_t spread = 0;
  uint32_t spread_missing_label = 0;
  uint32_t ports = 0;
};

struct PodRuleSwitches {
  bool pod_affinity = true;
  bool topology_spread = true;
  bool node_ports = true;
};

class PodRules {
 public:
  // `selection` (null: node affinity is not checked) and `tolerations` are
  // the incoming pod's: topology spread counts only the nodes its
  // constraints' inclusion policies accept. The pods of `evicted` count as
  // gone from their nodes.
  PodRules(const scoria_session* ssn, const scoria_task* task, const kube::SessionPodTerms& terms,
           const PodRuleSwitches& switches, const PodRuleReasons& reasons,
           const kube::NodeSelection* selection, const kube::Tolerations& tolerations,
           const EvictedPods& evicted);

  scoria_code check(const scoria_node* node, uint32_t node_index, uint32_t* reason) const;

 private:
  struct Spread {
    const kube::SpreadConstraint* constraint = nullptr;
    std::map<std::string_view, int64_t> counts;  // value -> matching pods
    int64_t min = 0;
    int64_t self = 0;  // 1 if the incoming pod matches its own selector
  };

  void build_affinity(const scoria_session* ssn, const kube::SessionPodTerms& terms);
  void build_spread(const scoria_session* ssn, const kube::NodeSelection* selection,
                    const kube::Tolerations& tolerations);
  void build_ports(const scoria_session* ssn, const kube::SessionPodTerms& terms);

  bool affinity_holds(const scoria_node* node) const;
  bool anti_affinity_holds(const scoria_node* node) const;
  bool existing_anti_affinity_holds(const scoria_node* node) const;

  const scoria_task* task_;
  const EvictedPods& evicted_;
  std::string_view namespace_;
  const kube::PodTerms* own_ = nullptr;
  PodRuleReasons reasons_;
  bool check_affinity_ = false;
  bool check_spread_ = false;
  bool check_ports_ = false;

  std::map<Domain, int64_t> affinity_counts_;       // pods matching all own terms
  std::map<Domain, int64_t> anti_affinity_counts_;  // pods matching any own anti term
  std::map<Domain, int64_t> existing_anti_counts_;  // placed pods whose terms reject this one
  bool self_affine_ = false;                        // matches all its own affinity terms
  std::vector<Spread> spread_;
  std::unordered_map<uint32_t, std::vector<const kube::HostPort*>> ports_by_node_;
};

}  // namespace predicates

#endif  // SCORIA_PREDICATES_POD_RULES_H
