// The capacity plugin (Volcano's capacity): each queue states its share
// outright. deserved is spec.deserved (capped by the real capability, raised
// to the guarantee); a queue may grow up to its real capability (the cluster
// less the other queues' guarantees, capped by spec.capability) while others
// leave room, and gives back what it holds beyond deserved when another
// queue reclaims. Hooks:
//
//   queue order   higher spec.priority first, then the lower share
//                 (allocated / deserved over the resources with a deserved
//                 amount; 1 for a queue with no deserved share), then a
//                 queue with a deserved share;
//   allocatable   allocated + the task's request <= real capability, in the
//                 resources the task asks for (and the queue is open);
//   preemptive    the same, and (Volcano HEAD, for one task as for several
//                 together) allocated + their request within deserved in at
//                 least one resource they ask for: a queue with no deserved
//                 share does not reclaim;
//   reclaimable   Volcano HEAD's per-resource rule: a victim frees something
//                 the reclaimer asks for, its queue keeps its guarantee
//                 without it, and the queue has no deserved share of what the
//                 victim uses or holds more than it deserves in one of them;
//   evictable     gangpreempt: every candidate; gangreclaim: a victim's
//                 queue keeps its guarantee, and gives up tasks whose
//                 resources it has no deserved share of, or while it holds
//                 more than it deserves in a resource the task uses;
//   enqueueable   minResources + allocated + inqueue - elastic <= real
//                 capability.
//
// With SchedulingGatesQueueAdmission (the host reports it in each task's
// queue_gate), a pending task whose queue-admission gate was lifted holds
// its request reserved in its queue until it is placed: allocatable and
// preemptive count the reservations in the task's own queue, and a task
// that opted in and passes allocatable reserves (gate_reservations.h).
//
// With capacity.DynamicResourceAllocationEnable (default on), allocatable
// and enqueueable also hold each queue to the devices per DeviceClass its
// capability names (device_quota.h).
//
// With enableHierarchy, queues form a tree through spec.parent (see
// queue_tree.h): a task must fit the real capability of its queue and of
// every ancestor, a job must be admitted by each of them, leaves go before
// other queues and are ordered through their ancestors' shares, and victims
// are taken first from the queues most closely related to the preemptor's.
// With ancestorReclaimLevel N above 0, reclaim also weighs the ancestors up
// to N levels (see reclaimable() and preemptive below).
//
// A hierarchy Volcano cannot use (a job in a queue with children, an
// unknown parent, a cycle) makes its capacity refuse everything for the
// session: no job is enqueued, no task allocated, no queue reclaims, and
// gang reclaim finds no victims; gang preemption within a queue is not
// held back. Scoria does the same (register_refusing()), with the reason on every
// job it turns away.
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "device_quota.h"
#include "gate_reservations.h"
#include "queue_ledger.h"
#include "queue_tree.h"

