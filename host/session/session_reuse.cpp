// A session that keeps the last one's records (SessionMemory). The cache's
// kept snapshot says which jobs and nodes its refresh wrote again
// (Snapshot::changes); the last session noted which records it touched and
// what they were at its open (TouchJournal). Those records are put back as
// they were; then the jobs that changed or were touched are taken off their
// nodes and queues as they stood, written again from the snapshot exactly as
// a session writing everything writes them, and put back on. Sums over many
// records kept that way (a node's, a queue's) come out as a whole write
// makes them because every value summed is a whole number well below 2^53
// (exact in any order); anything else, and every record is written anew.
// Tests hold a kept session to the records written anew
// (SessionMemory::verify).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "model/resource.h"
#include "session/session.h"
#include "session/task_status.h"

namespace scoria::session {

namespace {

using model::add;

bool has(const std::vector<uint64_t>& bits, size_t i) {
  return i / 64 < bits.size() && ((bits[i / 64] >> (i % 64)) & 1) != 0;
}

// Sets bit i; whether it was clear.
bool set(std::vector<uint64_t>& bits, size_t i) {
  const uint64_t bit = uint64_t{1} << (i % 64);
  const bool was = (bits[i / 64] & bit) == 0;
  bits[i / 64] |= bit;
  return was;
}

// `kept` (ascending) without the entries `drop` says, merged with `more`
// (ascending).
template <class Drop>
void patch_list(std::vector<uint32_t>& out, const std::vector<uint32_t>& kept,
                const std::vector<uint32_t>& more, Drop&& drop) {
  out.clear();
  out.reserve(kept.size() + more.size());
  size_t m = 0;
  for (uint32_t v : kept) {
    if (drop(v)) continue;
    while (m < more.size() && more[m] < v) out.push_back(more[m++]);
    out.push_back(v);
  }
  out.insert(out.end(), more.begin() + static_cast<std::ptrdiff_t>(m), more.end());
}

}  // namespace

void Session::touch_job(uint32_t j) {
  TouchJournal& t = journal_;
  if (!set(t.job_bits, j)) return;
  const Job& job = jobs_[j];
  const size_t d = dims();
  t.jobs.push_back(j);
  t.task_at.push_back(static_cast<uint32_t>(t.places.size()));
  for (uint32_t k : job.tasks) t.places.emplace_back(tasks_[k].node, tasks_[k].status);
  t.allocated.insert(t.allocated.end(), job.allocated, job.allocated + d);
  const size_t at = t.sums.size();
  t.sums.resize(at + TouchJournal::kSumVectors * d, 0.0);
  job_sums(job, t.sums.data() + at, 1.0);
}

void Session::touch_node(uint32_t n) {
  TouchJournal& t = journal_;
  if (!set(t.node_bits, n)) return;
  const Node& node = nodes_[n];
  t.nodes.push_back(n);
  t.lists.insert(t.lists.end(), node.tasks.begin(), node.tasks.end());
  t.list_end.push_back(static_cast<uint32_t>(t.lists.size()));
  // idle, used, releasing and pipelined lie side by side (write_records)
  t.node_sums.insert(t.node_sums.end(), node.idle, node.idle + 4 * dims());
}

bool Session::keep_records(const Snapshot& snap) {
  SessionMemory& m = *memory_;
  const TouchJournal& was = m.touched;
  const Snapshot::Changes& c = snap.changes;
  const size_t d = dims();
  // The last session's records, over the refresh before this one of the
  // same kept snapshot, with nothing moved since and no value summed
  // changed.
  const bool kept = std::exchange(m.kept, false);  // again by note_opening, if all goes well
  if (!kept || !config_.equivalence_cache || !snap.exact_vectors || m.session != this ||
      c.writer == 0 || c.writer != m.writer || c.version != m.version + 1 || c.layout != m.layout ||
      c.vectors_changed || !m.exact.whole_requests)
    return false;
  // Jobs that left are taken out (their tasks with them), the others moving
  // down in order; jobs that arrived since come last, their tasks after
  // every kept one. The removed ones are in the last session's positions,
  // everything else in this one's.
  const std::vector<uint32_t>& removed = c.removed;
  const size_t was_jobs = jobs_.size();
  size_t removed_tasks = 0;
  for (size_t k = 0; k < removed.size(); ++k) {
    if (removed[k] >= was_jobs || (k > 0 && removed[k] <= removed[k - 1])) return false;
    removed_tasks += jobs_[removed[k]].tasks.size();
  }
  // (Sub-job member lists index tasks: those would move too.)
  if (!removed.empty() && !sub_job_members_.empty()) return false;
  const size_t jobs = snap.jobs.size();
  const size_t kept_jobs = was_jobs - removed.size();
  if (jobs < kept_jobs || nodes_.size() != snap.nodes.size() ||
      m.opening_queue_allocated.size() != d * snap.queues.size())
    return false;
  size_t arrived_tasks = tasks_.size() - removed_tasks;
  for (size_t j = kept_jobs; j < jobs; ++j) {
    const Snapshot::JobIn& in = snap.jobs[j];
    if (in.fields.has_sub_group_policy || in.key.empty() ||
        (!in.tasks.empty() && in.tasks.data() != snap.tasks.data() + arrived_tasks))
      return false;
    arrived_tasks += in.tasks.size();
  }
  if (arrived_tasks != snap.tasks.size()) return false;
  const size_t short_vectors = short_header_vectors(snap);
  const size_t was_fixed = d * (4 * nodes_.size() + 2 * was_jobs);
  const size_t kept_fixed = d * (4 * nodes_.size() + 2 * kept_jobs);
  const size_t fixed = d * (4 * nodes_.size() + 2 * jobs);
  const size_t size = fixed + d * (short_vectors + snap.queues.size());
  if (arena_.size() < was_fixed || arena_.capacity() < size) return false;
  // Lists rewritten often enough take the buffer many times over: then
  // everything is written anew, and the buffer given back.
  if (node_tasks_->taken() >
      4 * sizeof(uint32_t) * (tasks_.size() + 16 * nodes_.size()) + (1 << 20))
    return false;

  // The jobs written again, in the last session's positions: those the
  // refresh changed (given in this one's) and those the last session
  // touched that stay; each the same size as before, without policies
  // (their sub-jobs keep their places), with its key. Every value summed
  // whole.
  std::vector<uint64_t> removed_bits((was_jobs + 63) / 64, 0);
  for (uint32_t r : removed) set(removed_bits, r);
  for (size_t i = 0; i < c.jobs.size(); ++i)
    if (c.jobs[i] >= kept_jobs || (i > 0 && c.jobs[i] <= c.jobs[i - 1])) return false;
  std::vector<uint32_t> again = c.positions_before(c.jobs);
  for (uint32_t j : was.jobs)
    if (j < was_jobs && !has(removed_bits, j)) again.push_back(j);
  std::sort(again.begin(), again.end());
  again.erase(std::unique(again.begin(), again.end()), again.end());
  // Past a quarter of the jobs, writing everything anew costs less.
  if (again.size() * 4 > kept_jobs) return false;
  // Where a job of the last session stands now: down by the jobs before it
  // taken out, its tasks down by theirs.
  std::vector<uint32_t> tasks_removed_before(removed.size() + 1, 0);
  for (size_t k = 0; k < removed.size(); ++k)
    tasks_removed_before[k + 1] =
        tasks_removed_before[k] + static_cast<uint32_t>(jobs_[removed[k]].tasks.size());
  // The bound on the sums, with what is written again or arrived added
  // (what was there before stays counted: the bound need not be tight).
  ExactSums exact = m.exact;
  const auto note = [&](const Snapshot::JobIn& in) {
    for (const auto& tin : in.tasks) exact.note_request(tin.resreq);
    exact.note_min_resources(in.min_resources);
    return exact.whole_requests;
  };
  for (uint32_t j : again) {
    const Job& old = jobs_[j];
    const uint32_t before = c.removed_before(j);
    const Snapshot::JobIn& in = snap.jobs[j - before];
    const uint32_t first = *old.tasks.begin() - tasks_removed_before[before];
    if (old.has_sub_group_policy || in.fields.has_sub_group_policy || in.key.empty() ||
        in.tasks.size() != old.tasks.size() ||
        (!in.tasks.empty() && in.tasks.data() != snap.tasks.data() + first) || !note(in))
      return false;
  }
  for (size_t j = kept_jobs; j < jobs; ++j)
    if (!note(snap.jobs[j])) return false;
  // A changed node's allocatable may be larger than the largest before;
  // the bound keeps the larger of the two.
  for (uint32_t n : c.nodes) {
    if (n >= nodes_.size()) return false;
    exact.note_allocatable(snap.nodes[n].allocatable);
  }
  if (!exact.records_exact()) return false;

  // Nothing fails from here on.
  // The nodes the last session touched, as they were at its open.
  for (size_t k = 0, from = 0; k < was.nodes.size(); from = was.list_end[k++]) {
    Node& n = nodes_[was.nodes[k]];
    n.tasks.assign(was.lists.begin() + static_cast<std::ptrdiff_t>(from),
                   was.lists.begin() + static_cast<std::ptrdiff_t>(was.list_end[k]));
    std::copy_n(was.node_sums.data() + k * 4 * d, 4 * d, n.idle);
  }
  // The queue sums of that open, if it took them (and they can be kept).
  constexpr size_t kVectors = TouchJournal::kSumVectors;
  const bool sums = m.sums_kept && exact.whole_min_resources;
  if (sums) {
    prepare_queue_sums(snap.queues.size());  // (the queues are written below)
    std::copy(m.opening_queue_sums.begin(), m.opening_queue_sums.end(), queue_sums_memory_.begin());
    for (size_t q = 0; q < queue_sums_.size(); ++q) queue_sums_[q].jobs = m.opening_queue_jobs[q];
  }
  const auto queue_base = [&](int32_t q) {
    return queue_sums_memory_.data() + static_cast<size_t>(q) * kVectors * d;
  };
  // The jobs taken out and those written again leave their nodes and
  // queues as they stood at that open: as the session that touched one
  // noted it, else as its record still is. (What they held of their queues
  // is taken off once the queues are written, below.)
  std::vector<std::pair<uint32_t, uint32_t>> touched_at;  // job, its place in was.jobs
  touched_at.reserve(was.jobs.size());
  for (size_t k = 0; k < was.jobs.size(); ++k)
    touched_at.emplace_back(was.jobs[k], static_cast<uint32_t>(k));
  std::sort(touched_at.begin(), touched_at.end());
  std::vector<int32_t> held_queue;
  std::vector<double> held;
  const auto take_off = [&](uint32_t j) {
    const Job& old = jobs_[j];
    const auto at = std::lower_bound(touched_at.begin(), touched_at.end(), std::make_pair(j, 0U));
    const bool touched = at != touched_at.end() && at->first == j;
    const size_t k = touched ? at->second : 0;
    if (old.queue >= 0) {
      held_queue.push_back(old.queue);
      const double* from = touched ? was.allocated.data() + k * d : old.allocated;
      held.insert(held.end(), from, from + d);
      if (sums) {
        double* base = queue_base(old.queue);
        --queue_sums_[static_cast<size_t>(old.queue)].jobs;
        if (touched)
          add({base, kVectors * d}, {was.sums.data() + k * kVectors * d, kVectors * d}, -1);
        else
          job_sums(old, base, -1);
      }
    }
    size_t i = 0;
    for (uint32_t t : old.tasks) {
      const auto [node, status] = touched ? was.places[was.task_at[k] + i]
                                          : std::make_pair(tasks_[t].node, tasks_[t].status);
      ++i;
      if (node < 0) continue;
      Node& n = nodes_[static_cast<size_t>(node)];
      const auto it = std::lower_bound(n.tasks.begin(), n.tasks.end(), t);
      if (it != n.tasks.end() && *it == t) n.tasks.erase(it);
      node_sums(n, status, tasks_[t].resreq, -1);
    }
  };
  for (uint32_t j : removed) take_off(j);
  for (uint32_t j : again) take_off(j);
  if (!removed.empty()) {
    take_out_jobs(c, removed_bits);
    for (uint32_t& j : again) j -= c.removed_before(j);
  }

  // The arena past the kept jobs' vectors: the arrived ones' (zeros), then
  // the queues and the short vectors.
  arena_.resize(size);
  std::fill(arena_.begin() + static_cast<std::ptrdiff_t>(kept_fixed),
            arena_.begin() + static_cast<std::ptrdiff_t>(fixed), 0.0);
  tail_ = arena_.data() + fixed;
  write_queues(snap);
  for (size_t q = 0; q < queues_.size(); ++q)
    std::copy_n(m.opening_queue_allocated.data() + q * d, d, queues_[q].allocated);
  for (size_t k = 0; k < held_queue.size(); ++k)
    add({queues_[static_cast<size_t>(held_queue[k])].allocated, d}, {held.data() + k * d, d}, -1);
  for (size_t i = 0; i < nodes_.size(); ++i) {
    nodes_[i].spec = snap.nodes[i].spec;
    nodes_[i].allocatable = read(snap.nodes[i].allocatable);
  }

  // Written again, and put back on their nodes and queues.
  double* job_vectors = arena_.data() + 4 * d * nodes_.size();
  std::vector<uint32_t> placed, featured, topology;
  std::vector<uint64_t> again_bits((kept_jobs + 63) / 64, 0);
  for (uint32_t j : again) {
    set(again_bits, j);
    const Snapshot::JobIn& in = snap.jobs[j];
    const uint32_t first = *jobs_[j].tasks.begin();
    write_job(j, in, first, job_vectors + 2 * d * j, false);
    const Job& job = jobs_[j];
    if (job.spec.has_network_topology) topology.push_back(j);
    if (sums && job.queue >= 0) {
      ++queue_sums_[static_cast<size_t>(job.queue)].jobs;
      job_sums(job, queue_base(job.queue), 1);
    }
    for (size_t i = 0; i < in.tasks.size(); ++i) {
      const uint32_t t = first + static_cast<uint32_t>(i);
      const Task& task = tasks_[t];
      if (task.node >= 0) {
        Node& n = nodes_[static_cast<size_t>(task.node)];
        n.tasks.insert(std::lower_bound(n.tasks.begin(), n.tasks.end(), t), t);
        node_sums(n, task.status, task.resreq, 1);
      }
      if ((in.tasks[i].status & kPlacedMask) != 0) placed.push_back(t);
      if ((in.tasks[i].features & kListedFeatures) != 0) featured.push_back(t);
    }
  }
  // A node that changed is summed again whole, in task order.
  for (uint32_t i : c.nodes) {
    Node& n = nodes_[i];
    std::copy_n(n.allocatable, d, n.idle);
    std::fill_n(n.used, 3 * d, 0.0);  // used, releasing and pipelined lie side by side
    for (uint32_t t : n.tasks) node_sums(n, tasks_[t].status, tasks_[t].resreq, 1);
  }

  const auto dropped_task = [&](uint32_t t) { return has(again_bits, tasks_[t].job); };
  patch_list(placed_, m.opening_placed, placed, dropped_task);
  std::vector<uint32_t> kept_list;
  kept_list.swap(featured_);
  patch_list(featured_, kept_list, featured, dropped_task);
  kept_list.swap(topology_jobs_);
  patch_list(topology_jobs_, kept_list, topology, [&](uint32_t j) { return has(again_bits, j); });

  // The jobs that arrived, as a whole write appends them.
  for (auto* bits : {&pending_task_jobs_, &phase_pending_jobs_, &queueless_jobs_})
    bits->resize((jobs + 63) / 64, 0);
  // Grown by an eighth when full, not to the size: arrivals come often.
  const auto room = [](auto& v, size_t n) {
    if (v.capacity() < n) v.reserve(with_room(n));
  };
  room(sub_jobs_, sub_jobs_.size() + (jobs - kept_jobs));
  room(jobs_, jobs);
  room(tasks_, snap.tasks.size());
  for (size_t j = kept_jobs; j < jobs; ++j) {
    const auto first = static_cast<uint32_t>(tasks_.size());
    write_job(static_cast<uint32_t>(j), snap.jobs[j], first, job_vectors + 2 * d * j, true);
    const Job& job = jobs_[j];
    if (sums && job.queue >= 0) {
      ++queue_sums_[static_cast<size_t>(job.queue)].jobs;
      job_sums(job, queue_base(job.queue), 1);
    }
  }
  exact_ = exact;
  kept_sums_ = sums;
  // For close (closed_entries.cpp): what was written again, where it is now.
  rewritten_ = std::move(again);
  for (size_t j = kept_jobs; j < jobs; ++j) rewritten_.push_back(static_cast<uint32_t>(j));
  removed_at_open_ = removed;
  return true;
}

void Session::note_opening(const Snapshot& snap) {
  SessionMemory& m = *memory_;
  const size_t d = dims();
  m.writer = snap.changes.writer;
  m.version = snap.changes.version;
  m.layout = snap.changes.layout;
  m.session = this;
  m.exact = exact_;
  m.kept = config_.equivalence_cache && snap.exact_vectors && snap.changes.writer != 0;
  m.opening_placed.assign(placed_.begin(), placed_.end());
  m.opening_queue_allocated.resize(d * queues_.size());
  for (size_t q = 0; q < queues_.size(); ++q)
    std::copy_n(queues_[q].allocated, d, m.opening_queue_allocated.data() + q * d);
  m.sums_kept = false;
  if (kept_sums_) note_opening_sums();
  // The last session's journal is read: its storage serves this one's.
  std::swap(journal_, m.touched);
  journal_.clear(jobs_.size(), nodes_.size());
}

void Session::note_opening_sums() {
  SessionMemory& m = *memory_;
  m.opening_queue_sums.assign(queue_sums_memory_.begin(), queue_sums_memory_.end());
  m.opening_queue_jobs.resize(queue_sums_.size());
  for (size_t q = 0; q < queue_sums_.size(); ++q) m.opening_queue_jobs[q] = queue_sums_[q].jobs;
  m.sums_kept = m.exact.whole_requests && m.exact.whole_min_resources;
}

namespace {

// The first difference between the records of two sessions, as a line.
class Differences {
 public:
  explicit Differences(size_t dims) : dims_(dims) {}
  template <class T>
  void same(const char* what, size_t i, const T& a, const T& b) {
    if (first_.empty() && !(a == b)) first_ = std::string(what) + " of #" + std::to_string(i);
  }
  void vector(const char* what, size_t i, const double* a, const double* b) {
    if (first_.empty() && (a == nullptr) != (b == nullptr))
      first_ = std::string(what) + " of #" + std::to_string(i) + " (null on one side)";
    if (first_.empty() && a != nullptr && std::memcmp(a, b, dims_ * sizeof(double)) != 0)
      first_ = std::string(what) + " of #" + std::to_string(i);
  }
  void topology(const char* what, size_t i, const scoria_network_topology& a,
                const scoria_network_topology& b) {
    same(what, i, a.mode, b.mode);
    same(what, i, a.declared_mode, b.declared_mode);
    same(what, i, a.highest_tier_allowed, b.highest_tier_allowed);
    same(what, i, a.has_highest_tier_allowed, b.has_highest_tier_allowed);
    same(what, i, a.allocated_hypernode, b.allocated_hypernode);
  }
  const std::string& first() const { return first_; }

