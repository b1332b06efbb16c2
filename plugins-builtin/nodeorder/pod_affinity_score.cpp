#include "pod_affinity_score.h"

#include <scoria/scoria.hpp>

#include <map>
#include <string_view>
#include <utility>

namespace nodeorder {

namespace {

using scoria::view;
using Domain = std::pair<std::string_view, std::string_view>;

void add(std::map<Domain, int64_t>& scores, const scoria_node* node, const std::string& key,
         int64_t weight) {
  std::string_view value;
  if (weight != 0 && kube::node_label(node, key, value)) scores[Domain{key, value}] += weight;
}

}  // namespace

std::vector<int64_t> pod_affinity_scores(const scoria_session* ssn, const scoria_task* task,
                                         const kube::SessionPodTerms& terms,
                                         std::span<const scoria_node* const> nodes) {
  const kube::PodTerms* own = terms.of(task);
  const bool own_preferred =
      own != nullptr && (!own->preferred_affinity.empty() || !own->preferred_anti_affinity.empty());
  if (!own_preferred && terms.with_pod_affinity().empty()) return {};

  const std::string_view ns = view(scoria::info(task).namespace_);
  std::map<Domain, int64_t> scores;
  // The incoming pod's preferred terms, over every placed pod.
  if (own_preferred) {
    kube::for_each_placed(
        ssn, [&](const scoria_task* other, const scoria_task_info& info, const scoria_node* node) {
          if (other == task) return;
          const std::string_view other_ns = view(info.namespace_);
          for (const auto& term : own->preferred_affinity)
            if (term.selects(ssn, ns, other, other_ns))
              add(scores, node, term.topology_key, term.weight);
          for (const auto& term : own->preferred_anti_affinity)
            if (term.selects(ssn, ns, other, other_ns))
              add(scores, node, term.topology_key, -term.weight);
        });
  }
  // Placed pods' terms that select the incoming pod.
  kube::for_each_placed_of(ssn, terms, terms.with_pod_affinity(), task,
                           [&](const scoria_task*, const scoria_task_info& info,
                               const scoria_node* node, const kube::PodTerms& theirs) {
                             const std::string_view owner = view(info.namespace_);
                             for (const auto& term : theirs.affinity)
                               if (term.selects(ssn, owner, task, ns))
                                 add(scores, node, term.topology_key, kHardPodAffinityWeight);
                             for (const auto& term : theirs.preferred_affinity)
                               if (term.selects(ssn, owner, task, ns))
                                 add(scores, node, term.topology_key, term.weight);
                             for (const auto& term : theirs.preferred_anti_affinity)
                               if (term.selects(ssn, owner, task, ns))
                                 add(scores, node, term.topology_key, -term.weight);
                           });
  if (scores.empty()) return {};

  std::vector<int64_t> out(nodes.size(), 0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const auto& [domain, weight] : scores) {
      std::string_view value;
      if (kube::node_label(nodes[i], domain.first, value) && value == domain.second)
        out[i] += weight;
    }
  }
  return out;
}

}  // namespace nodeorder
