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

// `bits` (one per job) without those of the jobs `gone` names.
void drop_bits(std::vector<uint64_t>& bits, const std::vector<uint64_t>& gone, size_t jobs) {
  size_t out = 0;
  for (size_t j = 0; j < jobs; ++j) {
    if (bit(gone, j)) continue;
    const uint64_t mask = uint64_t{1} << (out % 64);
    bits[out / 64] = bit(bits, j) ? bits[out / 64] | mask : bits[out / 64] & ~mask;
    ++out;
  }
  bits.resize((out + 63) / 64);
  if (out % 64 != 0) bits.back() &= (uint64_t{1} << (out % 64)) - 1;
}

}  // namespace

void Session::take_out_jobs(const std::vector<uint64_t>& gone) {
  SessionMemory& m = *memory_;
  const size_t d = dims();
  const size_t was_jobs = jobs_.size();
  const size_t was_tasks = tasks_.size();
  const size_t was_sub_jobs = sub_jobs_.size();
  // How many kept records come before each old index (one past the end
  // too): a kept one's new index, and a range's new start.
  std::vector<uint32_t> tasks_before(was_tasks + 1, 0), subs_before(was_sub_jobs + 1, 0),
      jobs_before(was_jobs + 1, 0);
  for (size_t t = 0; t < was_tasks; ++t)
    tasks_before[t + 1] = tasks_before[t] + (bit(gone, tasks_[t].job) ? 0 : 1);
  for (size_t s = 0; s < was_sub_jobs; ++s)
    subs_before[s + 1] = subs_before[s] + (bit(gone, sub_jobs_[s].job) ? 0 : 1);
  for (size_t j = 0; j < was_jobs; ++j)
    jobs_before[j + 1] = jobs_before[j] + (bit(gone, j) ? 0 : 1);
  const auto task_kept = [&](uint32_t t) { return tasks_before[t + 1] != tasks_before[t]; };

  // Jobs, and their vectors in the arena (each block moves down: never
  // onto one not yet moved).
  double* const vectors = arena_.data() + 4 * d * nodes_.size();
  size_t out = 0;
  for (size_t j = 0; j < was_jobs; ++j) {
    if (bit(gone, j)) continue;
    Job& job = jobs_[j];
    if (out != j) std::copy_n(vectors + 2 * d * j, 2 * d, vectors + 2 * d * out);
    const uint32_t first = tasks_before[*job.tasks.begin()];
    job.index = static_cast<uint32_t>(out);
    job.tasks = TaskRange(first, first + static_cast<uint32_t>(job.tasks.size()));
    job.allocated = vectors + 2 * d * out;
    job.total_request = job.allocated + d;
    job.first_sub_job = subs_before[job.first_sub_job];
    if (out != j) jobs_[out] = job;
    ++out;
  }
  jobs_.resize(out);

  out = 0;
  for (size_t t = 0; t < was_tasks; ++t) {
    if (!task_kept(static_cast<uint32_t>(t))) continue;
    Task& task = tasks_[t];
    task.index = static_cast<uint32_t>(out);
    task.job = jobs_before[task.job];
    task.sub_job = subs_before[task.sub_job];
    if (out != t) tasks_[out] = task;
    ++out;
  }
  tasks_.resize(out);

  out = 0;
  for (size_t s = 0; s < was_sub_jobs; ++s) {
    SubJob& sub = sub_jobs_[s];
    if (bit(gone, sub.job)) continue;
    sub.job = jobs_before[sub.job];
    // (A range into the members' list only with policies: none when jobs
    // are taken out, see keep_records.)
    if (sub.whole_job) {
      const uint32_t first = tasks_before[*sub.range.begin()];
      sub.range = TaskRange(first, first + static_cast<uint32_t>(sub.range.size()));
    }
    if (out != s) sub_jobs_[out] = sub;
    ++out;
  }
  sub_jobs_.resize(out);

  // Lists of tasks and jobs: the ones taken out dropped, the rest renamed
  // (in order still: the renaming keeps order).
  for (Node& n : nodes_)
    for (uint32_t& t : n.tasks) t = tasks_before[t];
  const auto rename_tasks = [&](auto& list) {
    size_t kept = 0;
    for (const uint32_t t : list)
      if (task_kept(t)) list[kept++] = tasks_before[t];
    list.resize(kept);
  };
  rename_tasks(m.opening_placed);
  rename_tasks(featured_);
  size_t kept = 0;
  for (const uint32_t j : topology_jobs_)
    if (!bit(gone, j)) topology_jobs_[kept++] = jobs_before[j];
  topology_jobs_.resize(kept);
  for (auto* bits : {&pending_task_jobs_, &phase_pending_jobs_, &queueless_jobs_})
    drop_bits(*bits, gone, was_jobs);
}

}  // namespace scoria::session
