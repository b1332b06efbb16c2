// Hierarchical DRF (Volcano's drf with enableHierarchy): queues name their
// place in a tree with the annotations volcano.sh/hierarchy ("root/eng/ml")
// and volcano.sh/hierarchy-weights ("1/2/8"); every job hangs as a leaf
// under its queue's path. A node's allocation is its children's, each
// unsaturated child scaled to the smallest dominant share among them, so
// that a subtree is judged by what its most modest member would claim; its
// share is the dominant share of that allocation. Queues are ordered by
// walking both paths from the root: an unsaturated node before a saturated
// one, then the lower share per weight.
#ifndef SCORIA_DRF_HIERARCHY_H
#define SCORIA_DRF_HIERARCHY_H

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace drf {

class HierarchyTree {
 public:
  explicit HierarchyTree(std::vector<double> total);

  // Adds job `job` under `path` (the queue's volcano.sh/hierarchy) with
  // the path's `weights`, its allocation and its total request.
  void add_job(size_t job, std::string_view path, std::string_view weights,
               std::span<const double> allocated, std::span<const double> request);
  // Changes a job's allocation by sign * amount and recomputes the shares.
  void change(size_t job, std::span<const double> amount, double sign);
  // Recomputes every share (after add_job calls).
  void update();
  // <0 if the queue at path l should go first, >0 if r, 0 if alike.
  double compare(std::string_view l, std::string_view r) const;

 private:
  struct Node {
    std::string name;
    double weight = 1;
    int32_t parent = -1;
    std::vector<int32_t> children;
    std::vector<double> allocated;
    std::vector<double> request;  // leaves only
    double share = 0;
    bool saturated = false;
    bool leaf = false;
  };

  int32_t child_named(int32_t node, std::string_view name) const;
  double dominant_share(std::span<const double> allocated) const;
  void update(int32_t node, const std::vector<bool>& demanding);

  std::vector<double> total_;
  std::vector<double> total_allocated_;
  std::vector<Node> nodes_;        // nodes_[0] is the root
  std::vector<int32_t> job_leaf_;  // by job index, -1 if none
};

}  // namespace drf

#endif  // SCORIA_DRF_HIERARCHY_H
