#include "starving.h"

#include <scoria/scoria.hpp>

#include <algorithm>
#include <cstdint>

namespace eviction {

using scoria::api;
using scoria::log_line;

std::vector<StarvingQueue> collect_starving(scoria_session* ssn, std::string_view action) {
  std::vector<StarvingQueue> queues;
  const size_t queue_count = api().queue_count(ssn);
  std::vector<int64_t> slot_of(queue_count, -1);  // queue index -> position in queues
  const size_t job_count = api().job_count(ssn);
  for (size_t i = 0; i < job_count; ++i) {
    const scoria_job* job = api().job_at(ssn, i);
    const scoria_job_info ji = scoria::info(job);
    const std::string_view uid = scoria::view(ji.uid);
    if (ji.phase == SCORIA_PHASE_PENDING) continue;
    // Without Pending tasks a job has no preemptor: nothing could change for
    // it, and the plugins need not be asked about it.
    if (ji.status_count[0] == 0) continue;
    scoria_str message{};
    if (api().session_job_valid(ssn, job, &message) == 0) {
      log_line(SCORIA_LOG_V4, "job <", uid, "> skips ", action, ": ", scoria::view(message));
      continue;
    }
    if (ji.queue == nullptr) {
      log_line(SCORIA_LOG_V3, "queue <", scoria::view(ji.queue_name), "> of job <", uid,
               "> not found; job skips ", action);
      continue;
    }
    if (api().session_job_starving(ssn, job) == 0) continue;
    const scoria_queue_info qi = scoria::info(ji.queue);
    if (qi.index >= queue_count) {
      log_line(SCORIA_LOG_ERROR, "queue <", scoria::view(qi.name), "> of job <", uid,
               "> has an index out of range; job skipped");
      continue;
    }
    if (slot_of[qi.index] < 0) {
      slot_of[qi.index] = static_cast<int64_t>(queues.size());
      queues.push_back(StarvingQueue{ji.queue, scoria::view(qi.name), {}});
    }
    queues[static_cast<size_t>(slot_of[qi.index])].jobs.push_back(job);
    log_line(SCORIA_LOG_V4, "job <", uid, "> is starving in queue <", scoria::view(qi.name), ">");
  }
  return queues;
}

std::vector<const scoria_task*> pending_in_order(const scoria_session* ssn, const scoria_job* job,
                                                 Pending which) {
  std::vector<const scoria_task*> out;
  const size_t count = api().job_task_count(job);
  const size_t dims = scoria::dims(ssn);
  for (size_t k = 0; k < count; ++k) {
    const scoria_task* task = api().job_task_at(job, k);
    if (task == nullptr) continue;
    const scoria_task_info ti = scoria::info(task);
    if (ti.status != SCORIA_TASK_PENDING || ti.scheduling_gated != 0) continue;
    if (which == Pending::kNeedsResources &&
        (ti.resreq == nullptr || scoria::is_empty(scoria::ResourceView(ti.resreq, dims)))) {
      continue;
    }
    out.push_back(task);
  }
  // Heap sort: bounded even if a plugin's order is inconsistent.
  const auto less = [ssn](const scoria_task* l, const scoria_task* r) {
    return api().session_task_less(ssn, l, r) != 0;
  };
  std::make_heap(out.begin(), out.end(), less);
  std::sort_heap(out.begin(), out.end(), less);
  return out;
}

}  // namespace eviction
