// Why one task went where it went (or nowhere): for every node, each
// plugin's predicate answer and reason; for the nodes the allocating action
// scored, each plugin's score and the total; the node chosen and why every
// other node lost. Recorded only for the task asked about (`scoria simulate
// --explain`, the service's explain endpoint), the first time an action
// examines it in the session; a session not asked records nothing.
#pragma once

#include <scoria/scoria.h>

#include <string>
#include <utility>
#include <vector>

namespace scoria::cycle {

struct Explanation {
  std::string task;  // "ns/name", as asked
  bool found = false;
  std::string job, queue;
  std::string action;  // the action that examined it; empty if none did

  bool check_resources = false;  // the action also required init_resreq <= future idle
  size_t examined = 0;           // feasible nodes the search returned (adaptive sampling)

  struct PredicateAnswer {
    std::string plugin;
    scoria_code code = SCORIA_OK;  // OK, UNSCHEDULABLE or UNSCHEDULABLE_AND_UNRESOLVABLE
    std::string reason;            // empty when it passed
  };
  struct Score {
    std::string plugin;
    double score = 0;  // as the plugin returned it (its weights applied); 0 if not counted
  };
  struct NodeRow {
    std::string name;
    std::string resources;  // why the task does not fit its future idle; empty if it does
    std::vector<PredicateAnswer> predicates;  // every predicate plugin, tier order
    bool fits = false;                        // resources (when checked) and every predicate
    bool examined = false;                    // among the feasible nodes the search returned
    bool scored = false;
    std::vector<Score> scores;  // every scoring plugin, tier order (when scored)
    double total = 0;
    std::string result;  // why it won or lost, settled at close
  };
  std::vector<NodeRow> nodes;  // session node order

  /// Each scoring plugin's weight arguments as configured (defaults
  /// included): the arguments whose name ends in "weight".
  struct Weights {
    std::string plugin;
    std::vector<std::pair<std::string, std::string>> arguments;
  };
  std::vector<Weights> weights;

  std::string chosen;     // the node the action picked; empty if none
  std::string chosen_by;  // plugin whose best-node hook picked it; empty: highest total
  std::string outcome;    // where the task ended the session, or why it is not placed

  // Which parts are recorded (the first examination only).
  bool predicates_done = false, scores_done = false, best_done = false;

  /// Fills each row's result from what was recorded, once the session's
  /// `outcome` is known.
  void settle();
};

}  // namespace scoria::cycle
