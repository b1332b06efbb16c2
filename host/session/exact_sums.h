// Whether the sums a session keeps from one session to the next are exact.
//
// A kept record's sums (a node's idle, used, releasing and pipelined; a
// queue's allocated and request) and a kept close's queue sums are kept by
// adding and taking away values as they come and go, never summed again.
// They equal a fresh sum, whatever the order, only while every value summed
// is a whole number and every sum stays below 2^53 (model::kExactSums). This
// is the one place that is noted, as the records are written, and checked:
// SessionMemory keeps records (session_reuse.cpp) and ClosedEntries keeps a
// close's entries (closed_entries.cpp) only while it holds.
//
// The bound: each record's sum adds requests and minResources to at most one
// node's allocatable (a node's idle), never two nodes' together. So the
// requests and minResources are summed, in absolute value, and of the nodes
// only the largest counts. It need not be tight.
#pragma once

#include <algorithm>
#include <cmath>
#include <span>

#include "model/resource.h"

namespace scoria::session {

struct ExactSums {
  bool whole_requests = false;       // every request and allocatable noted is whole
  bool whole_min_resources = false;  // every job's minResources noted is whole
  double request_sum = 0;            // requests and minResources, in absolute value
  double node_alloc_max = 0;         // the largest sum of a node's allocatable values

  /// Nothing noted yet. `noting` false: nothing will be, and nothing is
  /// taken for exact.
  static ExactSums starting(bool noting) {
    ExactSums e;
    e.whole_requests = e.whole_min_resources = noting;
    return e;
  }

  void note_request(std::span<const double> request) {
    whole_requests = whole_requests && model::whole_numbers(request);
    request_sum += magnitude(request);
  }
  void note_min_resources(std::span<const double> min_resources) {
    whole_min_resources = whole_min_resources && model::whole_numbers(min_resources);
    request_sum += magnitude(min_resources);
  }
  void note_allocatable(std::span<const double> allocatable) {
    whole_requests = whole_requests && model::whole_numbers(allocatable);
    node_alloc_max = std::max(node_alloc_max, magnitude(allocatable));
  }

  /// The records' sums, nodes' and queues', are exact.
  bool records_exact() const {
    return whole_requests && request_sum + node_alloc_max < model::kExactSums;
  }
  /// The queue sums a close keeps (requests and minResources) are exact.
  bool queue_sums_exact() const {
    return whole_requests && whole_min_resources && request_sum < model::kExactSums;
  }

 private:
  static double magnitude(std::span<const double> values) {
    double sum = 0;
    for (double v : values) sum += std::fabs(v);
    return sum;
  }
};

}  // namespace scoria::session
