#include "simulation.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace preempt {

namespace {

using scoria::api;

bool predicate_passes(const Asker& a, const scoria_node* node,
                      std::span<const scoria_task* const> gone) {
  uint32_t reason = 0;
  return api().session_predicate_without(a.ssn, a.task, node, gone.data(), gone.size(), &reason) ==
         SCORIA_OK;
}

}  // namespace

bool fits_without(const Asker& a, const scoria_node* node,
                  std::span<const scoria_task* const> gone) {
  // Evicted in a statement that is always discarded: the queue's share (the
  // plugins' on_deallocate) and the node's future idle then count them as
  // freed, as Volcano's SimulateRemoveTask does. A Releasing task still
  // counts for other pods' rules, so the predicates are asked with `gone`
  // off their nodes instead.
  scoria::Statement stmt(a.ssn);
  if (!stmt) return false;
  for (const scoria_task* task : gone) {
    if (api().statement_evict(stmt.get(), task, scoria::str("preempt")) != SCORIA_OK) return false;
  }
  if (a.queue != nullptr && api().session_allocatable(a.ssn, a.queue, a.task) == 0) return false;
  const scoria_node_info ni = scoria::info(node);
  if (ni.idle == nullptr || ni.releasing == nullptr || ni.pipelined == nullptr) return false;
  for (size_t d = 0; d < a.need.size(); ++d) {
    const double room = ni.idle[d] + ni.releasing[d] - ni.pipelined[d];
    if (!(a.need[d] < room || std::fabs(a.need[d] - room) < SCORIA_RESOURCE_EPSILON)) return false;
  }
  return predicate_passes(a, node, gone);
}

std::vector<const scoria_task*> select_victims_on_node(
    const Asker& a, const scoria_node* node, std::span<const scoria_task* const> permitted) {
  // Take victims away, first to evict first, until the preemptor fits.
  std::vector<const scoria_task*> potential;
  for (const scoria_task* task : permitted) {
    potential.push_back(task);
    if (fits_without(a, node, potential)) break;
  }
  // Not even all of them make the predicates pass. (Resources were checked
  // for all of them together before; the queue is asked again below.)
  if (potential.empty() || !predicate_passes(a, node, potential)) return {};

  // Try them back, the last taken first (the highest priority first): one
  // whose return keeps the fit is spared.
  std::reverse(potential.begin(), potential.end());
  std::vector<const scoria_task*> victims;
  std::vector<const scoria_task*> gone;
  for (size_t i = 0; i < potential.size(); ++i) {
    gone.assign(victims.begin(), victims.end());
    gone.insert(gone.end(), potential.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                potential.end());
    if (!fits_without(a, node, gone)) victims.push_back(potential[i]);
  }
  return victims;
}

}  // namespace preempt
