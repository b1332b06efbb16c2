// A bucket (Volcano's task-topology Bucket): tasks of one job that should
// land on one node, because their roles attract each other or at least do
// not repel. It counts its roles, its tasks still to place with their summed
// request, and how many of its tasks sit on each node.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace scoria_task_topology {

struct Bucket {
  Bucket(size_t roles, size_t dims) : role_count(roles, 0), request(dims, 0.0) {}

  // Volcano's reqScore, to balance buckets: 1 millicpu, 1 MiB of memory and
  // one milli-unit of any other resource (pods, GPUs, ...) weigh alike.
  static double weigh(std::span<const double> req) {
    double score = 0;
    for (size_t d = 0; d < req.size(); ++d) score += d == 1 ? req[d] / 1024 / 1024 : req[d];
    return score;
  }

  void add_pending(uint32_t slot, std::span<const double> req) {
    pending.push_back(slot);
    for (size_t d = 0; d < request.size() && d < req.size(); ++d) request[d] += req[d];
    req_score += weigh(req);
  }
  void remove_pending(uint32_t slot, std::span<const double> req) {
    const auto it = std::find(pending.begin(), pending.end(), slot);
    if (it == pending.end()) return;
    pending.erase(it);
    for (size_t d = 0; d < request.size() && d < req.size(); ++d) request[d] -= req[d];
    req_score -= weigh(req);
  }
  void add_on_node(uint32_t node, int delta) {
    bound += delta;
    if (node == kNoNode) return;
    if ((on_node[node] += delta) == 0) on_node.erase(node);
  }
  int tasks_on(uint32_t node) const {
    const auto it = on_node.find(node);
    return it == on_node.end() ? 0 : it->second;
  }

  static constexpr uint32_t kNoNode = UINT32_MAX;

  std::vector<int> role_count;    // tasks per role id, placed or not (taskNameSet)
  std::vector<uint32_t> pending;  // task slots still to place, in the order they joined
  std::vector<double> request;    // summed request of `pending`, per dimension
  double req_score = 0;
  int bound = 0;                              // tasks of the bucket on a node
  std::unordered_map<uint32_t, int> on_node;  // node index -> tasks of the bucket on it
};

}  // namespace scoria_task_topology
