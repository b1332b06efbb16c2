#include "pod_affinity_score.h"

#include <scoria/scoria.hpp>

#include <map>
#include <string_view>
#include <utility>

namespace nodeorder {

namespace {

using scoria::api;
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
    const size_t count = api().node_count(ssn);
    for (size_t n = 0; n < count; ++n) {
      const scoria_node* node = api().node_at(ssn, n);
      const size_t tasks = api().node_task_count(node);
      for (size_t t = 0; t < tasks; ++t) {
        const scoria_task* other = api().node_task_at(node, t);
        const scoria_task_info info = scoria::info(other);
        if (other == task || !kube::occupies_node(info)) continue;
        const std::string_view other_ns = view(info.namespace_);
        for (const auto& term : own->preferred_affinity)
          if (term.selects(ns, other, other_ns)) add(scores, node, term.topology_key, term.weight);
        for (const auto& term : own->preferred_anti_affinity)
          if (term.selects(ns, other, other_ns)) add(scores, node, term.topology_key, -term.weight);
      }
    }
  }
  // Placed pods' terms that select the incoming pod.
  for (const scoria_task* other : terms.with_pod_affinity()) {
    const scoria_task_info info = scoria::info(other);
    if (other == task || !kube::occupies_node(info)) continue;
    const scoria_node* node = api().node_find(ssn, info.node_name);
    const kube::PodTerms* theirs = terms.of(other);
    if (node == nullptr || theirs == nullptr) continue;
    const std::string_view owner = view(info.namespace_);
    for (const auto& term : theirs->affinity)
      if (term.selects(owner, task, ns))
        add(scores, node, term.topology_key, kHardPodAffinityWeight);
    for (const auto& term : theirs->preferred_affinity)
      if (term.selects(owner, task, ns)) add(scores, node, term.topology_key, term.weight);
    for (const auto& term : theirs->preferred_anti_affinity)
      if (term.selects(owner, task, ns)) add(scores, node, term.topology_key, -term.weight);
  }
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
