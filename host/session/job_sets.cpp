// What the session answers about many jobs at once, so that a plugin or an
// action that needs only sums by queue, or only some jobs, does not read
// every job through the ABI (host_api.session_queue_job_sums and
// session_jobs_where, ABI 1.11).
#include <algorithm>
#include <bit>

#include "session/session.h"
#include "session/task_status.h"

namespace scoria::session {

int32_t Session::job_request(const Job& job, double* request, double* allocated,
                             double sign) const {
  const size_t d = dims();
  const int32_t asking = job.status_count[status_bit(SCORIA_TASK_PENDING)] +
                         count_in(job.status_count, kAllocatedMask);
  if (asking == static_cast<int32_t>(job.tasks.size())) {
    // Every task asks: the job's sums say it without a walk over its tasks
    // (whole units: the same total whichever way it is added).
    if (request != nullptr) model::add({request, d}, {job.total_request, d}, sign);
    if (allocated != nullptr) model::add({allocated, d}, {job.allocated, d}, sign);
    return 0;
  }
  int32_t releasing = 0;
  for (uint32_t t : job.tasks) {
    const Task& task = tasks_[t];
    releasing += task.status == SCORIA_TASK_RELEASING && task.node >= 0;
    const bool holds = is_allocated_status(task.status);
    if (request != nullptr && (holds || task.status == SCORIA_TASK_PENDING))
      model::add({request, d}, {task.resreq, d}, sign);
    if (allocated != nullptr && holds) model::add({allocated, d}, {task.resreq, d}, sign);
  }
  return releasing;
}

void Session::prepare_queue_sums(size_t queues) {
  const size_t d = dims();
  constexpr size_t kVectors = TouchJournal::kSumVectors;
  queue_sums_memory_.assign(queues * kVectors * d, 0.0);
  queue_sums_.assign(queues, QueueJobSums{});
  for (size_t q = 0; q < queues; ++q) {
    double* base = queue_sums_memory_.data() + q * kVectors * d;
    QueueJobSums& s = queue_sums_[q];
    s.allocated = base;
    s.request = base + d;
    s.elastic = base + 2 * d;
    s.inqueue_minimum = base + 3 * d;
    s.inqueue_unallocated = base + 4 * d;
    s.running_unallocated = base + 5 * d;
  }
}

void Session::job_sums(const Job& j, double* base, double sign) const {
  const size_t d = dims();
  job_request(j, base + d, base, sign);
  const int32_t held = count_in(j.status_count, kAllocatedMask);
  for (size_t k = 0; k < d; ++k)
    base[2 * d + k] += sign * std::max(0.0, j.allocated[k] - j.min_resources[k]);
  if (!j.spec.has_min_resources) return;
  if (j.phase == SCORIA_PHASE_INQUEUE) {
    for (size_t k = 0; k < d; ++k) {
      base[3 * d + k] += sign * j.min_resources[k];
      base[4 * d + k] += sign * std::max(0.0, j.min_resources[k] - j.allocated[k]);
    }
  } else if (j.phase == SCORIA_PHASE_RUNNING && held >= j.spec.min_member) {
    for (size_t k = 0; k < d; ++k)
      base[5 * d + k] += sign * std::max(0.0, j.min_resources[k] - j.allocated[k]);
  }
}

std::span<const Session::QueueJobSums> Session::queue_job_sums() {
  // Proportion and overcommit both ask at session open: one pass serves
  // every call until a task or a job changes.
  if (queue_sums_at_ == changes_ + 1) return queue_sums_;
  queue_sums_at_ = changes_ + 1;
  const size_t d = dims();
  constexpr size_t kVectors = TouchJournal::kSumVectors;
  prepare_queue_sums(queues_.size());
  // Job by job, in job order, as proportion and overcommit added them up.
  for (const Job& j : jobs_) {
    if (j.queue < 0) continue;
    ++queue_sums_[static_cast<size_t>(j.queue)].jobs;
    job_sums(j, queue_sums_memory_.data() + static_cast<size_t>(j.queue) * kVectors * d, 1.0);
  }
  // Taken at open, they serve the next session too (session_reuse.cpp).
  if (tracking_ && changes_ == changes_at_open_) note_opening_sums();
  return queue_sums_;
}

std::span<const Job* const> Session::jobs_where(uint32_t which) {
  jobs_where_.clear();
  // A word of 64 jobs at a time: most words are empty.
  for (size_t w = 0; w < pending_task_jobs_.size(); ++w) {
    uint64_t word = 0;
    if ((which & SCORIA_JOBS_PHASE_PENDING) != 0) word |= phase_pending_jobs_[w];
    if ((which & SCORIA_JOBS_WITH_PENDING_TASKS) != 0) word |= pending_task_jobs_[w];
    if ((which & SCORIA_JOBS_WITHOUT_QUEUE) != 0) word |= queueless_jobs_[w];
    for (; word != 0; word &= word - 1)
      jobs_where_.push_back(&jobs_[w * 64 + static_cast<size_t>(std::countr_zero(word))]);
  }
  return jobs_where_;
}

}  // namespace scoria::session
