// What the tasks of a snapshot occupy on each node: the requests of those
// allocated, binding, bound, running or releasing there, summed by node.
// A timed run reads it after every session (RunMetrics::sample); summed
// anew, it reads every task's request, most of them out of cache. Over the
// refreshes of one kept snapshot (Snapshot::changes) only the jobs taken
// out, written again or arrived are read: exact while every value summed
// is a whole number below 2^53 (the same in any order), else summed anew
// each time.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "session/session.h"

namespace scoria::simulation {

class OccupiedSums {
 public:
  /// Brings the sums to `snapshot`, `dims` values per node.
  void update(const session::Snapshot& snapshot, size_t dims);
  /// Node after node, `dims` values each.
  std::span<const double> used() const { return used_; }
  /// Whether the last update kept the sums (else it summed anew).
  bool kept() const { return kept_; }

 private:
  // What one snapshot task holds: its node (-1: none) and its request.
  struct Held {
    int32_t node = -1;
    const double* resreq = nullptr;
  };
  void sum_anew(const session::Snapshot& snapshot);
  bool follows(const session::Snapshot& snapshot) const;
  void take_out(const std::vector<uint32_t>& removed);
  // Notes what task `in` holds into `held`, adding it to the sums.
  void hold(Held& held, const session::Snapshot::TaskIn& in);
  void add(const Held& held, double sign);

  size_t dims_ = 0;
  std::vector<double> used_;
  std::vector<Held> held_;           // by snapshot task
  std::vector<uint32_t> job_tasks_;  // by snapshot job: how many tasks it has
  std::vector<uint32_t> firsts_;     // update's scratch: each job's first task
  uint64_t writer_ = 0, version_ = 0, layout_ = 0;
  bool exact_ = false;  // every value summed whole, and their sum below 2^53
  bool kept_ = false;
  double bound_ = 0;  // the sum of every value added, in absolute value
};

}  // namespace scoria::simulation
