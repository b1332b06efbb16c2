#include "metrics/scheduler_metrics.h"

#include <prometheus/text_serializer.h>

#include <sstream>

namespace scoria::metrics {

namespace {

using prometheus::BuildCounter;
using prometheus::BuildGauge;
using prometheus::BuildHistogram;
using prometheus::Histogram;

// Volcano's buckets for millisecond latencies: 5 ms doubling to ~10 s.
Histogram::BucketBoundaries latency_buckets() {
  Histogram::BucketBoundaries b;
  for (double v = 5; v <= 10240; v *= 2) b.push_back(v);
  return b;
}

}  // namespace

SchedulerMetrics::SchedulerMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      e2e_(BuildHistogram()
               .Name("volcano_e2e_scheduling_latency_milliseconds")
               .Help("Duration of a scheduling session: open, actions, close")
               .Register(*registry_)
               .Add({}, latency_buckets())),
      open_session_(BuildHistogram()
                        .Name("volcano_open_session_duration_milliseconds")
                        .Help("Duration of opening a session (snapshot and plugins)")
                        .Register(*registry_)
                        .Add({}, latency_buckets())),
      action_(BuildHistogram()
                  .Name("volcano_action_scheduling_latency_milliseconds")
                  .Help("Duration of each action in a session")
                  .Register(*registry_)),
      plugin_(BuildHistogram()
                  .Name("volcano_plugin_scheduling_latency_milliseconds")
                  .Help("Duration of each plugin's session open and close callbacks")
                  .Register(*registry_)),
      task_latency_(BuildHistogram()
                        .Name("volcano_task_scheduling_latency_milliseconds")
                        .Help("Time from a task's creation to its bind")
                        .Register(*registry_)
                        .Add({}, latency_buckets())),
      attempts_(BuildCounter()
                    .Name("volcano_schedule_attempts_total")
                    .Help("Pods the scheduler tried to place, by result")
                    .Register(*registry_)),
      unschedule_tasks_(BuildGauge()
                            .Name("volcano_unschedule_task_count")
                            .Help("Tasks that could not be scheduled in the last session")
                            .Register(*registry_)
                            .Add({})),
      unschedule_jobs_(BuildGauge()
                           .Name("volcano_unschedule_job_count")
                           .Help("Jobs that could not be scheduled in the last session")
                           .Register(*registry_)
                           .Add({})),
      queue_allocated_cpu_(BuildGauge()
                               .Name("volcano_queue_allocated_milli_cpu")
                               .Help("CPU allocated to the queue, in millicores")
                               .Register(*registry_)),
      queue_allocated_memory_(BuildGauge()
                                  .Name("volcano_queue_allocated_memory_bytes")
                                  .Help("Memory allocated to the queue, in bytes")
                                  .Register(*registry_)),
      queue_deserved_cpu_(BuildGauge()
                              .Name("volcano_queue_deserved_milli_cpu")
                              .Help("CPU the queue deserves, in millicores")
                              .Register(*registry_)),
      queue_deserved_memory_(BuildGauge()
                                 .Name("volcano_queue_deserved_memory_bytes")
                                 .Help("Memory the queue deserves, in bytes")
                                 .Register(*registry_)),
      plugin_errors_(BuildCounter()
                         .Name("scoria_plugin_errors_total")
                         .Help("Hooks of a plugin that returned SCORIA_ERROR")
                         .Register(*registry_)),
      config_reloads_(BuildCounter()
                          .Name("scoria_config_reloads_total")
                          .Help("Config reloads, by result (success or failure)")
                          .Register(*registry_)),
      store_writes_(BuildCounter()
                        .Name("scoria_store_writes_total")
                        .Help("Objects written to the local store, by operation")
                        .Register(*registry_)),
      leader_(BuildGauge()
                  .Name("leader_election_master_status")
                  .Help("1 while this process leads (holds the Lease named), 0 while it stands by; "
                        "as client-go's leader election reports it")
                  .Register(*registry_)),
      api_writes_(BuildCounter()
                      .Name("scoria_kube_api_writes_total")
                      .Help("Writes to the Kubernetes API server, by kind and result")
                      .Register(*registry_)),
      sessions_(BuildCounter()
                    .Name("scoria_sessions_total")
                    .Help("Scheduling sessions run")
                    .Register(*registry_)
                    .Add({})) {}

void SchedulerMetrics::observe_session(const scheduler::SessionTimings& timings,
                                       const session::Outcome& outcome) {
  sessions_.Increment();
  e2e_.Observe(timings.total_ms);
  open_session_.Observe(timings.open_ms);
  for (const auto& [name, ms] : timings.actions_ms) {
    action_.Add({{"action", name}}, latency_buckets()).Observe(ms);
  }
  for (const auto& p : timings.plugins_ms)
    plugin_.Add({{"plugin", p.plugin}, {"OnSession", p.event}}, latency_buckets()).Observe(p.ms);
  attempts_.Add({{"result", "scheduled"}}).Increment(static_cast<double>(outcome.binds.size()));
  double unschedulable_jobs = 0;
  for (const auto& g : outcome.pod_groups) {
    if (!g.unschedulable.empty()) unschedulable_jobs += 1;
  }
  attempts_.Add({{"result", "unschedulable"}}).Increment(unschedulable_jobs);
  unschedule_jobs_.Set(unschedulable_jobs);
  unschedule_tasks_.Set(static_cast<double>(outcome.unschedulable_tasks));
  const auto at = [&](const std::vector<double>& v, size_t d) { return d < v.size() ? v[d] : 0.0; };
  for (const auto& q : outcome.queues) {
    const prometheus::Labels labels{{"queue_name", q.name}};
    queue_allocated_cpu_.Add(labels).Set(at(q.allocated, SCORIA_DIM_CPU));
    queue_allocated_memory_.Add(labels).Set(at(q.allocated, SCORIA_DIM_MEMORY));
    if (!q.deserved.empty()) {
      queue_deserved_cpu_.Add(labels).Set(at(q.deserved, SCORIA_DIM_CPU));
      queue_deserved_memory_.Add(labels).Set(at(q.deserved, SCORIA_DIM_MEMORY));
    }
  }
}

void SchedulerMetrics::observe_task_bound(double ms) { task_latency_.Observe(ms); }

void SchedulerMetrics::set_plugin_errors(std::string_view plugin, double total) {
  prometheus::Counter& c = plugin_errors_.Add({{"plugin", std::string(plugin)}});
  if (total > c.Value()) c.Increment(total - c.Value());
}

void SchedulerMetrics::count_config_reload(bool ok) {
  config_reloads_.Add({{"result", ok ? "success" : "failure"}}).Increment();
}

void SchedulerMetrics::count_store_writes(std::string_view operation, double objects) {
  store_writes_.Add({{"operation", std::string(operation)}}).Increment(objects);
}

void SchedulerMetrics::set_leader(std::string_view lease, bool leading) {
  leader_.Add({{"name", std::string(lease)}}).Set(leading ? 1 : 0);
}

void SchedulerMetrics::set_api_writes(std::string_view kind, std::string_view result,
                                      double total) {
  auto& counter = api_writes_.Add({{"kind", std::string(kind)}, {"result", std::string(result)}});
  if (total > counter.Value()) counter.Increment(total - counter.Value());
}

std::string SchedulerMetrics::text() const {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, registry_->Collect());
  return out.str();
}

}  // namespace scoria::metrics
