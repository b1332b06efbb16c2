// The search of nodes for a task: Volcano's PredicateNodes (the adaptive
// sample from a rotating cursor, in rounds split between threads when a
// round is worth it) and allocate's choice of a node among those that pass
// (idle before releasing, in the shard before outside it, the best scored).
// Answers are read from the task's equivalence class where its plugins
// allow, and a class's best node from its ChoiceIndex; either way the
// answer is the one the calls would give.
//
// The search owns its cursor, its cost estimate and its buffers. Whatever
// else it needs (the tiers' predicates and scores, the equivalence class,
// where fit errors and explanations go) it asks the session through
// NodeSearch::Needs, which lists all of it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "config/scheduler_config.h"
#include "cycle/explanation.h"
#include "session/equivalence_cache.h"
#include "session/records.h"
#include "session/stage_clock.h"

namespace scoria::session {

class WorkerPool;

/// Per-thread buffers of the predicate loop, reused across tasks.
struct PredicateScratch {
  std::vector<const Node*> alive;
  std::vector<size_t> where;
  std::vector<scoria_code> codes;
  std::vector<uint32_t> reasons;
};

class NodeSearch {
 public:
  /// What the search needs of the session it serves.
  class Needs {
   public:
    /// Every predicate (the host's checks with the plugins', and the
    /// resource check with `resources`) of `task` on each of `nodes`, into
    /// pass[i], with reasons[i] why a node is refused. May run on several
    /// threads at once, each with its scratch.
    virtual void evaluate_nodes(const Task& task, bool resources,
                                std::span<const Node* const> nodes, uint8_t* pass,
                                uint32_t* reasons, PredicateScratch& scratch) = 0;
    /// Every score plugin's score on each of `nodes`, summed in tier order
    /// into scores[i] (`parts`: null here).
    virtual void sum_scores(const Task& task, std::span<const Node* const> nodes, double* scores,
                            std::vector<std::vector<double>>* parts) = 0;
    /// The same as a node order asks it: timed, and explained.
    virtual void node_scores(const Task& task, std::span<const Node* const> nodes,
                             double* scores) = 0;
    /// The best of `nodes` by `scores` (a plugin's on_best_node first);
    /// -1 for none.
    virtual int64_t best_node(const Task& task, std::span<const Node* const> nodes,
                              const double* scores) = 0;
    /// The task's equivalence class when its plugins allow answers kept
    /// for `need` (SCORIA_CACHE_PREDICATE, SCORIA_CACHE_NODE_ORDER); null
    /// otherwise.
    virtual EquivalenceCache::Class* cached_class(const Task& task, uint32_t need) = 0;
    /// The task's fit errors after a search that found `fit` nodes passing
    /// among those searched: reasons[k] is why the k-th searched refused.
    virtual void record_fit(Task& task, size_t fit, std::span<const uint32_t> reasons) = 0;
    /// Whether a plugin with predicates runs them on one thread only.
    virtual bool serial_predicates() = 0;
    /// Whether a plugin picks the best node itself (on_best_node).
    virtual bool best_node_hooked() = 0;
    /// Whether `task` is the one being explained.
    virtual bool explaining(const Task& task) const = 0;
    /// When `task` is explained and its predicates are not yet: records
    /// them on every node and returns the explanation, for the search to
    /// mark the nodes it returns; else null.
    virtual cycle::Explanation* explain_search(const Task& task, bool resources) = 0;
    /// Where a stage's times go (null: not timed).
    virtual std::vector<double>* stage_sink(std::vector<double> StageDurations::*stage,
                                            bool when) = 0;
    /// Whether a soft node shard ranks `node` after its working set
    /// (soft_shard(): there is one).
    virtual bool soft_shard() const = 0;
    virtual bool outside_soft_shard(const Node& node) const = 0;

   protected:
    ~Needs() = default;
  };

  NodeSearch(Needs& session, const config::SchedulerConfig& config, WorkerPool* workers)
      : session_(session), config_(config), workers_(workers) {}
  NodeSearch(const NodeSearch&) = delete;
  NodeSearch& operator=(const NodeSearch&) = delete;

