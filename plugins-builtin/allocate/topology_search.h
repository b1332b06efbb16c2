// What the allocate action does for a job with a network topology (Volcano's
// allocateForJob and allocateForSubJob): each HyperNode a gradient offers is
// tried on a dry run, and the first gradient with a HyperNode that can hold
// the job decides. Only the actions's own bookkeeping; the session is
// reached through the ABI.
#pragma once

#include <scoria/scoria.h>
#include <scoria/hypernodes.hpp>
#include <scoria/scoria.hpp>

#include <cstddef>
#include <optional>
#include <string_view>
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
/// the job's allocated HyperNode as the placements move it (Volcano's
/// getNewAllocatedHyperNode), told to the session so that node scoring
/// reads it.
struct Scope {
  Scope(scoria_session* session, const scoria::HyperNodeTree& hypernodes, Index h,
        Index allocated_before)
      : ssn(session), tree(hypernodes), allocated(allocated_before) {
    for (uint32_t n : tree.nodes(h)) nodes.push_back(scoria::api().node_at(ssn, n));
  }

  void placed(const scoria_job* job, const scoria_task* task, const scoria_node* node, bool idle) {
    plan.push_back({task, node, idle});
    const Index lowest = tree.lowest_of_node(scoria::info(node).index);
    if (lowest == SCORIA_NO_HYPERNODE) return;
    allocated = tree.lca(lowest, allocated);
    scoria::api().session_job_set_allocated_hypernode(ssn, job, allocated);
  }

  scoria_session* ssn;
  const scoria::HyperNodeTree& tree;
  Index allocated;
  std::vector<const scoria_node*> nodes;
  std::vector<Placement> plan;
};

/// A HyperNode where the job can be placed: the placements, where the
/// job's task list and failed roles would stand after them, the job's
/// allocated HyperNode then, and its score.
struct Attempt {
  Index hypernode;
  std::vector<Placement> plan;
  size_t next;
  std::vector<std::string_view> failed_roles;
  Index allocated;
  double score;
};

/// Walks the job's gradients under `root` (session_hypernode_gradient),
/// calling try_in(h) -> std::optional<Attempt> for each HyperNode of a
/// gradient; the first gradient with any success decides. With `rank`,
/// the successes are scored by HyperNode order (session_hypernode_scores)
/// and the score kept in the attempt; the highest score wins, the first
/// offered on ties (Volcano picks among ties at random).
template <class TryIn>
std::optional<Attempt> best_in_gradients(scoria_session* ssn, const scoria_job* job, Index root,
                                         const scoria::HyperNodeTree& tree, TryIn&& try_in,
                                         bool rank) {
  std::vector<Index> hypernodes(tree.size());
  std::vector<uint32_t> gradient(tree.size());
  const size_t count = scoria::api().session_hypernode_gradient(
      ssn, job, root, SCORIA_SEARCH_ALLOCATE, hypernodes.data(), gradient.data(), tree.size());
  size_t begin = 0;
  while (begin < count) {
    size_t end = begin;
    while (end < count && gradient[end] == gradient[begin]) ++end;
    std::vector<Attempt> found;
    for (size_t i = begin; i < end; ++i)
      if (std::optional<Attempt> a = try_in(hypernodes[i])) found.push_back(std::move(*a));
    begin = end;
    if (found.empty()) continue;
    if (rank) {
      std::vector<Index> which;
      for (const Attempt& a : found) which.push_back(a.hypernode);
      std::vector<double> scores(which.size(), 0.0);
      scoria::api().session_hypernode_scores(ssn, job, which.data(), which.size(), scores.data());
      for (size_t i = 0; i < found.size(); ++i) found[i].score = scores[i];
    }
    size_t best = 0;
    for (size_t i = 1; i < found.size(); ++i)
      if (found[i].score > found[best].score) best = i;
    return std::move(found[best]);
  }
  return std::nullopt;
}

}  // namespace scoria_allocate
