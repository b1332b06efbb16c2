// Volcano's per-job metrics (pkg/scheduler/metrics/job.go and the e2e job
// latency in metrics.go), from each session's outcome:
// volcano_unschedule_task_count{job_id} (the tasks short of minMember, as
// the gang plugin counts them at close; 0 once ready),
// volcano_job_retry_counts{job_id} (sessions it ended unready), and, for
// each task placed, the time from the job's creation:
// volcano_e2e_job_scheduling_duration{job_name,queue,job_namespace}, its
// histogram, and the start and last times. A job's series are made when it
// is first unready or placed (Volcano makes unschedule_task_count for
// every job; series that would only ever read 0 are left out, so that a
// cluster of many running jobs costs nothing per session), and go with it.
// volcano_job_share{job_ns,job_id} is each job's dominant share after the
// session, as drf keeps it (only with drf in the config, as in Volcano):
// every job has one then, as every job does in Volcano.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <unordered_map>

#include "cycle/outcome.h"

namespace scoria::metrics {

class JobMetrics {
 public:
  explicit JobMetrics(prometheus::Registry& registry);
  /// `now` is when the session ended (its placements' time).
  void observe(const cycle::Outcome& outcome, std::chrono::system_clock::time_point now);

 private:
  struct Series {
    prometheus::Gauge* unschedule = nullptr;
    prometheus::Counter* retries = nullptr;
    prometheus::Gauge* duration = nullptr;
    prometheus::Gauge* start = nullptr;
    prometheus::Gauge* last = nullptr;
    prometheus::Gauge* share = nullptr;
    std::string name, queue, ns;
    uint64_t seen = 0;  // the last session it was in
  };
  void forget(Series& s);

  prometheus::Family<prometheus::Gauge>& unschedule_;
  prometheus::Family<prometheus::Counter>& retries_;
  prometheus::Family<prometheus::Gauge>& duration_;
  prometheus::Family<prometheus::Gauge>& start_;
  prometheus::Family<prometheus::Gauge>& last_;
  prometheus::Family<prometheus::Gauge>& share_;
  prometheus::Histogram& latency_;
  std::unordered_map<std::string, Series> jobs_;  // by key "ns/name"
  uint64_t session_ = 0;
};

}  // namespace scoria::metrics
