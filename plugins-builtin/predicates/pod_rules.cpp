#include "pod_rules.h"

#include <scoria/scoria.hpp>

#include <algorithm>
#include <limits>

namespace predicates {

namespace {

using scoria::api;
using scoria::view;

bool positive(const std::map<Domain, int64_t>& counts, const Domain& d) {
  const auto it = counts.find(d);
  return it != counts.end() && it->second > 0;
}

}  // namespace

PodRules::PodRules(const scoria_session* ssn, const scoria_task* task,
                   const kube::SessionPodTerms& terms, const PodRuleSwitches& switches,
                   const PodRuleReasons& reasons, const kube::NodeSelection* selection,
                   const kube::Tolerations& tolerations, const EvictedPods& evicted)
    : task_(task), evicted_(evicted), own_(terms.of(task)), reasons_(reasons) {
  check_affinity_ =
      switches.pod_affinity &&
      ((own_ != nullptr && (!own_->affinity.empty() || !own_->anti_affinity.empty())) ||
       !terms.with_anti_affinity().empty());
  const bool spread = switches.topology_spread && own_ != nullptr &&
                      std::any_of(own_->spread.begin(), own_->spread.end(),
                                  [](const kube::SpreadConstraint& c) { return c.hard; });
  const bool ports = switches.node_ports && own_ != nullptr && !own_->host_ports.empty();
  // Most pods in most sessions: nothing refers to other pods, nothing to build.
  if (!check_affinity_ && !spread && !ports) return;
  namespace_ = view(scoria::info(task).namespace_);
  if (check_affinity_) build_affinity(ssn, terms);
  if (spread) build_spread(ssn, selection, tolerations);
  if (ports) build_ports(ssn, terms);
}

void PodRules::build_affinity(const scoria_session* ssn, const kube::SessionPodTerms& terms) {
  const auto domain_of = [](const scoria_node* node, const std::string& key, Domain& out) {
    std::string_view value;
    if (!kube::node_label(node, key, value)) return false;
    out = Domain{key, value};
    return true;
  };
  // What the incoming pod's own terms find among the placed pods.
  if (own_ != nullptr && (!own_->affinity.empty() || !own_->anti_affinity.empty())) {
    self_affine_ = std::all_of(own_->affinity.begin(), own_->affinity.end(),
                               [&](const kube::PodAffinityTerm& term) {
                                 return term.selects(ssn, namespace_, task_, namespace_);
                               });
    kube::for_each_placed(ssn, [&](const scoria_task* other, const scoria_task_info& info,
                                   const scoria_node* node) {
      if (other == task_ || evicted_.contains(info.index)) return;
      const std::string_view other_ns = view(info.namespace_);
      const bool all = !own_->affinity.empty() &&
                       std::all_of(own_->affinity.begin(), own_->affinity.end(),
                                   [&](const kube::PodAffinityTerm& term) {
                                     return term.selects(ssn, namespace_, other, other_ns);
                                   });
      Domain d;
      if (all)
        for (const auto& term : own_->affinity)
          if (domain_of(node, term.topology_key, d)) ++affinity_counts_[d];
      for (const auto& term : own_->anti_affinity)
        if (term.selects(ssn, namespace_, other, other_ns) && domain_of(node, term.topology_key, d))
          ++anti_affinity_counts_[d];
    });
  }
  // Symmetry: placed pods whose required anti-affinity rejects this pod.
  kube::for_each_placed_of(ssn, terms, terms.with_anti_affinity(), task_,
                           [&](const scoria_task*, const scoria_task_info& info,
                               const scoria_node* node, const kube::PodTerms& theirs) {
                             if (evicted_.contains(info.index)) return;
                             const std::string_view owner_ns = view(info.namespace_);
                             Domain d;
                             for (const auto& term : theirs.anti_affinity)
                               if (term.selects(ssn, owner_ns, task_, namespace_) &&
                                   domain_of(node, term.topology_key, d))
                                 ++existing_anti_counts_[d];
                           });
}

void PodRules::build_spread(const scoria_session* ssn, const kube::NodeSelection* selection,
                            const kube::Tolerations& tolerations) {
  for (const auto& c : own_->spread) {
    if (!c.hard) continue;
    Spread s;
    s.constraint = &c;
    s.self = c.selector.matches(task_) ? 1 : 0;
    spread_.push_back(std::move(s));
  }
  check_spread_ = true;
  const auto has_all_keys = [&](const scoria_node* node, std::vector<std::string_view>& values) {
    values.clear();
    for (const Spread& s : spread_) {
      std::string_view v;
      if (!kube::node_label(node, s.constraint->topology_key, v)) return false;
      values.push_back(v);
    }
    return true;
  };
  std::vector<std::string_view> values;
  const size_t nodes = api().node_count(ssn);
  for (size_t n = 0; n < nodes; ++n) {
    const scoria_node* node = api().node_at(ssn, n);
    if (!has_all_keys(node, values)) continue;
    const std::string_view node_name = view(scoria::info(node).name);
    const size_t tasks = api().node_task_count(node);
    for (size_t i = 0; i < spread_.size(); ++i) {
      Spread& s = spread_[i];
      if (!s.constraint->counts(node, node_name, selection, tolerations)) continue;
      int64_t& count = s.counts[values[i]];  // the domain exists even if empty
      for (size_t t = 0; t < tasks; ++t) {
        const scoria_task* other = api().node_task_at(node, t);
        const scoria_task_info info = scoria::info(other);
        // Pods on their way out do not count, as in kube-scheduler.
        if (!kube::occupies_node(info) || info.status == SCORIA_TASK_RELEASING) continue;
        if (view(info.namespace_) == namespace_ && s.constraint->selector.matches(other)) ++count;
      }
    }
  }
  for (Spread& s : spread_) {
    if (std::cmp_less(s.counts.size(), s.constraint->min_domains)) {
      s.min = 0;
      continue;
    }
    s.min = std::numeric_limits<int64_t>::max();
    for (const auto& [value, count] : s.counts) s.min = std::min(s.min, count);
    if (s.counts.empty()) s.min = 0;
  }
}

void PodRules::build_ports(const scoria_session* ssn, const kube::SessionPodTerms& terms) {
  check_ports_ = true;
  kube::for_each_placed_of(ssn, terms, terms.with_host_ports(), task_,
                           [&](const scoria_task*, const scoria_task_info& info,
                               const scoria_node* node, const kube::PodTerms& theirs) {
                             if (evicted_.contains(info.index)) return;
                             auto& list = ports_by_node_[scoria::info(node).index];
                             for (const auto& p : theirs.host_ports) list.push_back(&p);
                           });
}

bool PodRules::affinity_holds(const scoria_node* node) const {
  if (own_ == nullptr || own_->affinity.empty()) return true;
  bool pods_exist = true;
  for (const auto& term : own_->affinity) {
    std::string_view value;
    // Every topology key must be a label of the node.
    if (!kube::node_label(node, term.topology_key, value)) return false;
    if (!positive(affinity_counts_, Domain{term.topology_key, value})) pods_exist = false;
  }
  // The first pod of a group that selects itself may go anywhere the keys
  // exist: no pod anywhere matches yet.
  return pods_exist || (affinity_counts_.empty() && self_affine_);
}

bool PodRules::anti_affinity_holds(const scoria_node* node) const {
  if (own_ == nullptr) return true;
  for (const auto& term : own_->anti_affinity) {
    std::string_view value;
    if (kube::node_label(node, term.topology_key, value) &&
        positive(anti_affinity_counts_, Domain{term.topology_key, value}))
      return false;
  }
  return true;
}

bool PodRules::existing_anti_affinity_holds(const scoria_node* node) const {
  for (const auto& [domain, count] : existing_anti_counts_) {
    std::string_view value;
    if (count > 0 && kube::node_label(node, domain.first, value) && value == domain.second)
      return false;
  }
  return true;
}

scoria_code PodRules::check(const scoria_node* node, uint32_t node_index, uint32_t* reason) const {
  if (check_ports_) {
    const auto it = ports_by_node_.find(node_index);
    if (it != ports_by_node_.end()) {
      for (const auto& want : own_->host_ports)
        for (const kube::HostPort* have : it->second)
          if (want.conflicts(*have)) {
            *reason = reasons_.ports;
            return SCORIA_UNSCHEDULABLE;
          }
    }
  }
  if (check_spread_) {
    for (const Spread& s : spread_) {
      std::string_view value;
      if (!kube::node_label(node, s.constraint->topology_key, value)) {
        *reason = reasons_.spread_missing_label;
        return SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE;
      }
      const auto it = s.counts.find(value);
      const int64_t here = it == s.counts.end() ? 0 : it->second;
      if (here + s.self - s.min > s.constraint->max_skew) {
        *reason = reasons_.spread;
        return SCORIA_UNSCHEDULABLE;
      }
    }
  }
  if (check_affinity_) {
    if (!existing_anti_affinity_holds(node)) {
      *reason = reasons_.existing_anti_affinity;
      return SCORIA_UNSCHEDULABLE;
    }
    if (!affinity_holds(node)) {
      *reason = reasons_.affinity;
      return SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE;
    }
    if (!anti_affinity_holds(node)) {
      *reason = reasons_.anti_affinity;
      return SCORIA_UNSCHEDULABLE;
    }
  }
  return SCORIA_OK;
}

}  // namespace predicates
