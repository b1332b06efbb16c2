#include "simulation/snapshot_tally.h"

#include <algorithm>
#include <cmath>

#include "model/resource.h"
#include "scoria/scoria.h"
#include "session/task_status.h"

namespace scoria::simulation {

namespace {

// What holds resources on a node (Volcano's AllocatedStatus), and what is
// still leaving it.
constexpr uint32_t kOccupying = session::kAllocatedMask | SCORIA_TASK_RELEASING;

}  // namespace

void SnapshotTally::add(const Held& held, double sign) {
  if (held.node < 0) return;
  double* to = used_.data() + static_cast<size_t>(held.node) * dims_;
  for (size_t d = 0; d < dims_; ++d) to[d] += sign * held.resreq[d];
}

void SnapshotTally::drop(const Held& held) {
  add(held, -1.0);
  if (held.waits) --waiting_;
}

void SnapshotTally::hold(Held& held, const cycle::Snapshot::TaskIn& in, bool valid) {
  held = {};
  if (in.status == SCORIA_TASK_PENDING && valid) {
    held.waits = true;
    ++waiting_;
  }
  if (in.node < 0 || (in.status & kOccupying) == 0) return;
  // (A short vector, from a writer that keeps none: summed anew each time.)
  if (in.resreq.size() < dims_) exact_ = false;
  const std::span<const double> req = in.resreq.first(std::min(in.resreq.size(), dims_));
  if (exact_) {
    exact_ = model::whole_numbers(req);
    for (double v : req) bound_ += std::fabs(v);
    exact_ = exact_ && bound_ < model::kExactSums;
  }
  if (req.size() < dims_) {
    double* to = used_.data() + static_cast<size_t>(in.node) * dims_;
    for (size_t d = 0; d < req.size(); ++d) to[d] += req[d];
    return;
  }
  held.node = in.node;
  held.resreq = in.resreq.data();
  add(held, 1.0);
}

void SnapshotTally::sum_anew(const cycle::Snapshot& snapshot) {
  used_.assign(snapshot.nodes.size() * dims_, 0.0);
  held_.clear();
  job_tasks_.clear();
  waiting_ = 0;
  exact_ = snapshot.exact_vectors;
  bound_ = 0;
  // In task order, job after job, as the session's tasks lie.
  for (const auto& job : snapshot.jobs) {
    job_tasks_.push_back(static_cast<uint32_t>(job.tasks.size()));
    for (const auto& in : job.tasks) hold(held_.emplace_back(), in, job.invalid.empty());
  }
  // (Tasks not laid job after job in `tasks`: nothing can be kept.)
  if (held_.size() != snapshot.tasks.size()) exact_ = false;
}

bool SnapshotTally::follows(const cycle::Snapshot& snapshot) const {
  const cycle::Snapshot::Changes& c = snapshot.changes;
  if (!exact_ || !snapshot.exact_vectors || c.writer == 0 || c.writer != writer_ ||
      c.version != version_ + 1 || c.layout != layout_ || c.vectors_changed ||
      used_.size() != snapshot.nodes.size() * dims_)
    return false;
  const std::vector<uint32_t>& removed = c.removed;
  size_t kept = job_tasks_.size(), kept_tasks = held_.size();
  for (size_t k = 0; k < removed.size(); ++k) {
    if (removed[k] >= job_tasks_.size() || (k > 0 && removed[k] <= removed[k - 1])) return false;
    --kept;
    kept_tasks -= job_tasks_[removed[k]];
  }
  if (snapshot.jobs.size() < kept) return false;
  // Jobs written again keep their size (each one's place before, past the
  // jobs taken out before it); those past the kept ones arrived, their
  // tasks after every kept one's.
  for (size_t i = 0; i < c.jobs.size(); ++i)
    if (c.jobs[i] >= kept || (i > 0 && c.jobs[i] <= c.jobs[i - 1])) return false;
  const std::vector<uint32_t> was = c.positions_before(c.jobs);
  for (size_t i = 0; i < c.jobs.size(); ++i)
    if (job_tasks_[was[i]] != snapshot.jobs[c.jobs[i]].tasks.size()) return false;
  size_t tasks = kept_tasks;
  for (size_t j = kept; j < snapshot.jobs.size(); ++j) tasks += snapshot.jobs[j].tasks.size();
  return tasks == snapshot.tasks.size();
}

void SnapshotTally::take_out(const std::vector<uint32_t>& removed) {
  size_t from = 0, to = 0, next = 0, out = 0;
  for (size_t j = 0; j < job_tasks_.size(); ++j) {
    const uint32_t n = job_tasks_[j];
    if (next < removed.size() && removed[next] == j) {
      ++next;
      for (size_t t = from; t < from + n; ++t) drop(held_[t]);
      from += n;
      continue;
    }
    if (to != from)
      std::copy_n(held_.begin() + static_cast<std::ptrdiff_t>(from), n,
                  held_.begin() + static_cast<std::ptrdiff_t>(to));
    job_tasks_[out++] = n;
    from += n;
    to += n;
  }
  job_tasks_.resize(out);
  held_.resize(to);
}

void SnapshotTally::update(const cycle::Snapshot& snapshot, size_t dims) {
  const cycle::Snapshot::Changes& c = snapshot.changes;
  const bool kept = dims == dims_ && follows(snapshot);
  writer_ = c.writer;
  version_ = c.version;
  layout_ = c.layout;
  dims_ = dims;
  kept_ = kept;
  if (!kept) {
    sum_anew(snapshot);
    return;
  }
  if (!c.removed.empty()) take_out(c.removed);
  // (Each job's tasks lie after the last one's: a job's first is the sum of
  // the sizes before it.)
  std::vector<uint32_t>& first = firsts_;
  first.resize(job_tasks_.size() + 1);
  first[0] = 0;
  for (size_t j = 0; j < job_tasks_.size(); ++j) first[j + 1] = first[j] + job_tasks_[j];
  for (uint32_t j : c.jobs) {
    const auto tasks = snapshot.jobs[j].tasks;
    const bool valid = snapshot.jobs[j].invalid.empty();
    for (size_t i = 0; i < tasks.size(); ++i) {
      Held& held = held_[first[j] + i];
      drop(held);
      hold(held, tasks[i], valid);
    }
  }
  for (size_t j = job_tasks_.size(); j < snapshot.jobs.size(); ++j) {
    const auto tasks = snapshot.jobs[j].tasks;
    const bool valid = snapshot.jobs[j].invalid.empty();
    job_tasks_.push_back(static_cast<uint32_t>(tasks.size()));
    for (const auto& in : tasks) hold(held_.emplace_back(), in, valid);
  }
  // A value that was not whole after all: what was kept may differ in its
  // last bits from a sum taken anew, which is taken.
  if (!exact_) {
    sum_anew(snapshot);
    kept_ = false;
  }
}

}  // namespace scoria::simulation
