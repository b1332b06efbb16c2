// What a timed run measures (issue: what-if simulation over time): per job
// its wait (arrival until minMember of its pods are bound) and completion
// (arrival until its last pod succeeds); per queue the waits' percentiles
// and its allocated share over time against its deserved one; the
// cluster's utilisation and fragmentation per resource over time;
// evictions; and Jain's fairness index over the queues.
//
// Series are step functions: a sample holds until the next one. Sessions
// the run skips (nothing changed) change nothing, so nothing is lost.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "cycle/outcome.h"
#include "cycle/snapshot.h"
#include "simulation/snapshot_tally.h"

namespace scoria::simulation {

class RunMetrics {
 public:
  explicit RunMetrics(std::vector<std::string> dims) : dims_(std::move(dims)) {}

  /// A job ("ns/name" of its PodGroup, or of its pod when it has none)
  /// with `pods` pods, the first of which arrived at `arrival_ms`.
  void add_job(const std::string& key, const std::string& queue, int32_t min_member, int32_t pods,
               int64_t arrival_ms);
  /// A pod of `job` was bound at `t_ms`; one bound earlier was lost
  /// (evicted, or its node removed); one succeeded.
  void bound(const std::string& job, int64_t t_ms);
  void lost(const std::string& job, bool node_removed);
  void succeeded(const std::string& job, int64_t t_ms);
  /// Whether every pod of `job` has succeeded.
  bool done(const std::string& job) const;

  /// The state after the session at `t_ms` (ms from start): the session's
  /// snapshot and its outcome (binds applied on top of the snapshot).
  /// Returns how many tasks of schedulable jobs are still pending (neither
  /// bound nor pipelined).
  size_t sample(int64_t t_ms, const cycle::Snapshot& snapshot, const cycle::Outcome& outcome);
  /// Evictions by action, counted as they happen.
  void evicted(const cycle::Outcome& outcome);

  /// The metrics as JSON (the "metrics" key of simulate's output); series
  /// are averaged into at most `points` buckets over [0, end_ms].
  /// Also "occupancy": each node's (or band of nodes') occupancy over time.
  /// Call once, at the end.
  nlohmann::ordered_json to_json(int64_t end_ms, size_t points = 200);

 private:
  struct Job {
    std::string queue;
    int32_t min_member = 1;
    int32_t pods = 0;
    int64_t arrival_ms = 0;
    int32_t running = 0;
    int32_t succeeded = 0;
    std::optional<int64_t> ready_ms;
    std::optional<int64_t> done_ms;
  };
  // One sample's values sit in values_ from `at`: used, capacity,
  // fragmented and free (`dims` each), then each of its queues' allocated
  // and deserved (`dims` each). Flat, because a week-long run takes a
  // sample per session, 170,000 of them.
  enum Field : size_t { kUsed, kCapacity, kFragmented, kFree, kFields };
  struct Sample {
    int64_t t_ms;
    size_t at;             // in values_
    uint32_t dims;         // dims_ may grow later: what lies past reads 0
    uint32_t first_queue;  // its queues' ids in sample_queues_
    uint32_t queues;
  };
  double value(const Sample& s, Field f, size_t d) const {
    return d < s.dims ? values_[s.at + f * s.dims + d] : 0.0;
  }
  /// Queue `q`'s position among `s`'s queues, if it has it.
  std::optional<size_t> queue_in(const Sample& s, uint32_t q) const;
  /// Allocated (or deserved) of the queue at `position` in `s`.
  double queue_value(const Sample& s, size_t position, bool deserved, size_t d) const {
    return d < s.dims ? values_[s.at + (kFields + 2 * position + deserved) * s.dims + d] : 0.0;
  }

  std::vector<std::string> dims_;
  std::map<std::string, Job> jobs_;
  std::vector<Sample> samples_;
  std::vector<double> values_;
  std::vector<uint32_t> sample_queues_;
  std::vector<std::string> queue_names_;  // by id
  std::unordered_map<std::string, uint32_t> queue_ids_;
  // sample()'s buffers, kept between sessions.
  SnapshotTally tally_;
  std::vector<double> used_;
  std::vector<size_t> placed_now_;             // snapshot tasks the session bound or pipelined
  std::map<std::string, uint64_t> evictions_;  // by action
  uint64_t evicted_pods_ = 0;
  uint64_t node_removal_losses_ = 0;  // pods whose node left under them

  // Each node's occupancy (its dominant share: the largest of used over
  // allocatable across cpu, memory and extended resources) over time, as
  // integrals over bins of bin_ms_ from zero; the bins double in width
  // whenever there would be more than kMaxBins, so memory stays bounded
  // however long the run.
  static constexpr size_t kMaxBins = 1024;
  /// Doubles the bins' width until [0, until_ms) takes at most kMaxBins.
  void fit_bins(int64_t until_ms);
  /// Adds row `r`'s occupancy from where it was integrated until `until_ms`.
  void integrate_row(size_t r, int64_t until_ms);
  /// Row `r`'s occupancy is `v` from `t_ms` on (its row integrated only
  /// when it changes: most nodes hold the same over many sessions).
  void set_occupancy(size_t r, float v, int64_t t_ms);
  nlohmann::ordered_json occupancy_json(int64_t end_ms, size_t points);
  std::unordered_map<std::string, size_t> node_row_;
  std::vector<std::string> node_names_;
  // The last snapshot's nodes: each one's row, and each row's position in
  // it (-1: absent). Most sessions see the same nodes, found again without
  // a lookup by name.
  std::vector<size_t> row_of_;
  std::vector<int64_t> position_of_row_;
  /// Maps the snapshot's nodes to rows; whether they changed.
  bool map_nodes(const cycle::Snapshot& snapshot);
  std::vector<std::vector<double>> occupancy_;  // by row, by bin
  std::vector<float> occupancy_now_;            // by row: the value since occupancy_since_
  std::vector<int64_t> occupancy_since_;        // by row: integrated until then
  int64_t occupancy_from_ = 0;                  // the last sample's time
  int64_t bin_ms_ = 1000;
};

}  // namespace scoria::simulation
