// The service's Prometheus metrics: Volcano's scheduler metric names (so
// that existing dashboards keep working) and Scoria's own. One registry,
// owned here; the HTTP handler asks for the text exposition.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/scheduler.h"
#include "session/session.h"

namespace scoria::metrics {

class SchedulerMetrics {
 public:
  SchedulerMetrics();

  /// Records one finished session: durations, attempts, unschedulable
  /// counts and the queues' allocated and deserved resources.
  void observe_session(const scheduler::SessionTimings& timings, const session::Outcome& outcome);
  /// A plugin's hook failures so far (monotonic; the counter follows it).
  void set_plugin_errors(std::string_view plugin, double total);
  void count_config_reload(bool ok);
  /// A task bound `ms` after it was created (Volcano's task_scheduling_latency).
  void observe_task_bound(double ms);
  void count_store_writes(std::string_view operation, double objects);

  /// Whether this process leads, on the Lease `lease` (leader election).
  void set_leader(std::string_view lease, bool leading);
  /// Writes to the Kubernetes API server so far, by kind (bind, evict,
  /// status, event) and result (ok, failed); monotonic.
  void set_api_writes(std::string_view kind, std::string_view result, double total);

  /// The text exposition format (version 0.0.4).
  std::string text() const;

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Histogram& e2e_;
  prometheus::Histogram& open_session_;
  prometheus::Family<prometheus::Histogram>& action_;
  prometheus::Family<prometheus::Histogram>& plugin_;
  prometheus::Histogram& task_latency_;
  prometheus::Family<prometheus::Counter>& attempts_;
  prometheus::Gauge& unschedule_tasks_;
  prometheus::Gauge& unschedule_jobs_;
  prometheus::Family<prometheus::Gauge>& queue_allocated_cpu_;
  prometheus::Family<prometheus::Gauge>& queue_allocated_memory_;
  prometheus::Family<prometheus::Gauge>& queue_deserved_cpu_;
  prometheus::Family<prometheus::Gauge>& queue_deserved_memory_;
  prometheus::Family<prometheus::Counter>& plugin_errors_;
  prometheus::Family<prometheus::Counter>& config_reloads_;
  prometheus::Family<prometheus::Counter>& store_writes_;
  prometheus::Family<prometheus::Gauge>& leader_;
  prometheus::Family<prometheus::Counter>& api_writes_;
  prometheus::Counter& sessions_;
};

}  // namespace scoria::metrics
