#include "spread_score.h"

#include <scoria/scoria.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>
#include <unordered_map>

#include "node_score.h"

namespace nodeorder {

namespace {

using scoria::api;
using scoria::view;

constexpr std::string_view kHostnameKey = "kubernetes.io/hostname";

struct Soft {
  const kube::SpreadConstraint* constraint = nullptr;
  bool by_host = false;  // counted per node, at score time
  // Domain value -> matching pods, for the domains of scored nodes only.
  std::unordered_map<std::string_view, int64_t> counts;
  double weight = 0;  // log(number of domains + 2)
};

// Pods of the session that a constraint counts on `node`: same namespace,
// matching its selector, not on their way out.
int64_t matching_pods(const scoria_node* node, std::string_view ns, const Soft& s) {
  int64_t count = 0;
  const size_t tasks = api().node_task_count(node);
  for (size_t t = 0; t < tasks; ++t) {
    const scoria_task* other = api().node_task_at(node, t);
    const scoria_task_info info = scoria::info(other);
    if (!kube::occupies_node(info) || info.status == SCORIA_TASK_RELEASING) continue;
    if (view(info.namespace_) == ns && s.constraint->selector.matches(other)) ++count;
  }
  return count;
}

bool has_all_keys(const scoria_node* node, const std::vector<Soft>& soft) {
  std::string_view value;
  return std::all_of(soft.begin(), soft.end(), [&](const Soft& s) {
    return kube::node_label(node, s.constraint->topology_key, value);
  });
}

}  // namespace

std::vector<int64_t> spread_scores(const scoria_session* ssn, const scoria_task* task,
                                   const kube::SessionPodTerms& terms,
                                   std::span<const scoria_node* const> nodes) {
  const kube::PodTerms* own = terms.of(task);
  if (own == nullptr) return {};
  std::vector<Soft> soft;
  for (const kube::SpreadConstraint& c : own->spread)
    if (!c.hard) soft.push_back(Soft{&c, c.topology_key == kHostnameKey, {}, 0});
  if (soft.empty()) return {};

  // The scored nodes' domains; a node missing any key is not scored.
  std::vector<bool> ignored(nodes.size(), false);
  size_t scored = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!has_all_keys(nodes[i], soft)) {
      ignored[i] = true;
      continue;
    }
    ++scored;
    std::string_view value;
    for (Soft& s : soft)
      if (!s.by_host && kube::node_label(nodes[i], s.constraint->topology_key, value))
        s.counts.try_emplace(value, 0);
  }
  for (Soft& s : soft)
    s.weight = std::log(static_cast<double>((s.by_host ? scored : s.counts.size()) + 2));

  // Counts over every node of the session the constraints admit.
  const std::string_view ns = view(scoria::info(task).namespace_);
  const kube::NodeSelection selection(task);
  const kube::Tolerations tolerations(task);
  const size_t all = api().node_count(ssn);
  for (size_t n = 0; n < all; ++n) {
    const scoria_node* node = api().node_at(ssn, n);
    if (!has_all_keys(node, soft)) continue;
    const std::string_view name = view(scoria::info(node).name);
    for (Soft& s : soft) {
      if (s.by_host || !s.constraint->counts(node, name, &selection, tolerations)) continue;
      std::string_view value;
      kube::node_label(node, s.constraint->topology_key, value);
      const auto it = s.counts.find(value);
      if (it != s.counts.end()) it->second += matching_pods(node, ns, s);
    }
  }

  // Raw scores: the weighted counts of each node's domains, rounded.
  std::vector<int64_t> raw(nodes.size(), 0);
  int64_t min = std::numeric_limits<int64_t>::max();
  int64_t max = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (ignored[i]) continue;
    double score = 0;
    for (const Soft& s : soft) {
      std::string_view value;
      kube::node_label(nodes[i], s.constraint->topology_key, value);
      const int64_t count =
          s.by_host ? matching_pods(nodes[i], ns, s) : s.counts.find(value)->second;
      score +=
          static_cast<double>(count) * s.weight + static_cast<double>(s.constraint->max_skew - 1);
    }
    raw[i] = std::llround(score);
    min = std::min(min, raw[i]);
    max = std::max(max, raw[i]);
  }
  // Fewer matching pods is better: the emptiest node gets 100.
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (ignored[i])
      raw[i] = 0;
    else
      raw[i] = max == 0 ? kMaxNodeScore : kMaxNodeScore * (max + min - raw[i]) / max;
  }
  return raw;
}

}  // namespace nodeorder
