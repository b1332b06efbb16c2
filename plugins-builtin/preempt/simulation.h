// Volcano's SelectVictimsOnNode, the heart of topology-aware preemption:
// on one node, which of the permitted victims must go for the preemptor to
// fit, asked of a hypothetical state rather than by evicting.
#ifndef SCORIA_PLUGINS_PREEMPT_SIMULATION_H
#define SCORIA_PLUGINS_PREEMPT_SIMULATION_H

#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <span>
#include <vector>

namespace preempt {

// Who asks: the preemptor, its queue (null: not checked) and what it needs
// to start.
struct Asker {
  scoria_session* ssn;
  const scoria_task* task;
  const scoria_queue* queue;
  scoria::ResourceView need;
};

// Whether the preemptor fits `node` once the tasks of `gone` are gone
// (Volcano's SimulateAllocatable, the future-idle check and
// SimulatePredicate after SimulateRemoveTask of each): its queue may take
// it, its init request fits the node's future idle, and every predicate
// passes with `gone` off their nodes.
bool fits_without(const Asker& a, const scoria_node* node,
                  std::span<const scoria_task* const> gone);

// The victims the preemptor needs on `node`, from `permitted` (those the
// plugins let it evict there, first to evict first, which together make
// enough room): they are taken away in that order until it fits, or all
// are; then each is tried back, the last taken first, and stays back if
// the preemptor still fits. The result is in that trying order (highest
// first, as Volcano's candidate victims are); empty when the preemptor
// does not fit even with every permitted victim gone.
std::vector<const scoria_task*> select_victims_on_node(
    const Asker& a, const scoria_node* node, std::span<const scoria_task* const> permitted);

}  // namespace preempt

#endif  // SCORIA_PLUGINS_PREEMPT_SIMULATION_H
