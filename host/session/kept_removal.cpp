// Jobs that left the cluster, taken out of records a session keeps
// (session_reuse.cpp): the records after them move down in order, with
// every index that names a job, task or sub-job, and the jobs' vectors in
// the arena. What the jobs held of their nodes and queues is taken off
// before (keep_records); nothing here sums anything.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "session/session.h"

namespace scoria::session {

namespace {

bool bit(const std::vector<uint64_t>& bits, size_t i) {
  return i / 64 < bits.size() && ((bits[i / 64] >> (i % 64)) & 1) != 0;
}

// `bits` (one per job) without those of the jobs `gone` names, the first
// of which is `first`.
void drop_bits(std::vector<uint64_t>& bits, const std::vector<uint64_t>& gone, size_t first,
               size_t jobs) {
  size_t out = first;
  for (size_t j = first; j < jobs; ++j) {
    if (bit(gone, j)) continue;
    const uint64_t mask = uint64_t{1} << (out % 64);
    bits[out / 64] = bit(bits, j) ? bits[out / 64] | mask : bits[out / 64] & ~mask;
    ++out;
  }
  bits.resize((out + 63) / 64);
  if (out % 64 != 0) bits.back() &= (uint64_t{1} << (out % 64)) - 1;
}

}  // namespace

void Session::take_out_jobs(const Snapshot::Changes& changes, const std::vector<uint64_t>& gone) {
  const std::vector<uint32_t>& removed = changes.removed;
  SessionMemory& m = *memory_;
  const size_t d = dims();
  const size_t was_jobs = jobs_.size();
  const size_t was_tasks = tasks_.size();
  const size_t was_sub_jobs = sub_jobs_.size();
  // Jobs lie in order, each one's tasks and sub-jobs after the last one's:
  // the records before the first job taken out stay as they are, and
  // between two jobs taken out every record moves down by as many jobs,
  // tasks and sub-jobs as were taken out before it.
  struct Out {
    uint32_t job, first_task, tasks, first_sub, subs;
  };
  std::vector<Out> outs;
  outs.reserve(removed.size());
  for (uint32_t j : removed)
    outs.push_back({j, *jobs_[j].tasks.begin(), static_cast<uint32_t>(jobs_[j].tasks.size()),
                    jobs_[j].first_sub_job, jobs_[j].sub_job_count});
  const uint32_t j0 = outs.front().job, t0 = outs.front().first_task;
  // Where each task from the first one taken out went (kNoTask: out), for
  // the lists that name tasks.
  constexpr uint32_t kNoTask = UINT32_MAX;
  std::vector<uint32_t>& task_to = m.renumbered;
  task_to.assign(was_tasks - t0, kNoTask);
  double* const vectors = arena_.data() + 4 * d * nodes_.size();
  uint32_t job_shift = 0, task_shift = 0, sub_shift = 0;
  for (size_t k = 0; k < outs.size(); ++k) {
    const Out& o = outs[k];
    ++job_shift;
    task_shift += o.tasks;
    sub_shift += o.subs;
    const bool last = k + 1 == outs.size();
    const size_t jobs_end = last ? was_jobs : outs[k + 1].job;
    const size_t tasks_end = last ? was_tasks : outs[k + 1].first_task;
    const size_t subs_end = last ? was_sub_jobs : outs[k + 1].first_sub;
    for (size_t j = o.job + 1; j < jobs_end; ++j) {
      Job& job = jobs_[j];
      const size_t to = j - job_shift;
      // (Blocks move down, each onto one moved already or taken out.)
      std::copy_n(vectors + 2 * d * j, 2 * d, vectors + 2 * d * to);
      const uint32_t first = *job.tasks.begin() - task_shift;
      job.index = static_cast<uint32_t>(to);
      job.tasks = TaskRange(first, first + static_cast<uint32_t>(job.tasks.size()));
      job.allocated = vectors + 2 * d * to;
      job.total_request = job.allocated + d;
      job.first_sub_job -= sub_shift;
      jobs_[to] = job;
    }
    for (size_t t = o.first_task + o.tasks; t < tasks_end; ++t) {
      Task& task = tasks_[t];
      const size_t to = t - task_shift;
      task.index = static_cast<uint32_t>(to);
      task.job -= job_shift;
      task.sub_job -= sub_shift;
      tasks_[to] = task;
      task_to[t - t0] = static_cast<uint32_t>(to);
    }
    for (size_t s = o.first_sub + o.subs; s < subs_end; ++s) {
      SubJob& sub = sub_jobs_[s];
      sub.job -= job_shift;
      // (A range into the members' list only with policies: none when jobs
      // are taken out, see keep_records.)
      if (sub.whole_job) {
        const uint32_t first = *sub.range.begin() - task_shift;
        sub.range = TaskRange(first, first + static_cast<uint32_t>(sub.range.size()));
      }
      sub_jobs_[s - sub_shift] = sub;
    }
  }
  jobs_.resize(was_jobs - job_shift);
  tasks_.resize(was_tasks - task_shift);
  sub_jobs_.resize(was_sub_jobs - sub_shift);

  // Lists of tasks and jobs: the ones taken out dropped, the rest renamed
  // (in order still: the renaming keeps order). No node holds one taken out.
  const auto new_task = [&](uint32_t t) { return t < t0 ? t : task_to[t - t0]; };
  for (Node& n : nodes_) {
    auto from = std::lower_bound(n.tasks.begin(), n.tasks.end(), t0);
    for (; from != n.tasks.end(); ++from) *from = task_to[*from - t0];
  }
  const auto rename_tasks = [&](auto& list) {
    size_t kept = 0;
    for (const uint32_t t : list)
      if (const uint32_t to = new_task(t); to != kNoTask) list[kept++] = to;
    list.resize(kept);
  };
  rename_tasks(m.opening_placed);
  rename_tasks(featured_);
  size_t kept = 0;
  for (const uint32_t j : topology_jobs_)
    if (j < j0 || !bit(gone, j)) topology_jobs_[kept++] = j - changes.removed_before(j);
  topology_jobs_.resize(kept);
  for (auto* bits : {&pending_task_jobs_, &phase_pending_jobs_, &queueless_jobs_})
    drop_bits(*bits, gone, j0, was_jobs);
}

}  // namespace scoria::session
