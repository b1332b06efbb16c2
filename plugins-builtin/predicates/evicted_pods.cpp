#include "evicted_pods.h"

namespace predicates {

void EvictedPods::evicted(uint32_t task, uint32_t node) {
  if (!node_of_.emplace(task, node).second) return;
  if (per_node_.size() <= node) per_node_.resize(node + 1, 0);
  ++per_node_[node];
}

void EvictedPods::restored(uint32_t task) {
  const auto it = node_of_.find(task);
  if (it == node_of_.end()) return;
  --per_node_[it->second];
  node_of_.erase(it);
}

void EvictedPods::clear() {
  node_of_.clear();
  per_node_.clear();
}

}  // namespace predicates
