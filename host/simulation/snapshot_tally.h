// What the tasks of a snapshot hold and which of them wait: the requests
// of those allocated, binding, bound, running or releasing on a node,
// summed by node, and the pending tasks of jobs the cache can schedule.
// A timed run reads it after every session (RunMetrics::sample); taken
// anew, it reads every task and its request, most of them out of cache.
// Over the refreshes of one kept snapshot (Snapshot::changes) only the
// jobs taken out, written again or arrived are read: exact while every
// value summed is a whole number below 2^53 (the same in any order), else
// taken anew each time.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cycle/snapshot.h"

namespace scoria::simulation {

class SnapshotTally {
 public:
  /// Brings the sums to `snapshot`, `dims` values per node.
  void update(const cycle::Snapshot& snapshot, size_t dims);
  /// Node after node, `dims` values each.
  std::span<const double> used() const { return used_; }
  /// How many tasks wait, and whether the snapshot's task `i` does.
  size_t waiting() const { return waiting_; }
  bool waits(size_t i) const { return i < held_.size() && held_[i].waits; }
  /// Whether the last update kept the sums (else it summed anew).
  bool kept() const { return kept_; }

 private:
  // What one snapshot task holds: its node (-1: none) and its request;
  // whether it waits.
  struct Held {
    int32_t node = -1;
    bool waits = false;
    const double* resreq = nullptr;
  };
  void sum_anew(const cycle::Snapshot& snapshot);
  bool follows(const cycle::Snapshot& snapshot) const;
  void take_out(const std::vector<uint32_t>& removed);
  // Notes what task `in` of a job `valid` or not holds into `held`, adding
  // it to the sums; takes what `held` held off them.
  void hold(Held& held, const cycle::Snapshot::TaskIn& in, bool valid);
  void drop(const Held& held);
  void add(const Held& held, double sign);

  size_t dims_ = 0;
  std::vector<double> used_;
  size_t waiting_ = 0;
  std::vector<Held> held_;           // by snapshot task
  std::vector<uint32_t> job_tasks_;  // by snapshot job: how many tasks it has
  std::vector<uint32_t> firsts_;     // update's scratch: each job's first task
  uint64_t writer_ = 0, version_ = 0, layout_ = 0;
  bool exact_ = false;  // every value summed whole, and their sum below 2^53
  bool kept_ = false;
  double bound_ = 0;  // the sum of every value added, in absolute value
};

}  // namespace scoria::simulation
