#include "metrics/job_metrics.h"

#include <algorithm>
#include <cmath>

#include "metrics/buckets.h"

namespace scoria::metrics {

namespace {

using prometheus::BuildCounter;
using prometheus::BuildGauge;
using prometheus::BuildHistogram;

double unix_seconds(std::chrono::system_clock::time_point t) {
  return static_cast<double>(
      std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count());
}

}  // namespace

JobMetrics::JobMetrics(prometheus::Registry& registry)
    : unschedule_(BuildGauge()
                      .Name("volcano_unschedule_task_count")
                      .Help("Number of tasks could not be scheduled")
                      .Register(registry)),
      retries_(BuildCounter()
                   .Name("volcano_job_retry_counts")
                   .Help("Number of retry counts for one job")
                   .Register(registry)),
      duration_(BuildGauge()
                    .Name("volcano_e2e_job_scheduling_duration")
                    .Help("Per-job duration from job creation to last task assumed in scheduler "
                          "cache, in milliseconds")
                    .Register(registry)),
      start_(BuildGauge()
                 .Name("volcano_e2e_job_scheduling_start_time")
                 .Help("E2E job scheduling start time")
                 .Register(registry)),
      last_(BuildGauge()
                .Name("volcano_e2e_job_scheduling_last_time")
                .Help("E2E job scheduling last time")
                .Register(registry)),
      share_(BuildGauge().Name("volcano_job_share").Help("Share for one job").Register(registry)),
      latency_(BuildHistogram()
                   .Name("volcano_e2e_job_scheduling_latency_milliseconds")
                   .Help("End-to-end job scheduling latency in milliseconds (histogram of per-job "
                         "duration from creation to last task assumed)")
                   .Register(registry)
                   .Add({}, boundaries(kJobBuckets))) {}

void JobMetrics::observe(const cycle::Outcome& outcome, std::chrono::system_clock::time_point now) {
  ++session_;
  const double now_ms = static_cast<double>(
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count());
  for (const auto& g : outcome.pod_groups) {
    if (g.key.empty()) continue;
    auto it = jobs_.find(g.key);
    const bool counted = g.unready > 0 || g.placed > 0;
    if (it == jobs_.end()) {
      if (!counted && g.share < 0) continue;
      const size_t slash = g.key.find('/');
      Series s;
      s.ns = g.key.substr(0, slash);
      s.name = g.key.substr(slash + 1);
      s.queue = g.queue;
      it = jobs_.emplace(g.key, std::move(s)).first;
    }
    Series& s = it->second;
    s.seen = session_;
    if (s.unschedule == nullptr && counted) {
      // Volcano labels unschedule_task_count and retries with the job's
      // name alone.
      s.unschedule = &unschedule_.Add({{"job_id", s.name}});
      s.retries = &retries_.Add({{"job_id", s.name}});
      const prometheus::Labels job{
          {"job_name", s.name}, {"queue", s.queue}, {"job_namespace", s.ns}};
      s.start = &start_.Add(job);
      s.start->Set(std::floor(static_cast<double>(g.creation_ms) / 1000));
    }
    if (s.unschedule != nullptr) {
      s.unschedule->Set(g.unready);
      if (g.unready > 0) s.retries->Increment();
    }
    if (g.share >= 0) {
      if (s.share == nullptr) s.share = &share_.Add({{"job_ns", s.ns}, {"job_id", s.name}});
      s.share->Set(g.share);
    } else if (s.share != nullptr) {
      share_.Remove(s.share);
      s.share = nullptr;
    }
    // Without its creation time a job's latency is unknown, not a very long one.
    if (g.placed > 0 && g.creation_ms > 0) {
      const prometheus::Labels job{
          {"job_name", s.name}, {"queue", s.queue}, {"job_namespace", s.ns}};
      if (s.duration == nullptr) s.duration = &duration_.Add(job);
      if (s.last == nullptr) s.last = &last_.Add(job);
      const double ms = std::max(0.0, now_ms - static_cast<double>(g.creation_ms));
      s.duration->Set(ms);
      s.last->Set(unix_seconds(now));
      // Volcano observes once per task it places.
      for (int32_t i = 0; i < g.placed; ++i) latency_.Observe(ms);
    }
  }
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    if (it->second.seen == session_) {
      ++it;
      continue;
    }
    forget(it->second);
    it = jobs_.erase(it);
  }
}

void JobMetrics::forget(Series& s) {
  if (s.unschedule != nullptr) {
    unschedule_.Remove(s.unschedule);
    retries_.Remove(s.retries);
    start_.Remove(s.start);
  }
  if (s.share != nullptr) share_.Remove(s.share);
  if (s.duration != nullptr) duration_.Remove(s.duration);
  if (s.last != nullptr) last_.Remove(s.last);
}

}  // namespace scoria::metrics