namespace {

using ledger::QueueAccount;
using scoria::api;
using scoria::log_line;

// Every argument Volcano's capacity reads, with its defaults. (Volcano
// takes a negative ancestorReclaimLevel as 0 with a warning; Scoria refuses
// it at load. enableHierarchy is a plugin option beside `arguments`, not
// one of them; the host passes it to on_create as an argument of that name.)
constexpr scoria_arg_spec kArgs[] = {
    scoria::with_min(
        scoria::declare_arg(SCORIA_ARG_INT, "ancestorReclaimLevel", "0",
                            "with enableHierarchy, how many levels of ancestor queues reclaim "
                            "also weighs: a queue may reclaim while such an ancestor is within "
                            "its deserved share, and a victim goes only if each of its ancestors "
                            "up to that level, short of one it shares with the reclaimer, holds "
                            "more than it deserves; 0 weighs the victim's own queue only"),
        0),
    scoria::declare_arg(SCORIA_ARG_BOOL, "capacity.DynamicResourceAllocationEnable", "true",
                        "queue quota by device class: a queue's capability may name "
                        "deviceclass/CLASS (devices of that DeviceClass its tasks' "
                        "ResourceClaims may hold; a claim shared by several of its tasks counts "
                        "once); true as Kubernetes' DynamicResourceAllocation gate, GA"),
    scoria::declare_arg(SCORIA_ARG_BOOL, "capacity.DRAConsumableCapacityEnable", "false",
                        "with capacity.DynamicResourceAllocationEnable, also limit "
                        "DIM.deviceclass/CLASS, the consumable capacity DIM the claims request "
                        "of that class (capacity.requests); false as Kubernetes' alpha "
                        "DRAConsumableCapacity gate"),
};

struct Capacity {
  explicit Capacity(const scoria_args* args)
      : hierarchy(args != nullptr && scoria::arg_bool(args, "enableHierarchy", false)),
        ancestor_reclaim_level(args == nullptr ? 0
                                               : scoria::arg_int(args, "ancestorReclaimLevel", 0)),
        device_quota(args == nullptr ||
                     scoria::arg_bool(args, "capacity.DynamicResourceAllocationEnable", true)),
        consumable_capacity(args != nullptr &&
                            scoria::arg_bool(args, "capacity.DRAConsumableCapacityEnable", false)) {
  }
  bool hierarchy;
  int64_t ancestor_reclaim_level;
  bool device_quota;
  bool consumable_capacity;
  capacity::DeviceQuota devices;     // per session
  capacity::GateReservations gates;  // per session
  // Per session: ancestorReclaimLevel, at most the number of queues (no
  // tree is deeper), 0 without a usable hierarchy.
  int ancestor_levels = 0;
  ledger::QueueLedger book;  // per session
  bool tree = false;         // per session: the hierarchy is in use
  // Per session: why the hierarchy cannot be used, while capacity refuses
  // everything (Volcano's readyToSchedule false).
  std::string refusal;
  scoria_session* ssn = nullptr;
  // Per session, by queue index and dimension: 1 where the Queue's
  // spec.deserved or spec.guarantee.resource names the resource, even as 0.
  std::vector<std::vector<uint8_t>> named_in_spec;
};

Capacity& self_of(void* user_data) { return *static_cast<Capacity*>(user_data); }

size_t index_of(const scoria_queue* queue) { return scoria::info(queue).index; }

// Which resources each queue's spec.deserved and spec.guarantee.resource name
// (Volcano keeps a resource named with 0 as a dimension of deserved).
std::vector<std::vector<uint8_t>> names_in_specs(const scoria_session* ssn,
                                                 std::span<const QueueAccount> accounts) {
  const size_t dims = api().resource_dim_count(ssn);
  std::vector<std::vector<uint8_t>> out(accounts.size(), std::vector<uint8_t>(dims, 0));
  if (!SCORIA_HOST_HAS(&api(), queue_object_json)) return out;
  for (size_t q = 0; q < accounts.size(); ++q) {
    const std::string_view text = scoria::view(api().queue_object_json(accounts[q].queue));
    if (text.empty()) continue;
    const nlohmann::json doc =
        nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (!doc.is_object() || !doc.contains("spec") || !doc["spec"].is_object()) continue;
    const nlohmann::json& spec = doc["spec"];
    const auto mark = [&](const nlohmann::json* list) {
      if (list == nullptr || !list->is_object()) return;
      for (size_t d = 0; d < dims; ++d)
        if (list->contains(std::string(scoria::view(api().resource_dim_name(ssn, d)))))
          out[q][d] = 1;
    };
    if (spec.contains("deserved")) mark(&spec["deserved"]);
    if (spec.contains("guarantee") && spec["guarantee"].is_object() &&
        spec["guarantee"].contains("resource"))
      mark(&spec["guarantee"]["resource"]);
  }
  return out;
}

// Volcano's GreaterPartlyWithRelevantDimensions: cpu and memory count where
// the queue deserves some; an extended resource wherever its deserved names
// it, even as 0 (a queue given "nvidia.com/gpu: 0" holds too much of any GPU).
bool relevant(const Capacity& self, const QueueAccount& a, size_t d) {
  if (a.deserved[d] >= SCORIA_RESOURCE_EPSILON) return true;
  if (d == SCORIA_DIM_CPU || d == SCORIA_DIM_MEMORY || d == SCORIA_DIM_PODS) return false;
  const size_t q = index_of(a.queue);
  return q < self.named_in_spec.size() && d < self.named_in_spec[q].size() &&
         self.named_in_spec[q][d] != 0;
}

bool named(double v) { return v >= SCORIA_RESOURCE_EPSILON; }

// Volcano's hasRelevantDeserved: `req` asks for something `deserved` names
// (the pod count aside). A victim without it goes at once.
bool asks_deserved(const double* req, const ledger::Vec& deserved) {
  for (size_t d = 0; d < deserved.size(); ++d)
    if (d != SCORIA_DIM_PODS && named(req[d]) && named(deserved[d])) return true;
  return false;
}

// Volcano's GreaterPartlyWithRelevantDimensions: `allocated` (what queue
// `a` holds as victims go) above its deserved share in a resource `req`
// uses and the deserved share counts.
bool above_deserved(const Capacity& self, const QueueAccount& a, const ledger::Vec& allocated,
                    const double* req) {
  for (size_t d = 0; d < allocated.size(); ++d)
    if (d != SCORIA_DIM_PODS && req[d] > 0 && relevant(self, a, d) && allocated[d] > a.deserved[d])
      return true;
  return false;
}

// l <= r with Volcano's tolerance.
bool less_equal(double l, double r) { return l < r || std::fabs(l - r) < SCORIA_RESOURCE_EPSILON; }

ledger::QueueLedger& book_of(void* user_data) { return self_of(user_data).book; }

// Queue q and, in a tree, its ancestors (nearest first).
std::vector<size_t> levels(const Capacity& self, size_t q) {
  std::vector<size_t> out{q};
  if (self.tree) {
    const std::vector<size_t> up = self.book.ancestors(q);
    out.insert(out.end(), up.begin(), up.end());
  }
  return out;
}

// The task's queue index, if it has a queue.
std::optional<size_t> queue_of_task(const scoria_task* task) {
  const scoria_task_info ti = scoria::info(task);
  if (ti.job == nullptr) return std::nullopt;
  const scoria_queue* q = scoria::info(ti.job).queue;
  if (q == nullptr) return std::nullopt;
  return index_of(q);
}

// A task placed in (sign 1) or taken from (-1) its queue: the ledger, the
// gate reservations, then the device-class quota of its queue and
// ancestors. A task placed no longer holds a gate reservation; one taken
// back that opted in holds one again, as Volcano's capacity restores it on
// rollback (and on eviction, which Volcano reports the same way).
void account(Capacity& self, const scoria_task* task, int sign) {
  if (sign > 0) {
    ledger::allocate_hook(&self.book, task);
    if (self.gates.active()) self.gates.release(task);
  } else {
    ledger::deallocate_hook(&self.book, task);
    if (self.gates.active() && capacity::opted_in(scoria::info(task)))
      if (const auto q = queue_of_task(task)) self.gates.reserve(*q, task);
  }
  if (!self.devices.active()) return;
  if (const auto q = queue_of_task(task))
    for (const size_t at : levels(self, *q)) self.devices.allocate(at, task, sign);
}

// Volcano's enqueue vote with the device-class quota: the ledger's, then
// the job's device minimum within the capability of its queue and each
// ancestor.
scoria_vote enqueue_vote(Capacity& self, const scoria_job* job) {
  const scoria_vote vote = ledger::enqueueable_hook(&self.book, job);
  if (vote == SCORIA_VOTE_REJECT || !self.devices.active()) return vote;
  const scoria_queue* queue = scoria::info(job).queue;
  if (queue == nullptr) return vote;
  for (const size_t at : levels(self, index_of(queue)))
    if (!self.devices.admits(at, job)) {
      log_line(SCORIA_LOG_V3, "job <", scoria::view(scoria::info(job).uid),
               "> exceeds the device-class capability of queue <", self.book.accounts()[at].name,
               ">");
      return SCORIA_VOTE_REJECT;
    }
  return vote;
}

void enqueued(Capacity& self, const scoria_job* job) {
  ledger::enqueued_hook(&self.book, job);
  if (!self.devices.active()) return;
  if (const scoria_queue* queue = scoria::info(job).queue)
    for (const size_t at : levels(self, index_of(queue))) self.devices.enqueued(at, job);
}

// Volcano HEAD's capacity share: over the resources the queue is given a
// deserved amount of; 1 for a queue with none, so that best-effort queues go
// after every queue still below its deserved share.
void use_capacity_share(ledger::QueueLedger& book) {
  for (QueueAccount& a : book.accounts()) {
    a.share_over_deserved = true;
    ledger::QueueLedger::update_share(a);
  }
}

bool has_deserved(const QueueAccount& a) {
  for (size_t d = 0; d < a.deserved.size(); ++d)
    if (d != SCORIA_DIM_PODS && a.deserved[d] >= SCORIA_RESOURCE_EPSILON) return true;
  return false;
}

int compare_shares(const QueueAccount& l, const QueueAccount& r) {
  if (l.share != r.share) return l.share < r.share ? -1 : 1;
  const bool ld = has_deserved(l);
  if (ld == has_deserved(r)) return 0;
  return ld ? -1 : 1;
}

int queue_order(void* user_data, const scoria_queue* l, const scoria_queue* r) {
  Capacity& self = self_of(user_data);
  const QueueAccount* la = self.book.of(l);
  const QueueAccount* ra = self.book.of(r);
  if (la == nullptr || ra == nullptr) return 0;
  if (la->priority != ra->priority) return la->priority > ra->priority ? -1 : 1;
  if (self.tree) {
    // Leaves first (they hold the jobs); two leaves by their subtrees.
    if (la->leaf != ra->leaf) return la->leaf ? -1 : 1;
    if (la->leaf) {
      const auto [lh, rh] = capacity::order_heads(self.book, index_of(l), index_of(r));
      return compare_shares(self.book.accounts()[lh], self.book.accounts()[rh]);
    }
  }
  return compare_shares(*la, *ra);
}

int victim_queue_order(void* user_data, const scoria_queue* l, const scoria_queue* r,
                       const scoria_task* preemptor) {
  Capacity& self = self_of(user_data);
  const scoria_task_info pi = scoria::info(preemptor);
  if (!self.tree || pi.job == nullptr) return 0;
  const scoria_queue* pq = scoria::info(pi.job).queue;
  if (pq == nullptr) return 0;
  const int ll = capacity::shared_level(self.book, index_of(l), index_of(pq));
  const int rl = capacity::shared_level(self.book, index_of(r), index_of(pq));
  if (ll == rl) return 0;
  return ll > rl ? -1 : 1;
}

int allocatable(void* user_data, const scoria_queue* queue, const scoria_task* task) {
  Capacity& self = self_of(user_data);
  const QueueAccount* a = self.book.of(queue);
  if (a == nullptr) return 1;
  if (!a->open) return 0;
  // The queue and, in a tree, each ancestor up to the root.
  for (auto q = static_cast<int32_t>(index_of(queue)); q >= 0;
       q = self.tree ? self.book.accounts()[static_cast<size_t>(q)].parent : -1) {
    const QueueAccount& at = self.book.accounts()[static_cast<size_t>(q)];
    if (!self.devices.allocatable(static_cast<size_t>(q), task)) {
      log_line(SCORIA_LOG_V3, "queue <", a->name, "> cannot take <",
               scoria::view(scoria::info(task).uid),
               ">: its claims would exceed the device-class capability of <", at.name, ">");
      return 0;
    }
    // The gate reservations are kept by the task's own queue alone.
    const std::vector<double> reserved =
        at.queue == queue && self.gates.active()
            ? self.gates.with_reserved(static_cast<size_t>(q), task, self.book.dims())
            : std::vector<double>();
    if (reserved.empty() ? !self.book.fits(at, task, at.real_capability)
                         : !self.book.fits_request(at, reserved.data(), at.real_capability)) {
      log_line(SCORIA_LOG_V3, "queue <", a->name, "> cannot take <",
               scoria::view(scoria::info(task).uid), ">: it would exceed the capability of <",
               at.name, ">");
      return 0;
    }
  }
  return 1;
}

// The allocatable hook: the check, and a task that opted in to the gate
// reserves its room once it passes (Volcano's AllocatableFn).
int allocatable_hook(void* user_data, const scoria_queue* queue, const scoria_task* task) {
  if (allocatable(user_data, queue, task) == 0) return 0;
  Capacity& self = self_of(user_data);
  if (self.gates.active() && capacity::opted_in(scoria::info(task)))
    self.gates.reserve(index_of(queue), task);
  return 1;
}

// Volcano HEAD's PreemptiveFn rule for what `request` asks for: within the
// queue's deserved share in at least one of those resources. Resources
// neither held nor deserved do not count either way, so a queue with no
// deserved share (best effort) never reclaims.
bool within_deserved_partly(const QueueAccount& a, const ledger::Vec& request) {
  for (size_t d = 0; d < request.size(); ++d) {
    if (d == SCORIA_DIM_PODS || request[d] <= 0) continue;
    const double future = a.allocated[d] + request[d];
    if (future < SCORIA_RESOURCE_EPSILON && a.deserved[d] < SCORIA_RESOURCE_EPSILON) continue;
    if (less_equal(future, a.deserved[d])) return true;
  }
  return false;
}

// With ancestorReclaimLevel N (hierarchy only): a queue over its own
// deserved share may still reclaim while one of its ancestors up to N
// levels (the root aside) is within its deserved share for `request`.
bool ancestor_within_deserved(Capacity& self, const QueueAccount& a, const ledger::Vec& request) {
  if (!self.tree) return false;
  const size_t q = static_cast<size_t>(&a - self.book.accounts().data());
  for (int level = 1; level <= self.ancestor_levels; ++level)
    if (const auto up = capacity::ancestor_at(self.book, q, level);
        up && within_deserved_partly(self.book.accounts()[*up], request)) {
      log_line(SCORIA_LOG_V3, "queue <", a.name, "> may reclaim within the deserved share of <",
               self.book.accounts()[*up].name, ">");
      return true;
    }
  return false;
}

// Volcano HEAD has one PreemptiveFn, asked with the one task by its reclaim
// action: the same rule as for several tasks (below). A host with
// on_preemptive_tasks asks that hook even for one task; this one answers a
// host that asks task by task. In a tree the task must also fit every
// ancestor's capability.
int preemptive(void* user_data, const scoria_queue* queue, const scoria_task* task) {
  auto& book = book_of(user_data);
  const QueueAccount* a = book.of(queue);
  if (a == nullptr) return 1;
  if (allocatable(user_data, queue, task) == 0) return 0;
  const ledger::Vec request = book.request_of(&task, 1);
  if (within_deserved_partly(*a, request) ||
      ancestor_within_deserved(self_of(user_data), *a, request))
    return 1;
  log_line(SCORIA_LOG_V4, "queue <", a->name, "> cannot reclaim for <",
           scoria::view(scoria::info(task).uid),
           ">: it would exceed its deserved share in every resource the task asks for");
  return 0;
}

// Volcano's PreemptiveFn over several tasks: their summed request within the
// real capability, and within deserved in at least one resource they ask for.
int preemptive_tasks(void* user_data, const scoria_queue* queue, const scoria_task* const* tasks,
                     size_t count) {
  auto& book = book_of(user_data);
  const QueueAccount* a = book.of(queue);
  if (a == nullptr) return 1;
  if (!a->open) return 0;
  const ledger::Vec request = book.request_of(tasks, count);
  if (!book.fits_request(*a, request.data(), a->real_capability)) {
    log_line(SCORIA_LOG_V3, "queue <", a->name, "> cannot reclaim for ", count,
             " tasks: they would exceed its real capability");
    return 0;
  }
  if (within_deserved_partly(*a, request) ||
      ancestor_within_deserved(self_of(user_data), *a, request))
    return 1;
  log_line(SCORIA_LOG_V4, "queue <", a->name, "> cannot reclaim for ", count,
           " tasks: they would exceed its deserved share in every resource they ask for");
  return 0;
}

// Volcano's UnifiedEvictableFn. Gang preemption is within a queue, so the
// shares do not change: every candidate may go. Gang reclaim takes from each
// victim's queue, in the order given, while the queue keeps its guarantee
// and either has no deserved share of anything the task uses or holds more
// than it deserves in one of them.
scoria_vote evictable(void* user_data, const scoria_eviction_context* ctx,
                      const scoria_task* const* candidates, size_t count, uint8_t* selected) {
  if (ctx->kind == SCORIA_EVICTION_GANG_PREEMPT) {
    std::fill(selected, selected + count, uint8_t{1});
    return SCORIA_VOTE_PERMIT;
  }
  auto& book = book_of(user_data);
  const size_t dims = book.dims();
  std::vector<std::pair<const QueueAccount*, ledger::Vec>> held;  // per queue, as victims go
  for (size_t i = 0; i < count; ++i) {
    const QueueAccount* a = book.of_task(candidates[i]);
    if (a == nullptr) continue;
    auto it = std::find_if(held.begin(), held.end(), [a](const auto& h) { return h.first == a; });
    if (it == held.end()) it = held.insert(held.end(), {a, a->allocated});
    ledger::Vec& allocated = it->second;
    const double* req = scoria::info(candidates[i]).resreq;
    bool keeps_guarantee = true;
    bool shares_deserved = false;
    bool above_deserved = false;
    for (size_t d = 0; d < dims; ++d) {
      if (d == SCORIA_DIM_PODS) continue;
      keeps_guarantee = keeps_guarantee && less_equal(a->guarantee[d], allocated[d] - req[d]);
      if (req[d] >= SCORIA_RESOURCE_EPSILON && a->deserved[d] >= SCORIA_RESOURCE_EPSILON)
        shares_deserved = true;
      if (req[d] > 0 && relevant(self_of(user_data), *a, d) && allocated[d] > a->deserved[d])
        above_deserved = true;
    }
    if (!keeps_guarantee || (shares_deserved && !above_deserved)) continue;
    for (size_t d = 0; d < dims; ++d) allocated[d] -= req[d];
    selected[i] = 1;
  }
  return SCORIA_VOTE_PERMIT;
}

// Volcano HEAD's ReclaimableFn (the fixes for its issue #4918), for each
// candidate in victim order, with what each queue holds updated as victims
// go:
//   - a victim must free some resource the reclaimer asks for (its init
//     request): one that frees only memory is no use to a task short of a
//     GPU;
//   - its queue must keep its guarantee without it;
//   - its queue has no deserved share of anything the victim uses (the
//     victim goes at once), or holds more than it deserves in a resource the
//     victim uses and the queue's deserved counts (relevant() above);
//   - with ancestorReclaimLevel N (hierarchy only), a victim that goes at
//     once is spared when its queue shares an ancestor within N levels with
//     the reclaimer's and the reclaimer's queue deserves none of what it
//     asks for: there is no real contention under that ancestor. And each
//     of the victim's ancestors up to N levels (short of the root and of one
//     the reclaimer has at the same level) must give it up by the same rule,
//     with what it holds going down as victims go.
// The pod count is left out throughout, as Volcano leaves it out.
scoria_vote reclaimable(void* user_data, const scoria_task* reclaimer,
                        const scoria_task* const* candidates, size_t count, uint8_t* selected) {
  const Capacity& self = self_of(user_data);
  auto& book = book_of(user_data);
  const auto accounts = book.accounts();
  const scoria_task_info ri = scoria::info(reclaimer);
  const double* wants = ri.init_resreq != nullptr ? ri.init_resreq : ri.resreq;
  if (wants == nullptr) return SCORIA_VOTE_PERMIT;
  const QueueAccount* ra = book.of_task(reclaimer);
  const int levels = self.tree && ra != nullptr ? self.ancestor_levels : 0;
  // What each queue holds as victims go, by queue index (empty: untouched).
  std::vector<ledger::Vec> held(accounts.size());
  const auto holding = [&](size_t q) -> ledger::Vec& {
    if (held[q].empty()) held[q] = accounts[q].allocated;
    return held[q];
  };
  for (size_t i = 0; i < count; ++i) {
    const QueueAccount* a = book.of_task(candidates[i]);
    if (a == nullptr) continue;
    const double* req = scoria::info(candidates[i]).resreq;
    if (req == nullptr) continue;
    bool frees_wanted = false;
    for (size_t d = 0; d < book.dims() && !frees_wanted; ++d)
      frees_wanted = d != SCORIA_DIM_PODS && named(req[d]) && named(wants[d]);
    if (!frees_wanted) continue;
    const size_t q = index_of(a->queue);
    ledger::Vec& allocated = holding(q);
    bool keeps_guarantee = true;
    for (size_t d = 0; d < book.dims(); ++d)
      keeps_guarantee = keeps_guarantee && (d == SCORIA_DIM_PODS ||
                                            less_equal(a->guarantee[d], allocated[d] - req[d]));
    if (!keeps_guarantee) continue;
    if (!asks_deserved(req, a->deserved)) {
      if (levels > 0 && ri.resreq != nullptr &&
          capacity::share_ancestor_within(book, index_of(ra->queue), q, levels) &&
          !asks_deserved(ri.resreq, ra->deserved))
        continue;
    } else if (!above_deserved(self, *a, allocated, req)) {
      continue;
    }
    std::vector<size_t> ancestors;
    bool ancestors_give = true;
    for (int level = 1; level <= levels && ancestors_give; ++level) {
      const std::optional<size_t> up = capacity::ancestor_at(book, q, level);
      if (!up || capacity::ancestor_at(book, index_of(ra->queue), level) == up) continue;
      ancestors.push_back(*up);
      const QueueAccount& ua = accounts[*up];
      ancestors_give =
          !asks_deserved(req, ua.deserved) || above_deserved(self, ua, holding(*up), req);
    }
    if (!ancestors_give) continue;
    for (size_t d = 0; d < book.dims(); ++d) {
      allocated[d] -= req[d];
      for (const size_t up : ancestors) held[up][d] -= req[d];
    }
    selected[i] = 1;
  }
  return SCORIA_VOTE_PERMIT;
}

// While the hierarchy cannot be used (Capacity::refusal), Volcano's
// capacity refuses every enqueue, allocation and reclaim for the session;
// these hooks do the same and put the reason on each job they turn away.
void tell(Capacity& self, const scoria_job* job) {
  if (job != nullptr) api().session_job_set_fit_error(self.ssn, job, scoria::str(self.refusal));
}

void register_refusing(scoria_hooks* hooks) {
  hooks->on_job_enqueueable = [](void* ud, const scoria_job* job) {
    tell(self_of(ud), job);
    return SCORIA_VOTE_REJECT;
  };
  hooks->on_allocatable = [](void* ud, const scoria_queue*, const scoria_task* task) {
    tell(self_of(ud), scoria::info(task).job);
    return 0;
  };
  hooks->on_preemptive = [](void*, const scoria_queue*, const scoria_task*) { return 0; };
  hooks->on_preemptive_tasks = [](void*, const scoria_queue*, const scoria_task* const*, size_t) {
    return 0;
  };
  hooks->on_reclaimable = [](void*, const scoria_task*, const scoria_task* const*, size_t,
                             uint8_t*) { return SCORIA_VOTE_REJECT; };
  // Volcano answers gang preemption before it looks at the hierarchy.
  hooks->on_evictable = [](void*, const scoria_eviction_context* ctx, const scoria_task* const*,
                           size_t count, uint8_t* selected) {
    if (ctx->kind != SCORIA_EVICTION_GANG_PREEMPT) return SCORIA_VOTE_REJECT;
    std::fill(selected, selected + count, uint8_t{1});
    return SCORIA_VOTE_PERMIT;
  };
}

scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  return scoria::guarded([&] {
    auto& self = *static_cast<Capacity*>(instance);
    self.book = ledger::QueueLedger(ssn);
    use_capacity_share(self.book);
    self.tree = false;
    self.ancestor_levels = 0;
    self.refusal.clear();
    self.ssn = ssn;
    if (self.hierarchy) {
      for (QueueAccount& a : self.book.accounts())
        a.deserved.assign(scoria::info(a.queue).deserved,
                          scoria::info(a.queue).deserved + self.book.dims());
      if (const auto error = capacity::build_queue_tree(self.book)) {
        self.refusal =
            "capacity schedules nothing this session, as Volcano's does while its "
            "hierarchical queues are unusable: " +
            *error;
        log_line(SCORIA_LOG_WARNING, self.refusal);
        // Flat accounts, for the queues' status only.
        self.book = ledger::QueueLedger(ssn);
        use_capacity_share(self.book);
      } else {
        self.tree = true;
        self.ancestor_levels = static_cast<int>(std::min<int64_t>(
            self.ancestor_reclaim_level, static_cast<int64_t>(self.book.accounts().size())));
      }
    }
    if (!self.tree) {
      for (QueueAccount& a : self.book.accounts()) {
        const scoria_queue_info qi = scoria::info(a.queue);
        for (size_t d = 0; d < self.book.dims(); ++d)
          a.deserved[d] = std::max(std::min(qi.deserved[d], a.real_capability[d]), a.guarantee[d]);
        ledger::QueueLedger::update_share(a);
      }
    }
    self.named_in_spec = names_in_specs(ssn, self.book.accounts());
    self.gates.open(ssn, self.book.accounts().size());
    hooks->user_data = &self;
    hooks->on_job_enqueued = [](void* ud, const scoria_job* job) { enqueued(self_of(ud), job); };
    hooks->on_allocate = [](void* ud, const scoria_task* task) { account(self_of(ud), task, 1); };
    hooks->on_deallocate = [](void* ud, const scoria_task* task) {
      account(self_of(ud), task, -1);
    };
    if (!self.refusal.empty()) {
      register_refusing(hooks);
      return;
    }
    // What the tasks already placed hold of each device class.
    if (self.device_quota && self.devices.open(ssn, self.consumable_capacity))
      for (const scoria_task* t : self.devices.holding())
        if (const auto q = queue_of_task(t))
          for (const size_t at : levels(self, *q)) self.devices.allocate(at, t, 1);
    hooks->on_victim_queue_order = victim_queue_order;
    hooks->on_queue_order = queue_order;
    hooks->on_allocatable = allocatable_hook;
    hooks->on_preemptive = preemptive;
    hooks->on_reclaimable = reclaimable;
    hooks->on_preemptive_tasks = preemptive_tasks;
    hooks->on_evictable = evictable;
    hooks->on_job_enqueueable = [](void* ud, const scoria_job* job) {
      return enqueue_vote(self_of(ud), job);
    };
  });
}

