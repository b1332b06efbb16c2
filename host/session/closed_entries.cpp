// A close that keeps the entries of the jobs nothing changed (ClosedEntries
// in session.h). Handed back the outcome its predecessor closed, over
// records it kept (session_reuse.cpp), a session writes again only the
// entries of the jobs written again at open, touched since, or whose entry
// depends on more than the job's record; the others are as the last close
// left them. Their queue sums are the last close's, less what the jobs
// written again added then, plus what they add now: exact in any order
// while every value is a whole number and every sum below 2^53.
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/resource.h"
#include "session/session.h"

namespace scoria::session {

namespace {

using model::add;

bool same_bits(std::span<const double> a, std::span<const double> b) {
  // (An empty span's data may be null, which memcmp must not be given.)
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

}  // namespace

int32_t Session::entry_sums(const Job& job, double* to) const {
  const size_t d = dims();
  std::fill_n(to, 2 * d, 0.0);
  const int32_t releasing = job_request(job, to, nullptr);
  if (static_cast<model::PodGroupPhase>(job.phase) == model::PodGroupPhase::Inqueue)
    std::copy_n(job.min_resources, d, to + d);
  return releasing;
}

bool Session::close_kept(Outcome& out, std::span<const double> share_total) {
  if (memory_ == nullptr || !kept_records_) return false;
  ClosedEntries& c = memory_->closed;
  const size_t d = dims();
  const std::vector<uint32_t>& removed = removed_at_open_;
  if (c.session == 0 || out.closed_by != c.session || c.session + 1 != number_ || !c.exact ||
      !exact_.queue_sums_exact() || c.dims != d || c.sums.size() != 2 * d * queues_.size() ||
      out.pod_groups.size() != c.jobs || c.queue_of.size() != c.jobs ||
      !same_bits(share_total, c.share_total) || (!removed.empty() && removed.back() >= c.jobs))
    return false;
  const size_t kept = c.jobs - removed.size();
  if (jobs_.size() < kept) return false;

  // The entries to write again, where the jobs are now: the last close's
  // volatile ones (less those taken out), those touched this session, and
  // those written again or arrived at open.
  std::vector<uint32_t> redo;
  redo.reserve(c.volatile_jobs.size() + journal_.jobs.size() + rewritten_.size());
  for (size_t k = 0; const uint32_t v : c.volatile_jobs) {
    while (k < removed.size() && removed[k] < v) ++k;
    if (k < removed.size() && removed[k] == v) continue;
    redo.push_back(v - static_cast<uint32_t>(k));
  }
  redo.insert(redo.end(), journal_.jobs.begin(), journal_.jobs.end());
  redo.insert(redo.end(), rewritten_.begin(), rewritten_.end());
  std::sort(redo.begin(), redo.end());
  redo.erase(std::unique(redo.begin(), redo.end()), redo.end());
  // A kept job's entry must be where it stood, down by the jobs taken out
  // before it; else nothing is kept (and nothing was changed yet).
  for (size_t k = 0; const uint32_t j : redo) {
    if (j >= kept) break;
    while (k < removed.size() && removed[k] <= j + k) ++k;
    const Outcome::PodGroupStatus& st = out.pod_groups[j + k];
    if (jobs_[j].source_seq == 0 || st.source != jobs_[j].source ||
        st.source_seq != jobs_[j].source_seq)
      return false;
  }

  const auto queue_sums = [&](int32_t q) { return c.sums.data() + 2 * d * static_cast<size_t>(q); };
  // The jobs taken out leave their queues' sums; the entries after them
  // move down, as their jobs did.
  if (!removed.empty()) {
    for (const uint32_t r : removed)
      if (c.queue_of[r] >= 0)
        add({queue_sums(c.queue_of[r]), 2 * d}, {&c.added[2 * d * r], 2 * d}, -1);
    size_t to = removed.front();
    for (size_t from = removed.front(), k = 0; from < c.jobs; ++from) {
      if (k < removed.size() && removed[k] == from) {
        ++k;
        continue;
      }
      std::swap(out.pod_groups[to], out.pod_groups[from]);
      c.queue_of[to] = c.queue_of[from];
      std::copy_n(&c.added[2 * d * from], 2 * d, &c.added[2 * d * to]);
      ++to;
    }
    out.pod_groups.resize(kept);
    c.queue_of.resize(kept);
    c.added.resize(2 * d * kept);
  }
  out.pod_groups.resize(jobs_.size());
  c.queue_of.resize(jobs_.size(), -1);
  c.added.resize(2 * d * jobs_.size(), 0.0);

  out.unschedulable_tasks = 0;  // every unschedulable job is volatile, so among these
  c.volatile_jobs.clear();
  for (const uint32_t j : redo) {
    const Job& job = jobs_[j];
    Outcome::PodGroupStatus& st = out.pod_groups[j];
    if (j >= kept) {
      st.key.assign(job.uid);
      st.source = job.source;
      st.source_seq = job.source_seq;
    }
    double* part = &c.added[2 * d * j];
    if (j < kept && c.queue_of[j] >= 0) add({queue_sums(c.queue_of[j]), 2 * d}, {part, 2 * d}, -1);
    const int32_t releasing = entry_sums(job, part);
    c.queue_of[j] = job.queue;
    if (job.queue >= 0) add({queue_sums(job.queue), 2 * d}, {part, 2 * d}, 1);
    if (write_entry(st, job, releasing, share_total, out.unschedulable_tasks))
      c.volatile_jobs.push_back(j);
  }
  for (size_t q = 0; q < queues_.size(); ++q) {
    const double* sums = queue_sums(static_cast<int32_t>(q));
    out.queues[q].request.assign(sums, sums + d);
    out.queues[q].inqueue.assign(sums + d, sums + 2 * d);
  }
  return true;
}

void Session::note_closed(Outcome& out, std::span<const double> share_total) {
  ClosedEntries& c = memory_->closed;
  out.closed_by = number_;
  c.session = number_;
  // close_all noted every job's part when the sums were exact, and
  // close_kept runs only then.
  c.exact = exact_.queue_sums_exact();
  c.jobs = jobs_.size();
  c.dims = dims();
  c.share_total.assign(share_total.begin(), share_total.end());
  if (!c.exact) return;
  const size_t d = dims();
  c.sums.resize(2 * d * out.queues.size());
  for (size_t q = 0; q < out.queues.size(); ++q) {
    std::copy_n(out.queues[q].request.data(), d, &c.sums[2 * d * q]);
    std::copy_n(out.queues[q].inqueue.data(), d, &c.sums[2 * d * q + d]);
  }
}

void Session::verify_entries(const Outcome& kept, std::span<const double> share_total) {
  Outcome whole;
  whole.queues = kept.queues;
  for (Outcome::QueueStatus& q : whole.queues) {
    q.request.assign(dims(), 0.0);
    q.inqueue.assign(dims(), 0.0);
  }
  close_all(whole, share_total, false);
  std::string first;
  const auto same = [&first](const char* what, size_t i, const auto& a, const auto& b) {
    if (first.empty() && !(a == b)) first = std::string(what) + " of #" + std::to_string(i);
  };
  same("entries", 0, kept.pod_groups.size(), whole.pod_groups.size());
  same("unschedulable tasks", 0, kept.unschedulable_tasks, whole.unschedulable_tasks);
  for (size_t i = 0; first.empty() && i < kept.pod_groups.size(); ++i) {
    const Outcome::PodGroupStatus& a = kept.pod_groups[i];
    const Outcome::PodGroupStatus& b = whole.pod_groups[i];
    same("key", i, a.key, b.key);
    same("native", i, a.native, b.native);
    same("phase", i, a.phase, b.phase);
    same("unschedulable", i, a.unschedulable, b.unschedulable);
    same("running", i, a.running, b.running);
    same("succeeded", i, a.succeeded, b.succeeded);
    same("failed", i, a.failed, b.failed);
    same("pending", i, a.pending.size(), b.pending.size());
    for (size_t k = 0; first.empty() && k < a.pending.size(); ++k) {
      same("pending pod", i, a.pending[k].pod, b.pending[k].pod);
      const char* ra = a.pending[k].reason;
      const char* rb = b.pending[k].reason;
      same("pending reason", i, ra == rb || (ra && rb && std::strcmp(ra, rb) == 0), true);
      same("pending message", i, a.pending[k].message, b.pending[k].message);
    }
    same("queue", i, a.queue, b.queue);
    same("unready", i, a.unready, b.unready);
    same("creation", i, a.creation_ms, b.creation_ms);
    same("placed", i, a.placed, b.placed);
    same("share", i, std::memcmp(&a.share, &b.share, sizeof(double)), 0);
    same("source", i, a.source, b.source);
    same("source_seq", i, a.source_seq, b.source_seq);
  }
  for (size_t q = 0; first.empty() && q < kept.queues.size(); ++q) {
    same("queue request", q, same_bits(kept.queues[q].request, whole.queues[q].request), true);
    same("queue inqueue", q, same_bits(kept.queues[q].inqueue, whole.queues[q].inqueue), true);
  }
  if (!first.empty())
    throw std::logic_error("a close that kept entries differs from a whole one: " + first);
}

}  // namespace scoria::session