 private:
  size_t dims_;
  std::string first_;
};

}  // namespace

// verify_records compares every field of every record (records.h) but the
// session pointer. A field added to a record must be compared too: on the
// platform CI builds, a record's size stops the build until it is, and then
// until the size here is updated with it.
#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(Job) == 280 && sizeof(Task) == 88 && sizeof(SubJob) == 152 &&
                  sizeof(Node) == 96,
              "a session record gained or lost a field: compare it in verify_records, then "
              "update the size here");
#endif

void Session::verify_records(const Snapshot& snap) const {
  Session fresh(snap, config_, workers_, nullptr);
  Differences diff(dims());
  diff.same("job count", 0, jobs_.size(), fresh.jobs_.size());
  diff.same("task count", 0, tasks_.size(), fresh.tasks_.size());
  diff.same("sub-job count", 0, sub_jobs_.size(), fresh.sub_jobs_.size());
  diff.same("node count", 0, nodes_.size(), fresh.nodes_.size());
  if (!diff.first().empty()) throw std::logic_error("kept session records differ: " + diff.first());
  for (size_t i = 0; i < jobs_.size(); ++i) {
    const Job &a = jobs_[i], &b = fresh.jobs_[i];
    diff.same("job group", i, a.group, b.group);
    diff.same("job index", i, a.index, b.index);
    diff.same("job queue", i, a.queue, b.queue);
    diff.same("job phase", i, a.phase, b.phase);
    diff.same("job priority", i, a.priority, b.priority);
    diff.same("job tasks", i, a.tasks.begin(), b.tasks.begin());
    diff.same("job tasks", i, a.tasks.size(), b.tasks.size());
    for (size_t k = 0; k < 10; ++k)
      diff.same("job status count", i, a.status_count[k], b.status_count[k]);
    diff.same("job pending best-effort", i, a.pending_best_effort, b.pending_best_effort);
    diff.same("job committed", i, a.committed, b.committed);
    diff.vector("job allocated", i, a.allocated, b.allocated);
    diff.vector("job total request", i, a.total_request, b.total_request);
    diff.vector("job min resources", i, a.min_resources, b.min_resources);
    diff.same("job fit error", i, a.fit_error, b.fit_error);
    diff.same("job uid", i, a.uid, b.uid);
    diff.same("job namespace", i, a.spec.namespace_, b.spec.namespace_);
    diff.same("job name", i, a.spec.name, b.spec.name);
    diff.same("job spec queue", i, a.spec.queue, b.spec.queue);
    diff.same("job creation", i, a.spec.creation_ms, b.spec.creation_ms);
    diff.same("job min member", i, a.spec.min_member, b.spec.min_member);
    diff.same("job preemptable", i, a.spec.preemptable, b.spec.preemptable);
    diff.same("job has min resources", i, a.spec.has_min_resources, b.spec.has_min_resources);
    diff.same("job has topology", i, a.spec.has_network_topology, b.spec.has_network_topology);
    diff.same("job has policies", i, a.spec.has_sub_group_policy, b.spec.has_sub_group_policy);
    diff.same("job source", i, a.source, b.source);
    diff.same("job source seq", i, a.source_seq, b.source_seq);
    diff.same("job invalid", i, a.invalid, b.invalid);
    diff.topology("job topology", i, a.topology, b.topology);
    diff.same("job first sub-job", i, a.first_sub_job, b.first_sub_job);
    diff.same("job sub-job count", i, a.sub_job_count, b.sub_job_count);
    diff.same("job sub-group policy", i, a.has_sub_group_policy, b.has_sub_group_policy);
  }
  for (size_t i = 0; i < tasks_.size(); ++i) {
    const Task &a = tasks_[i], &b = fresh.tasks_[i];
    diff.same("task pod", i, a.pod, b.pod);
    diff.same("task views", i, a.views, b.views);
    diff.same("task index", i, a.index, b.index);
    diff.same("task job", i, a.job, b.job);
    diff.same("task sub-job", i, a.sub_job, b.sub_job);
    diff.same("task node", i, a.node, b.node);
    diff.same("task status", i, a.status, b.status);
    diff.same("task priority", i, a.priority, b.priority);
    diff.same("task best effort", i, a.best_effort, b.best_effort);
    diff.same("task committed", i, a.committed, b.committed);
    diff.same("task last discarded", i, a.last_discarded, b.last_discarded);
    diff.same("task last discarded node", i, a.last_discarded_node, b.last_discarded_node);
    diff.vector("task request", i, a.resreq, b.resreq);
    diff.vector("task init request", i, a.init_resreq, b.init_resreq);
    diff.same("task fit", i, a.fit, b.fit);
    diff.same("task bind annotations", i, a.bind_annotations, b.bind_annotations);
  }
  for (size_t i = 0; i < sub_jobs_.size(); ++i) {
    const SubJob &a = sub_jobs_[i], &b = fresh.sub_jobs_[i];
    diff.same("sub-job job", i, a.job, b.job);
    diff.same("sub-job index", i, a.index, b.index);
    diff.same("sub-job uid", i, a.uid, b.uid);
    diff.same("sub-job gid", i, a.gid, b.gid);
    diff.same("sub-job policy", i, a.policy, b.policy);
    diff.same("sub-job min available", i, a.min_available, b.min_available);
    diff.same("sub-job match index", i, a.match_index, b.match_index);
    diff.same("sub-job priority", i, a.priority, b.priority);
    diff.same("sub-job range", i, a.range.begin(), b.range.begin());
    diff.same("sub-job range", i, a.range.size(), b.range.size());
    diff.same("sub-job whole job", i, a.whole_job, b.whole_job);
    for (size_t k = 0; k < 10; ++k)
      diff.same("sub-job status count", i, a.status_count[k], b.status_count[k]);
    diff.same("sub-job pending best-effort", i, a.pending_best_effort, b.pending_best_effort);
    diff.topology("sub-job topology", i, a.topology, b.topology);
  }
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node &a = nodes_[i], &b = fresh.nodes_[i];
    diff.same("node spec", i, a.spec, b.spec);
    diff.same("node index", i, a.index, b.index);
    diff.same("node tasks", i, std::vector<uint32_t>(a.tasks.begin(), a.tasks.end()),
              std::vector<uint32_t>(b.tasks.begin(), b.tasks.end()));
    diff.vector("node allocatable", i, a.allocatable, b.allocatable);
    diff.vector("node idle", i, a.idle, b.idle);
    diff.vector("node used", i, a.used, b.used);
    diff.vector("node releasing", i, a.releasing, b.releasing);
    diff.vector("node pipelined", i, a.pipelined, b.pipelined);
  }
  for (size_t i = 0; i < queues_.size(); ++i)
    diff.vector("queue allocated", i, queues_[i].allocated, fresh.queues_[i].allocated);
  diff.same("placed tasks", 0, placed_, fresh.placed_);
  diff.same("featured tasks", 0, featured_, fresh.featured_);
  diff.same("topology jobs", 0, topology_jobs_, fresh.topology_jobs_);
  diff.same("sub-job members", 0, sub_job_members_, fresh.sub_job_members_);
  diff.same("jobs with pending tasks", 0, pending_task_jobs_, fresh.pending_task_jobs_);
  diff.same("jobs in phase pending", 0, phase_pending_jobs_, fresh.phase_pending_jobs_);
  diff.same("jobs without queue", 0, queueless_jobs_, fresh.queueless_jobs_);
  if (kept_sums_) {
    const std::span<const QueueJobSums> sums = fresh.queue_job_sums();
    for (size_t q = 0; q < sums.size(); ++q)
      diff.same("queue job count", q, queue_sums_[q].jobs, sums[q].jobs);
    diff.same("queue sums", 0, queue_sums_memory_, fresh.queue_sums_memory_);
  }
  if (!diff.first().empty()) throw std::logic_error("kept session records differ: " + diff.first());
}

}  // namespace scoria::session
