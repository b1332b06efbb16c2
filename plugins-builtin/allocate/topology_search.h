// What the allocate action does for a job with sub-jobs or a network
// topology (Volcano's allocateForJob and allocateForSubJob): each HyperNode
// a gradient offers is tried on a dry run, and the first gradient with a
// HyperNode that can hold the job (or sub-job) decides. Only the action's
// own bookkeeping; the session is reached through the ABI.
#pragma once

#include <scoria/scoria.h>
#include <scoria/hypernodes.hpp>
#include <scoria/scoria.hpp>

#include <cstddef>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace scoria_allocate {

using Index = uint32_t;

/// One task placed in a dry run, to be placed again if its HyperNode wins.
struct Placement {
  const scoria_task* task;
  const scoria_node* node;
  bool idle;  // allocated (else pipelined)
};

/// The nodes of one HyperNode that one attempt may use, what it placed, and
/// the sub-job's allocated HyperNode as the placements move it (Volcano's
/// getNewAllocatedHyperNode), told to the session so that node scoring
/// reads it. A sub-job without a topology keeps none.
struct Scope {
  Scope(scoria_session* session, const scoria::HyperNodeTree& hypernodes, Index h,
        const scoria_sub_job* sub_job, bool topology, Index allocated_before)
      : ssn(session), tree(hypernodes), sj(sub_job), track(topology), allocated(allocated_before) {
    for (uint32_t n : tree.nodes(h)) nodes.push_back(scoria::api().node_at(ssn, n));
  }

  void placed(const scoria_task* task, const scoria_node* node, bool idle) {
    plan.push_back({task, node, idle});
    if (!track) return;
    const Index lowest = tree.lowest_of_node(scoria::info(node).index);
    if (lowest == SCORIA_NO_HYPERNODE) return;
    allocated = tree.lca(lowest, allocated);
    scoria::api().session_sub_job_set_allocated_hypernode(ssn, sj, allocated);
  }

  scoria_session* ssn;
  const scoria::HyperNodeTree& tree;
  const scoria_sub_job* sj;
  bool track;
  Index allocated;
  std::vector<const scoria_node*> nodes;
  std::vector<Placement> plan;
};

/// Walks the gradients `gradient(hypernodes, gradient, capacity)` writes
/// (session_hypernode_gradient or its sub-job form), calling try_in(h) ->
/// std::optional<R> for each HyperNode of a gradient, R with members
/// `hypernode` and `score`; the first gradient with any success decides.
/// `rank(which, count, scores)` scores the successes (HyperNode order; a
/// no-op keeps the scores try_in gave). The highest score wins, the first
/// offered on ties (Volcano picks among ties at random).
template <class Gradient, class Rank, class TryIn>
auto best_in_gradients(size_t capacity, Gradient&& gradient, Rank&& rank, TryIn&& try_in)
    -> std::invoke_result_t<TryIn, Index> {
  using Found = typename std::invoke_result_t<TryIn, Index>::value_type;
  std::vector<Index> hypernodes(capacity);
  std::vector<uint32_t> tiers(capacity);
  const size_t count = gradient(hypernodes.data(), tiers.data(), capacity);
  size_t begin = 0;
  while (begin < count) {
    size_t end = begin;
    while (end < count && tiers[end] == tiers[begin]) ++end;
    std::vector<Found> found;
    for (size_t i = begin; i < end; ++i)
      if (auto a = try_in(hypernodes[i])) found.push_back(std::move(*a));
    begin = end;
    if (found.empty()) continue;
    std::vector<Index> which;
    for (const Found& a : found) which.push_back(a.hypernode);
    std::vector<double> scores(which.size(), 0.0);
    for (size_t i = 0; i < found.size(); ++i) scores[i] = found[i].score;
    rank(which.data(), which.size(), scores.data());
    size_t best = 0;
    for (size_t i = 1; i < found.size(); ++i)
      if (scores[i] > scores[best]) best = i;
    found[best].score = scores[best];
    return std::move(found[best]);
  }
  return std::nullopt;
}

}  // namespace scoria_allocate
