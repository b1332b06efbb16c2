#include "metrics/scheduler_metrics.h"

#include <prometheus/text_serializer.h>

#include <sstream>

#include "metrics/buckets.h"

namespace scoria::metrics {

namespace {

using prometheus::BuildCounter;
using prometheus::BuildGauge;
using prometheus::BuildHistogram;

// Volcano's buckets (ExponentialBucketsRange) for each latency.
const prometheus::Histogram::BucketBoundaries& session_buckets() {
  static const auto b = boundaries(kSessionBuckets);
  return b;
}
const prometheus::Histogram::BucketBoundaries& action_buckets() {
  static const auto b = boundaries(kActionBuckets);
  return b;
}
const prometheus::Histogram::BucketBoundaries& stage_buckets() {
  static const auto b = boundaries(kStageBuckets);
  return b;
}
const prometheus::Histogram::BucketBoundaries& plugin_buckets() {
  static const auto b = boundaries(kPluginBuckets);
  return b;
}

bool eviction_action(std::string_view action) {
  return action == "preempt" || action == "reclaim" || action == "gangpreempt" ||
         action == "gangreclaim";
}

}  // namespace

SchedulerMetrics::SchedulerMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      e2e_(BuildHistogram()
               .Name("volcano_e2e_scheduling_latency_milliseconds")
               .Help("Duration of a single scheduling session execution in milliseconds. It covers "
                     "the entire cycle from session open, action executions to session close.")
               .Register(*registry_)
               .Add({}, session_buckets())),
      open_session_(BuildHistogram()
                        .Name("volcano_open_session_duration_milliseconds")
                        .Help("Duration of opening a scheduling session in milliseconds, including "
                              "cache snapshot and session initialization.")
                        .Register(*registry_)
                        .Add({}, session_buckets())),
      action_(BuildHistogram()
                  .Name("volcano_action_scheduling_latency_milliseconds")
                  .Help("Action scheduling latency in milliseconds")
                  .Register(*registry_)),
      plugin_(BuildHistogram()
                  .Name("volcano_plugin_scheduling_latency_milliseconds")
                  .Help("Plugin scheduling latency in milliseconds")
                  .Register(*registry_)),
      task_bound_(BuildHistogram()
                      .Name("volcano_task_scheduling_latency_milliseconds")
                      .Help("Task scheduling latency from creation to various stages in "
                            "milliseconds")
                      .Register(*registry_)
                      .Add({{"stage", "Bound"}}, boundaries(kTaskBuckets))),
      stage_(BuildHistogram()
                 .Name("volcano_scheduling_stage_duration_milliseconds")
                 .Help("Duration of per-task scheduling stages (Predicate, Scoring, PreBind, Bind) "
                       "in milliseconds")
                 .Register(*registry_)),
      attempts_(BuildCounter()
                    .Name("volcano_schedule_attempts_total")
                    .Help("Number of attempts to schedule pods, by the result. 'unschedulable' "
                          "means a pod could not be scheduled, while 'error' means an internal "
                          "scheduler problem.")
                    .Register(*registry_)),
      unschedule_jobs_(BuildGauge()
                           .Name("volcano_unschedule_job_count")
                           .Help("Number of jobs could not be scheduled")
                           .Register(*registry_)
                           .Add({})),
      preemption_victims_(BuildGauge()
                              .Name("volcano_pod_preemption_victims")
                              .Help("Number of selected preemption victims")
                              .Register(*registry_)
                              .Add({})),
      preemption_attempts_(BuildCounter()
                               .Name("volcano_total_preemption_attempts")
                               .Help("Total preemption attempts in the cluster till now")
                               .Register(*registry_)
                               .Add({})),
      eviction_transactions_(BuildCounter()
                                 .Name("volcano_eviction_transactions_total")
                                 .Help("Total number of committed eviction transactions, by action")
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
                    .Add({})),
      queues_(*registry_),
      jobs_(*registry_) {}

void SchedulerMetrics::observe_session(const scheduler::SessionTimings& timings) {
  sessions_.Increment();
  e2e_.Observe(timings.total_ms);
  open_session_.Observe(timings.open_ms);
  for (const auto& [name, ms] : timings.actions_ms)
    action_.Add({{"action", name}}, action_buckets()).Observe(ms);
  for (const auto& p : timings.plugins_ms)
    plugin_.Add({{"plugin", p.plugin}, {"OnSession", p.event}}, plugin_buckets()).Observe(p.ms);
  observe_stage("Predicate", timings.predicate_ms);
  observe_stage("Scoring", timings.scoring_ms);
}

void SchedulerMetrics::observe_stage(std::string_view stage, std::span<const double> ms) {
  if (ms.empty()) return;
  // One look-up of the series for a session's thousands of times.
  prometheus::Histogram& h = stage_.Add({{"stage", std::string(stage)}}, stage_buckets());
  for (const double t : ms) h.Observe(t);
}

void SchedulerMetrics::observe_decisions(const cycle::Outcome& outcome,
                                         std::chrono::system_clock::time_point now) {
  // Volcano registers this family and counts nothing in it at HEAD; Scoria
  // counts pods bound and pending tasks of unschedulable jobs per session.
  attempts_.Add({{"result", "scheduled"}}).Increment(static_cast<double>(outcome.binds.size()));
  attempts_.Add({{"result", "unschedulable"}})
      .Increment(static_cast<double>(outcome.unschedulable_tasks));
  double unschedulable_jobs = 0;
  for (const auto& g : outcome.pod_groups)
    if (!g.unschedulable.empty()) unschedulable_jobs += 1;
  unschedule_jobs_.Set(unschedulable_jobs);
  if (outcome.preemption_victims)
    preemption_victims_.Set(static_cast<double>(*outcome.preemption_victims));
  preemption_attempts_.Increment(static_cast<double>(outcome.preemption_attempts));
  for (const auto& [action, count] : outcome.eviction_transactions)
    if (eviction_action(action))
      eviction_transactions_.Add({{"action", action}}).Increment(static_cast<double>(count));
  queues_.observe(outcome, outcome.dims);
  jobs_.observe(outcome, now);
}

void SchedulerMetrics::observe_task_bound(double ms) { task_bound_.Observe(ms); }

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
