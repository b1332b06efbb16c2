// Which nodes topology-aware preemption dry-runs, and which of its
// candidates it preempts on (Volcano's calculateNumCandidates and
// SelectCandidate / pickOneNodeForPreemption, after kube-scheduler's).
#ifndef SCORIA_PLUGINS_PREEMPT_CANDIDATE_H
#define SCORIA_PLUGINS_PREEMPT_CANDIDATE_H

#include <scoria/scoria.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace preempt {

// The action's limits on how many candidate nodes a dry run looks for.
struct CandidateLimits {
  int64_t min_percentage = 10;  // minCandidateNodesPercentage
  int64_t min_absolute = 1;     // minCandidateNodesAbsolute
  int64_t max_absolute = 100;   // maxCandidateNodesAbsolute
};

// How many candidates to find among `nodes` nodes: the percentage of them,
// at least the minimum, at most the maximum and never more than there are.
size_t candidates_wanted(size_t nodes, const CandidateLimits& limits);

// A node where the preemptor fits once `victims` are gone; victims highest
// priority first (the order they were tried back in).
struct Candidate {
  const scoria_node* node = nullptr;
  std::vector<const scoria_task*> victims;
};

// The victim facts the choice compares, read once per victim.
struct VictimFacts {
  int32_t priority = 0;
  int64_t start_ms = 0;  // status.startTime; the session's now if unset
};

// Index of the candidate to preempt on, given the facts of each one's
// victims (facts[i][k] for candidates[i].victims[k]). Criteria in order,
// each breaking the ties of the one before: the lowest priority of the
// first victim, the lowest sum of victim priorities, the fewest victims,
// the latest start of the highest-priority victims; then the first.
size_t select_candidate(std::span<const std::vector<VictimFacts>> facts);

}  // namespace preempt

#endif  // SCORIA_PLUGINS_PREEMPT_CANDIDATE_H
