// A run over simulated time: the clock advances by schedule_period from
// one session to the next; objects arrive at their time, bound pods run for
// their duration then succeed and free their node, nodes come, go and are
// cordoned, and what a session evicts comes back pending, as its
// controller would recreate it (the same name, its duration from the
// start). A finished job's pods and PodGroup leave the cluster one session
// after it is seen Completed, as a controller's cleanup would.
//
// Sessions that cannot decide anything new are skipped: when a session
// changed nothing (no bind, eviction, pipelining or phase change), or left
// no pod pending, the clock jumps to the first session time at or after
// the next event. A finished job is cleaned up in the session after it was
// seen Completed, whenever that comes. Plugins that judge time alone
// (sla, cdp) are asked again at the next event, not every period.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "cycle/outcome.h"
#include "scheduler/scheduler.h"
#include "simulation/bind_claims.h"
#include "simulation/timeline.h"

namespace scoria::simulation {

struct TimedRunLimits {
  std::optional<int> sessions;      // --cycles
  std::optional<int64_t> until_ms;  // --until, ms from the start
};

struct TimedRunResult {
  int sessions = 0;
  int64_t end_ms = 0;  // ms from the start: the last session, or --until when it ended the run
  std::map<std::string, std::string> binds;  // every bind of the run; the last one wins
  /// What plugins wrote on pods as they were bound (the last bind's).
  std::map<std::string, nlohmann::ordered_json> bind_annotations;
  /// The claims given a volume, a node or devices with their pods' binds.
  BindClaims claims;
  std::set<std::string> evictions;
  std::set<std::string> ungated;  // pods whose queue-allocation gate a session lifted
  cycle::Outcome last;
  /// Every PodGroup a session reported, by key, with its last phase and
  /// unschedulable message (the status's other fields are not kept).
  std::unordered_map<std::string, cycle::Outcome::PodGroupStatus> groups;
  std::vector<std::string> dims;
  nlohmann::ordered_json metrics;
  nlohmann::ordered_json timings = nlohmann::ordered_json::array();  // per session
};

/// Runs `timeline` with `scheduler` until `limits`, or until nothing can
/// change any more (nothing pending can be placed and nothing is due).
TimedRunResult run_timed(scheduler::Scheduler& scheduler, Timeline timeline,
                         const TimedRunLimits& limits, bool timings);

}  // namespace scoria::simulation
