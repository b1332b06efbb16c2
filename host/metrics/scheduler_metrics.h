// The service's Prometheus metrics: Volcano's scheduler metrics as HEAD
// exports them (pkg/scheduler/metrics: names, types, labels, buckets and
// help texts, so that existing dashboards and alerts keep working), and
// Scoria's own (scoria_*). One registry, owned here; the HTTP handler asks
// for the text exposition.
//
// Volcano's latencies are milliseconds at HEAD (action and plugin ones
// included, with buckets from 1 ms and 0.1 ms: older releases had
// *_microseconds names). volcano_scheduling_stage_duration_milliseconds
// times the stages as Volcano does, one observation each: a task's node
// search (Predicate) and scoring (Scoring) from the session, and, with the
// Kubernetes source, each pod's volume and claim writes before its binding
// (PreBind) and its binding (Bind); the local store binds a session's pods in
// one transaction, so it times neither. volcano_queue_real_capacity_* shows
// what a plugin reported (capacity, ABI 1.15). Not exported:
// volcano_namespace_share, _weight and _weighted_share (declared by Volcano,
// never updated), and task_scheduling_latency's stages other than Bound
// (Watched, Assumed, PreBound). volcano_schedule_attempts_total is declared
// and never counted by Volcano; Scoria counts it (observe_decisions).
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cycle/outcome.h"
#include "metrics/job_metrics.h"
#include "metrics/queue_metrics.h"
#include "scheduler/scheduler.h"

namespace scoria::metrics {

class SchedulerMetrics {
 public:
  SchedulerMetrics();

  /// Records what a session decided: attempts, unschedulable jobs and
  /// tasks, preemption, and the queues and jobs it saw. Called with the
  /// whole outcome, before a cluster source leaves out what it had already
  /// reported; one call at a time (the session thread).
  void observe_decisions(const cycle::Outcome& outcome, std::chrono::system_clock::time_point now =
                                                            std::chrono::system_clock::now());
  /// Records a finished session's durations.
  void observe_session(const scheduler::SessionTimings& timings);
  /// A plugin's hook failures so far (monotonic; the counter follows it).
  void set_plugin_errors(std::string_view plugin, double total);
  void count_config_reload(bool ok);
  /// A task bound `ms` after it was created (Volcano's
  /// task_scheduling_latency_milliseconds{stage="Bound"}).
  void observe_task_bound(double ms);
  /// Times of a scheduling stage ("PreBind", "Bind"; the session's
  /// "Predicate" and "Scoring" come with observe_session), in ms.
  void observe_stage(std::string_view stage, std::span<const double> ms);
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
  prometheus::Histogram& task_bound_;
  prometheus::Family<prometheus::Histogram>& stage_;
  prometheus::Family<prometheus::Counter>& attempts_;
  prometheus::Gauge& unschedule_jobs_;
  prometheus::Gauge& preemption_victims_;
  prometheus::Counter& preemption_attempts_;
  prometheus::Family<prometheus::Counter>& eviction_transactions_;
  prometheus::Family<prometheus::Counter>& plugin_errors_;
  prometheus::Family<prometheus::Counter>& config_reloads_;
  prometheus::Family<prometheus::Counter>& store_writes_;
  prometheus::Family<prometheus::Gauge>& leader_;
  prometheus::Family<prometheus::Counter>& api_writes_;
  prometheus::Counter& sessions_;
  QueueMetrics queues_;
  JobMetrics jobs_;
};

}  // namespace scoria::metrics