  /// The session's nodes (index order), its resource dimensions, and its
  /// equivalence cache (null when off); set once the records are written.
  /// The span is kept: the list must not change while the search serves.
  void open(std::span<const Node* const> all_nodes, size_t dims, EquivalenceCache* equivalence) {
    all_nodes_ = all_nodes;
    dims_ = dims;
    equivalence_ = equivalence;
  }

  /// All predicates over `candidates` from the cursor on, until enough
  /// pass; the nodes that pass into `fit`, in candidate order; returns how
  /// many. Records the task's fit errors.
  size_t predicate_nodes(Task& task, std::span<const Node* const> candidates, bool resources,
                         const Node** fit);

  /// Allocate's choice of a node for `task` among `candidates`
  /// (host_api.session_select_node): predicate_nodes with the resource
  /// check; of the nodes that pass, those where the task fits the idle
  /// resources now, else those where it fits the future idle; among them
  /// node_scores and best_node.
  struct Choice {
    const Node* node = nullptr;
    bool idle = false;
    size_t fit_count = 0;
  };
  Choice select_node(Task& task, std::span<const Node* const> candidates);

  /// The scores of `klass` (the task's class) on `nodes`, from those kept
  /// for the class, asking the session only for the nodes changed since.
  void cached_scores(const Task& task, EquivalenceCache::Class& klass,
                     std::span<const Node* const> nodes, double* scores);

 private:
  // Volcano's search covers at least this many nodes a round.
  static constexpr size_t kSearchRound = 256;
  // How long a round must be expected to take before it is worth splitting
  // between threads (a hand-off costs tens of microseconds).
  static constexpr double kParallelRoundNs = 400'000;

  void chunk(const Task& task, bool resources, size_t begin, size_t end, PredicateScratch& scratch);
  // chunk() from the class's answers, asking only the nodes that changed
  // since they were recorded.
  void cached_predicates(const Task& task, bool resources, EquivalenceCache::Class& klass,
                         size_t begin, size_t end);
  // select_node as the calls it stands for (the plain path), and from the
  // class's ChoiceIndex, with the same answer.
  Choice select_by_calls(Task& task, std::span<const Node* const> candidates);
  Choice select_by_index(Task& task, EquivalenceCache::Class& klass);
  // Brings the class's ChoiceIndex up to the nodes changed since it last
  // looked, asking only those.
  void refresh_choices(const Task& task, EquivalenceCache::Class& klass);
  // Whether the task's resources are idle on the node now (else a node that
  // passed the resource check has them only once releasing ones are free).
  bool fits_idle(const Task& task, const Node& node) const;

  Needs& session_;
  const config::SchedulerConfig& config_;
  WorkerPool* workers_;
  std::span<const Node* const> all_nodes_;
  size_t dims_ = 0;
  EquivalenceCache* equivalence_ = nullptr;
  // Where the next search starts: every node gets its turn, and the
  // rotation is a session counter, so the result stays deterministic.
  size_t cursor_ = 0;
  // Measured cost of one node through every predicate (moving average).
  double ns_per_node_ = 0;
  // A search's nodes in search order, whether each passed and why not.
  std::vector<const Node*> rotated_;
  std::vector<uint8_t> pass_;
  std::vector<uint32_t> reasons_;
  std::vector<size_t> positions_;
  std::vector<PredicateScratch> scratch_;
  // The nodes a cached lookup found stale, with their positions.
  std::vector<const Node*> stale_;
  std::vector<size_t> stale_at_;
  std::vector<uint8_t> stale_pass_;
  std::vector<uint32_t> stale_reasons_;
  std::vector<double> stale_scores_;
  // select_node's buffers: the nodes that passed (refresh_choices: the
  // nodes it asks, and those of them that pass), split by idle and future.
  std::vector<const Node*> choice_nodes_;
  std::vector<const Node*> choice_fitting_;
  // select_by_calls's groups: idle in the shard, idle elsewhere, releasing
  // in the shard, releasing elsewhere.
  std::array<std::vector<const Node*>, 4> choice_groups_;
  std::vector<double> choice_scores_;
};

}  // namespace scoria::session
