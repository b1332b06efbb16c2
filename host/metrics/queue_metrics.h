// Volcano's queue metrics (pkg/scheduler/metrics/queue.go, and the
// controller's queue_pod_group_*_count), from each session's outcome:
// allocated, request, deserved, capacity, real capacity and inqueue
// resources (cpu in millicores, memory in bytes, extended resources in
// milli-units, as Volcano's Resource keeps them), share, weight, overused,
// and PodGroups by phase. A queue's series go when the queue goes. The real
// capacity is what a plugin reported (capacity, through
// session_queue_set_real_capability), no limit as +Inf.
#pragma once

#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <map>
#include <string>
#include <vector>

#include "cycle/outcome.h"

namespace scoria::metrics {

class QueueMetrics {
 public:
  explicit QueueMetrics(prometheus::Registry& registry);
  /// `dims` name the outcome's resource vectors.
  void observe(const cycle::Outcome& outcome, const std::vector<std::string>& dims);

 private:
  // One resource family: _milli_cpu, _memory_bytes and _scalar_resources.
  struct Resources {
    prometheus::Family<prometheus::Gauge>& cpu;
    prometheus::Family<prometheus::Gauge>& memory;
    prometheus::Family<prometheus::Gauge>& scalar;
  };
  static Resources resources(prometheus::Registry& registry, const std::string& what,
                             const std::string& help);
  void set(Resources& family, const std::string& queue, const std::vector<double>& values,
           const std::vector<std::string>& dims);
  void forget(const std::string& queue);

  Resources allocated_, request_, deserved_, capacity_, real_capacity_, inqueue_;
  prometheus::Family<prometheus::Gauge>& share_;
  prometheus::Family<prometheus::Gauge>& weight_;
  prometheus::Family<prometheus::Gauge>& overused_;
  std::map<std::string, prometheus::Family<prometheus::Gauge>*> pod_groups_;  // by phase
  // Scalar resources each queue has shown, so that one gone reads 0.
  std::map<std::string, std::vector<std::string>> scalars_;
  std::map<std::string, bool> live_;  // queues with series, and whether seen now
};

}  // namespace scoria::metrics
