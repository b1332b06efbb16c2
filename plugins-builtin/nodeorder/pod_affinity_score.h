// kube-scheduler's InterPodAffinity score: the incoming pod's preferred pod
// affinity (+weight) and anti-affinity (-weight) terms over the pods already
// placed, and by symmetry the placed pods' preferred terms and required
// affinity terms (at hardPodAffinityWeight) that select the incoming pod;
// each adds its weight to every node of the topology domain it names.
#ifndef SCORIA_NODEORDER_POD_AFFINITY_SCORE_H
#define SCORIA_NODEORDER_POD_AFFINITY_SCORE_H

#include <scoria/scoria.h>

#include <cstdint>
#include <span>
#include <vector>

#include "pod_terms.h"

namespace nodeorder {

// kube-scheduler's default weight of a placed pod's required affinity term
// that selects the incoming pod.
inline constexpr int64_t kHardPodAffinityWeight = 1;

// Raw scores, one per node of `nodes`; empty when no term applies (the
// score is then skipped, as kube-scheduler's PreScore does).
std::vector<int64_t> pod_affinity_scores(const scoria_session* ssn, const scoria_task* task,
                                         const kube::SessionPodTerms& terms,
                                         std::span<const scoria_node* const> nodes);

}  // namespace nodeorder

#endif  // SCORIA_NODEORDER_POD_AFFINITY_SCORE_H
