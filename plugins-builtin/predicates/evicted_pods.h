// The pods this session's statements have evicted. Volcano's predicates
// plugin takes a pod off its node view when the pod is deallocated, which an
// eviction does (Statement.Evict fires DeallocateFunc), and puts it back
// when the eviction is undone (AllocateFunc): the victims of a preemption
// free the node's pod count, host ports and anti-affinity at once. A pod
// already terminating when the session opened is still in that view, so
// "Releasing" alone does not say a pod is gone.
#ifndef SCORIA_PREDICATES_EVICTED_PODS_H
#define SCORIA_PREDICATES_EVICTED_PODS_H

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace predicates {

class EvictedPods {
 public:
  /// Task `task` (scoria_task_info.index) on node `node`
  /// (scoria_node_info.index) was evicted.
  void evicted(uint32_t task, uint32_t node);
  /// An eviction of `task` was undone; a task not evicted is ignored.
  void restored(uint32_t task);
  bool contains(uint32_t task) const { return node_of_.contains(task); }
  /// How many pods evicted from `node` this session.
  uint32_t on_node(uint32_t node) const { return node < per_node_.size() ? per_node_[node] : 0; }
  bool empty() const { return node_of_.empty(); }
  void clear();

 private:
  std::unordered_map<uint32_t, uint32_t> node_of_;  // task -> node
  std::vector<uint32_t> per_node_;                  // by node index
};

}  // namespace predicates

#endif  // SCORIA_PREDICATES_EVICTED_PODS_H
