#include "queue_ledger.h"

#include <scoria/scoria.hpp>

#include <algorithm>
#include <cmath>
#include <utility>

namespace ledger {

namespace {

using scoria::api;

void add(Vec& into, const double* v, double sign = 1) {
  if (v == nullptr) return;
  for (size_t d = 0; d < into.size(); ++d) into[d] += sign * v[d];
}

bool le(double l, double r) { return l < r || std::fabs(l - r) < SCORIA_RESOURCE_EPSILON; }

}  // namespace

QueueLedger::QueueLedger(scoria_session* ssn)
    : dims_(scoria::dims(ssn)), total_(scoria::node_totals(ssn, true, false).allocatable) {
  const size_t queues = api().queue_count(ssn);
  accounts_.resize(queues);
  Vec total_guarantee(dims_, 0);
  for (size_t q = 0; q < queues; ++q) {
    QueueAccount& a = accounts_[q];
    a.queue = api().queue_at(ssn, q);
    const scoria_queue_info qi = scoria::info(a.queue);
    a.name = scoria::view(qi.name);
    a.weight = qi.weight;
    a.priority = qi.priority;
    a.open = qi.open != 0;
    for (Vec* v : {&a.allocated, &a.request, &a.inqueue, &a.elastic, &a.guarantee, &a.deserved})
      v->assign(dims_, 0);
    a.capability.assign(qi.capability, qi.capability + dims_);
    add(a.guarantee, qi.guarantee);
    add(total_guarantee, qi.guarantee);
  }
  for (QueueAccount& a : accounts_) {
    // The cluster less every guarantee, plus this queue's own, capped by
    // its capability.
    a.real_capability.resize(dims_);
    for (size_t d = 0; d < dims_; ++d)
      a.real_capability[d] =
          std::min(std::max(0.0, total_[d] - total_guarantee[d]) + a.guarantee[d], a.capability[d]);
  }

  // What the queues' jobs hold and ask for, summed by the host in one pass
  // job by job (Volcano sums them walking every job at session open).
  const std::vector<scoria_queue_job_sums> sums = scoria::queue_job_sums(ssn);
  for (size_t q = 0; q < queues; ++q) {
    QueueAccount& a = accounts_[q];
    const scoria_queue_job_sums& s = sums[q];
    a.has_jobs = s.jobs > 0;
    a.allocated.assign(s.allocated, s.allocated + dims_);
    a.request.assign(s.request, s.request + dims_);
    a.elastic.assign(s.elastic, s.elastic + dims_);
    // What admitted jobs may still claim towards their minimum: Inqueue
    // ones, and Running ones holding their minMember.
    for (size_t d = 0; d < dims_; ++d)
      a.inqueue[d] = s.inqueue_unallocated[d] + s.running_unallocated[d];
  }
}

QueueAccount* QueueLedger::of(const scoria_queue* queue) {
  if (queue == nullptr) return nullptr;
  const uint32_t index = scoria::info(queue).index;
  return index < accounts_.size() ? &accounts_[index] : nullptr;
}

QueueAccount* QueueLedger::of_task(const scoria_task* task) {
  const scoria_task_info ti = scoria::info(task);
  return ti.job == nullptr ? nullptr : of(scoria::info(ti.job).queue);
}

void QueueLedger::update_share(QueueAccount& a) {
  double share = 0;
  bool any_deserved = false;
  for (size_t d = 0; d < a.deserved.size(); ++d) {
    if (d == SCORIA_DIM_PODS) continue;
    const double held = a.allocated[d];
    const double due = a.deserved[d];
    if (a.share_over_deserved) {
      if (due < SCORIA_RESOURCE_EPSILON) continue;
      any_deserved = true;
    }
    share = std::max(share, due == 0 ? (held == 0 ? 0.0 : 1.0) : held / due);
  }
  a.share = a.share_over_deserved && !any_deserved ? 1.0 : share;
}

void QueueLedger::allocate(const scoria_task* task, double sign) {
  QueueAccount* a = of_task(task);
  if (a == nullptr) return;
  const double* req = scoria::info(task).resreq;
  add(a->allocated, req, sign);
  update_share(*a);
  if (!rolled_up_) return;
  for (const size_t up : ancestors(static_cast<size_t>(a - accounts_.data()))) {
    add(accounts_[up].allocated, req, sign);
    update_share(accounts_[up]);
  }
}

void QueueLedger::roll_up(const std::vector<int32_t>& parents) {
  for (size_t q = 0; q < accounts_.size() && q < parents.size(); ++q) {
    accounts_[q].parent = parents[q];
    if (parents[q] >= 0) accounts_[static_cast<size_t>(parents[q])].leaf = false;
  }
  for (size_t q = 0; q < accounts_.size(); ++q) {
    const QueueAccount& own = accounts_[q];
    if (!own.has_jobs) continue;
    for (const size_t up : ancestors(q)) {
      QueueAccount& a = accounts_[up];
      add(a.allocated, own.allocated.data());
      add(a.request, own.request.data());
      add(a.inqueue, own.inqueue.data());
      add(a.elastic, own.elastic.data());
    }
  }
  rolled_up_ = true;
}

std::vector<size_t> QueueLedger::ancestors(size_t q) const {
  std::vector<size_t> out;
  // Bounded by the number of queues, so that a cycle cannot loop forever.
  for (int32_t p = accounts_[q].parent; p >= 0 && out.size() < accounts_.size();
       p = accounts_[static_cast<size_t>(p)].parent)
    out.push_back(static_cast<size_t>(p));
  return out;
}

bool QueueLedger::less_equal(std::span<const double> l, std::span<const double> r,
                             std::span<const double> only_where) const {
  for (size_t d = 0; d < dims_; ++d) {
    if (d == SCORIA_DIM_PODS) continue;
    if (!only_where.empty() && only_where[d] <= 0) continue;
    if (!le(l[d], r[d])) return false;
  }
  return true;
}

bool QueueLedger::fits(const QueueAccount& a, const scoria_task* task, const Vec& bound) const {
  // Asked on every allocation attempt: compared in place, no copy.
  return fits_request(a, scoria::info(task).resreq, bound);
}

bool QueueLedger::fits_request(const QueueAccount& a, const double* request,
                               const Vec& bound) const {
  for (size_t d = 0; d < dims_; ++d) {
    if (d == SCORIA_DIM_PODS || request[d] <= 0) continue;
    if (!le(a.allocated[d] + request[d], bound[d])) return false;
  }
  return true;
}

Vec QueueLedger::request_of(const scoria_task* const* tasks, size_t count) const {
  Vec out(dims_, 0);
  for (size_t i = 0; i < count; ++i) add(out, scoria::info(tasks[i]).resreq);
  return out;
}

bool QueueLedger::admits(const QueueAccount& a, const scoria_job_info& job) const {
  const std::span<const double> min(job.min_resources, dims_);
  Vec r(dims_);
  for (size_t d = 0; d < dims_; ++d) r[d] = min[d] + a.allocated[d] + a.inqueue[d] - a.elastic[d];
  return less_equal(r, a.real_capability, min);
}

void QueueLedger::enqueued(const scoria_job* job) {
  const scoria_job_info ji = scoria::info(job);
  if (ji.has_min_resources == 0) return;
  QueueAccount* a = of(ji.queue);
  if (a == nullptr) return;
  add(a->inqueue, ji.min_resources);
  if (!rolled_up_) return;
  for (const size_t up : ancestors(static_cast<size_t>(a - accounts_.data())))
    add(accounts_[up].inqueue, ji.min_resources);
}

scoria_vote QueueLedger::enqueue_vote(const scoria_job* job) {
  const scoria_job_info ji = scoria::info(job);
  const QueueAccount* a = of(ji.queue);
  if (a == nullptr) return SCORIA_VOTE_PERMIT;
  if (!a->open) return SCORIA_VOTE_REJECT;
  if (ji.has_min_resources == 0) return SCORIA_VOTE_PERMIT;
  // The queue, then (hierarchical queues) each ancestor must admit it.
  const QueueAccount* refusing = admits(*a, ji) ? nullptr : a;
  if (rolled_up_ && refusing == nullptr)
    for (const size_t up : ancestors(static_cast<size_t>(a - accounts_.data())))
      if (!admits(accounts_[up], ji)) {
        refusing = &accounts_[up];
        break;
      }
  if (refusing == nullptr) return SCORIA_VOTE_PERMIT;
  scoria::log_line(SCORIA_LOG_V3, "job <", scoria::view(ji.uid),
                   "> does not fit the real capability of queue <", refusing->name, ">");
  return SCORIA_VOTE_REJECT;
}

void QueueLedger::select_above_deserved(const scoria_task* const* candidates, size_t count,
                                        uint8_t* selected, bool task_resources_only) {
  std::vector<std::pair<const QueueAccount*, Vec>> held;
  for (size_t i = 0; i < count; ++i) {
    const QueueAccount* a = of_task(candidates[i]);
    if (a == nullptr) continue;
    auto it = std::find_if(held.begin(), held.end(), [a](const auto& h) { return h.first == a; });
    if (it == held.end()) it = held.insert(held.end(), {a, a->allocated});
    const scoria_task_info ti = scoria::info(candidates[i]);
    bool above = false;
    for (size_t d = 0; d < dims_ && !above; ++d) {
      if (d == SCORIA_DIM_PODS || (task_resources_only && ti.resreq[d] <= 0)) continue;
      above = !le(it->second[d], a->deserved[d]);
    }
    if (!above) continue;
    add(it->second, ti.resreq, -1);
    selected[i] = 1;
  }
}

void QueueLedger::write_deserved(scoria_session* ssn, bool with_jobs_only) const {
  if (!SCORIA_HOST_HAS(&api(), session_queue_set_deserved)) return;
  for (const QueueAccount& a : accounts_)
    if (a.has_jobs || !with_jobs_only)
      api().session_queue_set_deserved(ssn, a.queue, a.deserved.data());
}

scoria_vote enqueueable_hook(void* ledger, const scoria_job* job) {
  return static_cast<QueueLedger*>(ledger)->enqueue_vote(job);
}
void enqueued_hook(void* ledger, const scoria_job* job) {
  static_cast<QueueLedger*>(ledger)->enqueued(job);
}
void allocate_hook(void* ledger, const scoria_task* task) {
  static_cast<QueueLedger*>(ledger)->allocate(task, 1);
}
void deallocate_hook(void* ledger, const scoria_task* task) {
  static_cast<QueueLedger*>(ledger)->allocate(task, -1);
}

}  // namespace ledger
