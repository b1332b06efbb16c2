// Volcano's queue-admission gate reservations (capacity's
// queueGateReservedTasks, with SchedulingGatesQueueAdmission): a pod that
// opted in and passed its queue's check has its gate lifted, and until it
// is placed its request stays reserved in the queue, so that a pod admitted
// later cannot take the room it was admitted into. Rebuilt each session
// from the pending pods that opted in and have no gate left (they passed in
// an earlier session); a task passing the check this session is added; a
// task placed leaves, and comes back if its placement is undone.
#ifndef SCORIA_CAPACITY_GATE_RESERVATIONS_H
#define SCORIA_CAPACITY_GATE_RESERVATIONS_H

#include <scoria/scoria.h>

#include <cstddef>
#include <vector>

namespace capacity {

class GateReservations {
 public:
  // The session's reservations, for `queues` queues (index by
  // scoria_queue_info.index); none when the host lists no opted-in task.
  void open(const scoria_session* ssn, size_t queues);
  // Whether any task of the session opted in: else nothing here applies,
  // and the hooks need not ask about each task.
  bool active() const { return active_; }
  // `task`, in queue `queue`, holds its request there (once).
  void reserve(size_t queue, const scoria_task* task);
  // `task` holds nothing any more (placed).
  void release(const scoria_task* task);
  // For the check of `task` in `queue`: its request plus what the other
  // tasks reserved there hold, in the dimensions it asks for (Volcano
  // compares those alone). Empty when nothing is reserved there.
  std::vector<double> with_reserved(size_t queue, const scoria_task* task, size_t dims) const;

 private:
  std::vector<std::vector<const scoria_task*>> by_queue_;
  bool active_ = false;
};

// 1 if the task opts in to the gate (the host reports it only with
// SchedulingGatesQueueAdmission).
bool opted_in(const scoria_task_info& ti);

}  // namespace capacity

#endif
