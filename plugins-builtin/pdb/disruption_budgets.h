// The session's PodDisruptionBudgets as the pdb plugin weighs them: whom
// each selects, the pods it has already let go (status.disruptedPods), and
// how many more it allows to be disrupted. That number is the disruption
// controller's status.disruptionsAllowed where the cluster has one (a
// Kubernetes API server); where no controller wrote a status (object
// files, the local store) it is computed from the session's pods as that
// controller computes it.
#ifndef SCORIA_PDB_DISRUPTION_BUDGETS_H
#define SCORIA_PDB_DISRUPTION_BUDGETS_H

#include <scoria/scoria.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "label_selector.h"

namespace pdb {

/// minAvailable or maxUnavailable: a number of pods, or a percentage.
struct IntOrPercent {
  int64_t value = 0;
  bool percent = false;
  /// Of `total` pods, rounded up as the disruption controller rounds.
  int64_t of(int64_t total) const { return percent ? (value * total + 99) / 100 : value; }
};

struct Budget {
  std::string namespace_;
  std::string name;
  kube::LabelSelector selector;
  std::optional<IntOrPercent> min_available, max_unavailable;
  // status.disruptedPods: pod name -> when it was evicted (ms since the
  // epoch).
  std::map<std::string, int64_t, std::less<>> disrupted;
  bool has_status = false;  // status.disruptionsAllowed was written
  int64_t allowed = 0;      // disruptions allowed when the session opened
  int64_t evicted = 0;      // its pods this session has evicted since

  std::string uid() const { return namespace_ + "/" + name; }
};

/// What the disruption controller would write for `b` over the pods it
/// selects: `expected` of them, `healthy` running (kube's
/// getExpectedPodCount, with every pod counted as its controller's, and
/// trySync: no disruptions while none are expected).
int64_t computed_allowed(const Budget& b, int64_t expected, int64_t healthy);

/// Every PodDisruptionBudget of a session, with the pods each selects
/// found through the SDK. Read at session open; the session thread's alone.
class SessionBudgets {
 public:
  explicit SessionBudgets(const scoria_session* ssn);

  bool empty() const { return budgets_.empty(); }
  size_t size() const { return budgets_.size(); }

  /// Volcano's pdb filter: selected[i] = 1 for each candidate whose
  /// eviction takes no budget below what it allows. Candidates are weighed
  /// in order, each taking one disruption from every budget that selects it
  /// and does not list it as disrupted already. A pod with no labels is no
  /// victim at all, as in Volcano's filter.
  void filter(const scoria_task* const* candidates, size_t count, uint8_t* selected);

  /// A pod was evicted in this session (`delta` 1), or that was undone (-1):
  /// every budget that selects it has that many disruptions fewer to give.
  void count_eviction(const scoria_task* task, int delta);

 private:
  void read(const scoria_session* ssn);
  void compute_missing(const scoria_session* ssn);
  /// The budgets that select `task`, a pod of namespace `ns` named `name`.
  template <class F>
  void each_selecting(const scoria_task* task, std::string_view ns, F&& f);
  bool unlabelled(const scoria_task* task, uint32_t index);

  std::vector<Budget> budgets_;
  std::unordered_map<std::string, std::vector<size_t>> by_namespace_;
  std::unordered_map<uint32_t, bool> unlabelled_;  // by task index
  int64_t now_ms_ = 0;
};

}  // namespace pdb

#endif  // SCORIA_PDB_DISRUPTION_BUDGETS_H
