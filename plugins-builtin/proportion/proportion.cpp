// The proportion plugin (Volcano's proportion): divides the cluster among
// the queues that have jobs by weight, water-filling: each round hands the
// remaining resources out in proportion to the weights of the queues not yet
// satisfied, capping each queue's deserved share at its real capability and
// at what its jobs request, and raising it to its guarantee, until nothing
// is left or nothing changes. Then:
//
//   queue order   higher spec.priority first, then the lower share
//                 (allocated / deserved, the largest over resources);
//   overused      deserved <= allocated;
//   allocatable   allocated + the task's request <= deserved, in the
//                 resources the task asks for (and the queue is open);
//   preemptive    the same test, for reclaim, for one task or for several
//                 together (their requests summed: gangreclaim asks for a
//                 gang's Pending tasks at once);
//   reclaimable   a queue's tasks are victims while it holds more than it
//                 deserves;
//   enqueueable   minResources + allocated + inqueue - elastic <= real
//                 capability (jobs without minResources always are);
//
// and each queue's deserved share is written to its status at close.
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "queue_ledger.h"

namespace {

using ledger::QueueAccount;
using ledger::Vec;
using scoria::api;
using scoria::log_line;

struct Proportion {
  ledger::QueueLedger book;  // per session
};

bool same(const Vec& a, const Vec& b) {
  for (size_t d = 0; d < a.size(); ++d)
    if (std::fabs(a[d] - b[d]) > 1e-9) return false;
  return true;
}

// Volcano's water-filling of deserved shares.
void divide(ledger::QueueLedger& book) {
  const size_t dims = book.dims();
  Vec remaining = book.total();
  std::vector<bool> met(book.accounts().size(), false);
  for (;;) {
    int64_t total_weight = 0;
    for (size_t q = 0; q < met.size(); ++q)
      if (book.accounts()[q].has_jobs && !met[q]) total_weight += book.accounts()[q].weight;
    if (total_weight == 0) break;

    const Vec before = remaining;
    Vec increased(dims, 0);
    Vec decreased(dims, 0);
    for (size_t q = 0; q < met.size(); ++q) {
      QueueAccount& a = book.accounts()[q];
      if (!a.has_jobs || met[q]) continue;
      const Vec old = a.deserved;
      const double part = static_cast<double>(a.weight) / static_cast<double>(total_weight);
      for (size_t d = 0; d < dims; ++d) {
        double v = a.deserved[d] + remaining[d] * part;
        v = std::min(v, a.real_capability[d]);
        v = std::min(v, a.request[d]);
        a.deserved[d] = std::max(v, a.guarantee[d]);
      }
      ledger::QueueLedger::update_share(a);
      if (book.less_equal(a.request, a.deserved) || same(a.deserved, old)) met[q] = true;
      for (size_t d = 0; d < dims; ++d) {
        const double diff = a.deserved[d] - old[d];
        (diff > 0 ? increased : decreased)[d] += std::fabs(diff);
      }
    }
    bool empty = true;
    for (size_t d = 0; d < dims; ++d) {
      remaining[d] = std::max(0.0, remaining[d] + decreased[d] - increased[d]);
      if (d != SCORIA_DIM_PODS && remaining[d] >= SCORIA_RESOURCE_EPSILON) empty = false;
    }
    if (empty || same(remaining, before)) break;
  }
  for (const QueueAccount& a : book.accounts())
    if (a.has_jobs)
      log_line(SCORIA_LOG_V4, "queue <", a.name, "> deserves cpu ", a.deserved[SCORIA_DIM_CPU],
               " memory ", a.deserved[SCORIA_DIM_MEMORY], ", holds cpu ",
               a.allocated[SCORIA_DIM_CPU], " (share ", a.share, ")");
}

ledger::QueueLedger& book_of(void* user_data) {
  return *static_cast<ledger::QueueLedger*>(user_data);
}

int queue_order(void* user_data, const scoria_queue* l, const scoria_queue* r) {
  auto& book = book_of(user_data);
  const QueueAccount* la = book.of(l);
  const QueueAccount* ra = book.of(r);
  if (la == nullptr || ra == nullptr) return 0;
  if (la->priority != ra->priority) return la->priority > ra->priority ? -1 : 1;
  if (la->share == ra->share) return 0;
  return la->share < ra->share ? -1 : 1;
}

int overused(void* user_data, const scoria_queue* queue) {
  auto& book = book_of(user_data);
  const QueueAccount* a = book.of(queue);
  if (a == nullptr || !a->has_jobs) return 0;
  const bool over = book.less_equal(a->deserved, a->allocated);
  if (over) log_line(SCORIA_LOG_V3, "queue <", a->name, "> is overused (share ", a->share, ")");
  return over ? 1 : 0;
}

int allocatable(void* user_data, const scoria_queue* queue, const scoria_task* task) {
  auto& book = book_of(user_data);
  const QueueAccount* a = book.of(queue);
  if (a == nullptr) return 1;
  if (!a->open) return 0;
  const bool ok = book.fits(*a, task, a->deserved);
  if (!ok)
    log_line(SCORIA_LOG_V3, "queue <", a->name, "> cannot take <",
             scoria::view(scoria::info(task).uid), ">: it would exceed its deserved share");
  return ok ? 1 : 0;
}

// Volcano's PreemptiveFn over several tasks: the queue is open and its
// allocation plus what they ask for together stays within deserved.
int preemptive_tasks(void* user_data, const scoria_queue* queue, const scoria_task* const* tasks,
                     size_t count) {
  auto& book = book_of(user_data);
  const QueueAccount* a = book.of(queue);
  if (a == nullptr) return 1;
  if (!a->open) return 0;
  const Vec request = book.request_of(tasks, count);
  const bool ok = book.fits_request(*a, request.data(), a->deserved);
  if (!ok)
    log_line(SCORIA_LOG_V3, "queue <", a->name, "> cannot reclaim for ", count,
             " tasks: they would exceed its deserved share");
  return ok ? 1 : 0;
}

scoria_vote reclaimable(void* user_data, const scoria_task* /*reclaimer*/,
                        const scoria_task* const* candidates, size_t count, uint8_t* selected) {
  book_of(user_data).select_above_deserved(candidates, count, selected, false);
  return SCORIA_VOTE_PERMIT;
}

scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  return scoria::guarded([&] {
    auto& self = *static_cast<Proportion*>(instance);
    self.book = ledger::QueueLedger(ssn);
    divide(self.book);
    hooks->user_data = &self.book;
    hooks->on_queue_order = queue_order;
    hooks->on_overused = overused;
    hooks->on_allocatable = allocatable;
    hooks->on_preemptive = allocatable;
    hooks->on_preemptive_tasks = preemptive_tasks;
    hooks->on_reclaimable = reclaimable;
    hooks->on_job_enqueueable = ledger::enqueueable_hook;
    hooks->on_job_enqueued = ledger::enqueued_hook;
    hooks->on_allocate = ledger::allocate_hook;
    hooks->on_deallocate = ledger::deallocate_hook;
  });
}

void on_session_close(void* instance, scoria_session* ssn) {
  auto& self = *static_cast<Proportion*>(instance);
  self.book.write_deserved(ssn, /*with_jobs_only=*/true);
  self.book = ledger::QueueLedger();
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "proportion",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS,  // Volcano's proportion takes no arguments
    .version = "1.0.0",
    .description =
        "Queue shares by weight (capability, guarantee): queue order, overused, "
        "allocatable, reclaimable, enqueueable",
    .on_create = scoria::create_instance<Proportion>,
    .on_destroy = scoria::destroy_instance<Proportion>,
    .on_session_open = on_session_open,
    .on_session_close = on_session_close,
    .on_execute = nullptr,
    .args = nullptr,
    .arg_count = 0,
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
