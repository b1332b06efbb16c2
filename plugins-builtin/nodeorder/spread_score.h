// kube-scheduler's PodTopologySpread score, as Volcano's nodeorder runs it
// (podtopologyspread.weight): a node scores better the fewer pods matching
// the incoming pod's ScheduleAnyway constraints already sit in its topology
// domains, each constraint's count weighted by log(number of domains + 2)
// so that a fine topology is not drowned by a coarse one, and maxSkew - 1
// added to water small skews down. Nodes missing a constraint's topology
// key score 0. The counts cover every node of the session that the
// constraints' node inclusion policies accept, the pods placed in this
// session included.
//
// Only the pod's own constraints are scored: kube-scheduler's system
// default constraints come from the Services and ReplicaSets that select a
// pod, which the cluster model does not carry.
#ifndef SCORIA_NODEORDER_SPREAD_SCORE_H
#define SCORIA_NODEORDER_SPREAD_SCORE_H

#include <scoria/scoria.h>

#include <cstdint>
#include <span>
#include <vector>

#include "pod_terms.h"

namespace nodeorder {

// Normalized scores (0 to 100), one per node of `nodes`; empty when the task
// has no ScheduleAnyway constraint (the score is then skipped, as
// kube-scheduler's PreScore skips it).
std::vector<int64_t> spread_scores(const scoria_session* ssn, const scoria_task* task,
                                   const kube::SessionPodTerms& terms,
                                   std::span<const scoria_node* const> nodes);

}  // namespace nodeorder

#endif  // SCORIA_NODEORDER_SPREAD_SCORE_H
