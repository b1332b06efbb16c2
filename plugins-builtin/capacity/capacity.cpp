// The capacity plugin (Volcano's capacity): each queue states its share
// outright. deserved is spec.deserved (capped by the real capability, raised
// to the guarantee); a queue may grow up to its real capability (the cluster
// less the other queues' guarantees, capped by spec.capability) while others
// leave room, and gives back what it holds beyond deserved when another
// queue reclaims. Hooks:
//
//   queue order   higher spec.priority first, then the lower share
//                 (allocated / deserved), then a queue with a deserved share;
//   allocatable   allocated + the task's request <= real capability, in the
//                 resources the task asks for (and the queue is open);
//   preemptive    the same, and within deserved where deserved is set;
//   reclaimable   a queue's tasks are victims while it holds more than it
//                 deserves in a resource the task uses;
//   enqueueable   minResources + allocated + inqueue - elastic <= real
//                 capability.
//
// Volcano's hierarchical queues (enabledHierarchy) are not offered: queues
// are treated as flat and a warning says so.
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <algorithm>
#include <cstddef>

#include "queue_ledger.h"

namespace {

using ledger::QueueAccount;
using scoria::api;
using scoria::log_line;

struct Capacity {
  explicit Capacity(const scoria_args* args) {
    if (args != nullptr && scoria::arg_bool(args, "enabledHierarchy", false))
      log_line(SCORIA_LOG_WARNING,
               "capacity: enabledHierarchy is not supported; queues are treated as flat");
  }
  ledger::QueueLedger book;  // per session
};

ledger::QueueLedger& book_of(void* user_data) {
  return *static_cast<ledger::QueueLedger*>(user_data);
}

bool has_deserved(const QueueAccount& a) {
  for (size_t d = 0; d < a.deserved.size(); ++d)
    if (d != SCORIA_DIM_PODS && a.deserved[d] >= SCORIA_RESOURCE_EPSILON) return true;
  return false;
}

int queue_order(void* user_data, const scoria_queue* l, const scoria_queue* r) {
  auto& book = book_of(user_data);
  const QueueAccount* la = book.of(l);
  const QueueAccount* ra = book.of(r);
  if (la == nullptr || ra == nullptr) return 0;
  if (la->priority != ra->priority) return la->priority > ra->priority ? -1 : 1;
  if (la->share != ra->share) return la->share < ra->share ? -1 : 1;
  const bool ld = has_deserved(*la);
  if (ld == has_deserved(*ra)) return 0;
  return ld ? -1 : 1;
}

int allocatable(void* user_data, const scoria_queue* queue, const scoria_task* task) {
  auto& book = book_of(user_data);
  const QueueAccount* a = book.of(queue);
  if (a == nullptr) return 1;
  if (!a->open) return 0;
  const bool ok = book.fits(*a, task, a->real_capability);
  if (!ok)
    log_line(SCORIA_LOG_V3, "queue <", a->name, "> cannot take <",
             scoria::view(scoria::info(task).uid), ">: it would exceed its capability");
  return ok ? 1 : 0;
}

int preemptive(void* user_data, const scoria_queue* queue, const scoria_task* task) {
  auto& book = book_of(user_data);
  const QueueAccount* a = book.of(queue);
  if (a == nullptr) return 1;
  if (!a->open || !book.fits(*a, task, a->real_capability)) return 0;
  // Within deserved, in the resources the task asks for and the queue is
  // given a deserved amount of.
  const scoria_task_info ti = scoria::info(task);
  for (size_t d = 0; d < book.dims(); ++d) {
    if (d == SCORIA_DIM_PODS || ti.resreq[d] <= 0 || a->deserved[d] <= 0) continue;
    if (a->allocated[d] + ti.resreq[d] > a->deserved[d] + SCORIA_RESOURCE_EPSILON) return 0;
  }
  return 1;
}

scoria_vote reclaimable(void* user_data, const scoria_task* /*reclaimer*/,
                        const scoria_task* const* candidates, size_t count, uint8_t* selected) {
  book_of(user_data).select_above_deserved(candidates, count, selected, true);
  return SCORIA_VOTE_PERMIT;
}

scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  return scoria::guarded([&] {
    auto& self = *static_cast<Capacity*>(instance);
    self.book = ledger::QueueLedger(ssn);
    for (QueueAccount& a : self.book.accounts()) {
      const scoria_queue_info qi = scoria::info(a.queue);
      for (size_t d = 0; d < self.book.dims(); ++d)
        a.deserved[d] = std::max(std::min(qi.deserved[d], a.real_capability[d]), a.guarantee[d]);
      ledger::QueueLedger::update_share(a);
    }
    hooks->user_data = &self.book;
    hooks->on_queue_order = queue_order;
    hooks->on_allocatable = allocatable;
    hooks->on_preemptive = preemptive;
    hooks->on_reclaimable = reclaimable;
    hooks->on_job_enqueueable = ledger::enqueueable_hook;
    hooks->on_job_enqueued = ledger::enqueued_hook;
    hooks->on_allocate = ledger::allocate_hook;
    hooks->on_deallocate = ledger::deallocate_hook;
  });
}

void on_session_close(void* instance, scoria_session* ssn) {
  auto& self = *static_cast<Capacity*>(instance);
  self.book.write_deserved(ssn, /*with_jobs_only=*/false);
  self.book = ledger::QueueLedger();
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "capacity",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = 0,
    .version = "1.0.0",
    .description =
        "Queue shares as stated (deserved, capability, guarantee): queue order, "
        "allocatable, preemptive, reclaimable, enqueueable",
    .on_create = scoria::create_instance<Capacity>,
    .on_destroy = scoria::destroy_instance<Capacity>,
    .on_session_open = on_session_open,
    .on_session_close = on_session_close,
    .on_execute = nullptr,
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
