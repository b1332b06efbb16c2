// The per-queue accounts that Volcano's fair-share plugins (proportion,
// capacity) keep for a session: what each queue's jobs hold (allocated),
// ask for in all (request), have been admitted for but not yet placed
// (inqueue), hold beyond their minimum (elastic), and the queue's guarantee,
// capability and real capability (the cluster less every other queue's
// guarantee, capped by the capability). A plugin decides the deserved share;
// the ledger answers the questions both plugins ask of it.
//
// Resource vectors follow the session's dimensions; the pod-count dimension
// is left out of every comparison, as Volcano's resource type has none.
#ifndef SCORIA_QUEUE_LEDGER_H
#define SCORIA_QUEUE_LEDGER_H

#include <scoria/scoria.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace ledger {

using Vec = std::vector<double>;

struct QueueAccount {
  const scoria_queue* queue = nullptr;
  std::string_view name;
  int32_t weight = 1;
  int32_t priority = 0;
  bool open = true;
  bool has_jobs = false;  // Volcano keeps accounts only for queues with jobs
  // capacity's share rule (Volcano HEAD): only the resources the queue has a
  // deserved amount of count, and a queue with none (best effort) has share 1.
  bool share_over_deserved = false;
  Vec allocated, request, inqueue, elastic, guarantee, capability, real_capability, deserved;
  double share = 0;
  int32_t parent = -1;  // account index of the parent queue (hierarchy only)
  bool leaf = true;
};

class QueueLedger {
 public:
  QueueLedger() = default;
  explicit QueueLedger(scoria_session* ssn);

  size_t dims() const { return dims_; }
  const Vec& total() const { return total_; }
  std::span<QueueAccount> accounts() { return accounts_; }
  std::span<const QueueAccount> accounts() const { return accounts_; }
  QueueAccount* of(const scoria_queue* queue);
  QueueAccount* of_task(const scoria_task* task);

  // share = max over dimensions of allocated / deserved (Volcano's
  // helpers.Share: 1 where nothing is deserved but something is held); with
  // share_over_deserved, over the dimensions with a deserved amount only, and
  // 1 where there is none.
  static void update_share(QueueAccount& a);
  // Allocation events.
  void allocate(const scoria_task* task, double sign);

  // l <= r with Volcano's tolerance, in every dimension but pods
  // (`only_where`: only where that vector is positive).
  bool less_equal(std::span<const double> l, std::span<const double> r,
                  std::span<const double> only_where = {}) const;
  // allocated + request of `task` within `bound` in the dimensions the task
  // asks for.
  bool fits(const QueueAccount& a, const scoria_task* task, const Vec& bound) const;
  // allocated + `request` (dims() values) within `bound` in the dimensions
  // `request` asks for.
  bool fits_request(const QueueAccount& a, const double* request, const Vec& bound) const;
  // What `tasks` ask for together (their resreq summed).
  Vec request_of(const scoria_task* const* tasks, size_t count) const;
  // minResources + allocated + inqueue - elastic within the real capability,
  // in the dimensions minResources names (Volcano's enqueue check).
  bool admits(const QueueAccount& a, const scoria_job_info& job) const;
  // Record an admitted job's minimum as inqueue.
  void enqueued(const scoria_job* job);
  // Volcano's enqueue vote: a closed queue rejects; a job with
  // minResources needs admits() of its queue and, once rolled up, of every
  // ancestor.
  scoria_vote enqueue_vote(const scoria_job* job);
  // Reclaim victims, in the order given: each queue gives up tasks while it
  // holds more than it deserves in some resource (`task_resources_only`: in
  // a resource the candidate uses).
  void select_above_deserved(const scoria_task* const* candidates, size_t count, uint8_t* selected,
                             bool task_resources_only);
  // Hierarchical queues (capacity's enableHierarchy): `parents[q]` is the
  // account index of queue q's parent, -1 for a top queue. Adds every
  // account's allocated, request, inqueue and elastic to its ancestors, and
  // makes later allocation and enqueue events do the same.
  void roll_up(const std::vector<int32_t>& parents);
  // q's ancestors, nearest first.
  std::vector<size_t> ancestors(size_t q) const;
  // Writes each queue's deserved share to the session (queue status).
  void write_deserved(scoria_session* ssn, bool with_jobs_only) const;

 private:
  size_t dims_ = 0;
  Vec total_;
  std::vector<QueueAccount> accounts_;  // by queue index
  bool rolled_up_ = false;
};

// Hook bodies both fair-share plugins register, with user_data pointing at
// their QueueLedger.
scoria_vote enqueueable_hook(void* ledger, const scoria_job* job);
void enqueued_hook(void* ledger, const scoria_job* job);
void allocate_hook(void* ledger, const scoria_task* task);
void deallocate_hook(void* ledger, const scoria_task* task);

}  // namespace ledger

#endif  // SCORIA_QUEUE_LEDGER_H
