// What the session answers about many jobs at once, so that a plugin or an
// action that needs only sums by queue, or only some jobs, does not read
// every job through the ABI (host_api.session_queue_job_sums and
// session_jobs_where, ABI 1.11).
#include <algorithm>
#include <bit>

#include "session/session.h"
#include "session/task_status.h"

namespace scoria::session {

namespace {

void add(double* into, const double* v, size_t d) {
  for (size_t k = 0; k < d; ++k) into[k] += v[k];
}

}  // namespace

std::span<const Session::QueueJobSums> Session::queue_job_sums() {
  // Proportion and overcommit both ask at session open: one pass serves
  // every call until a task or a job changes.
  if (queue_sums_at_ == changes_ + 1) return queue_sums_;
  queue_sums_at_ = changes_ + 1;
  const size_t d = dims();
  const size_t queues = queues_.size();
  constexpr size_t kVectors = 6;
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
  // Job by job, in job order, as proportion and overcommit added them up.
  for (const Job& j : jobs_) {
    if (j.queue < 0) continue;
    QueueJobSums& s = queue_sums_[static_cast<size_t>(j.queue)];
    double* base = queue_sums_memory_.data() + static_cast<size_t>(j.queue) * kVectors * d;
    ++s.jobs;
    const int32_t held = count_in(j.status_count, kAllocatedMask);
    const int32_t pending = j.status_count[status_bit(SCORIA_TASK_PENDING)];
    if (held + pending == static_cast<int32_t>(j.tasks.size())) {
      // Its sums say it without a walk over its tasks.
      add(base, j.allocated, d);
      add(base + d, j.total_request, d);
    } else {
      for (uint32_t t : j.tasks) {
        const Task& task = tasks_[t];
        if (is_allocated_status(task.status)) {
          add(base, task.resreq, d);
          add(base + d, task.resreq, d);
        } else if (task.status == SCORIA_TASK_PENDING) {
          add(base + d, task.resreq, d);
        }
      }
    }
    for (size_t k = 0; k < d; ++k)
      base[2 * d + k] += std::max(0.0, j.allocated[k] - j.min_resources[k]);
    if (!j.spec.has_min_resources) continue;
    if (j.phase == SCORIA_PHASE_INQUEUE) {
      for (size_t k = 0; k < d; ++k) {
        base[3 * d + k] += j.min_resources[k];
        base[4 * d + k] += std::max(0.0, j.min_resources[k] - j.allocated[k]);
      }
    } else if (j.phase == SCORIA_PHASE_RUNNING && held >= j.spec.min_member) {
      for (size_t k = 0; k < d; ++k)
        base[5 * d + k] += std::max(0.0, j.min_resources[k] - j.allocated[k]);
    }
  }
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