// Each queue's real capability, for the host's volcano_queue_real_capacity_*
// (Volcano's capacity records it for every queue at session open). Not while
// the hierarchy is refused: Volcano records no queue metrics then.
void report_real_capability(const Capacity& self, scoria_session* ssn) {
  if (!self.refusal.empty() || !SCORIA_HOST_HAS(&api(), session_queue_set_real_capability)) return;
  for (const QueueAccount& a : self.book.accounts())
    if (api().session_queue_set_real_capability(ssn, a.queue, a.real_capability.data()) !=
        SCORIA_OK)
      log_line(SCORIA_LOG_WARNING, "the host refused the real capability of queue <", a.name, ">");
}

void on_session_close(void* instance, scoria_session* ssn) {
  auto& self = *static_cast<Capacity*>(instance);
  self.book.write_deserved(ssn, /*with_jobs_only=*/false);
  report_real_capability(self, ssn);
  self.book = ledger::QueueLedger();
  self.devices = capacity::DeviceQuota();
  self.gates = capacity::GateReservations();
  self.named_in_spec.clear();
  self.refusal.clear();
  self.ssn = nullptr;
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "capacity",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS,
    .version = "1.0.0",
    .description =
        "Queue shares as stated (deserved, capability, guarantee): queue order, "
        "allocatable, preemptive, reclaimable, enqueueable",
    .on_create = scoria::create_instance<Capacity>,
    .on_destroy = scoria::destroy_instance<Capacity>,
    .on_session_open = on_session_open,
    .on_session_close = on_session_close,
    .on_execute = nullptr,
    .args = kArgs,
    .arg_count = std::size(kArgs),
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
