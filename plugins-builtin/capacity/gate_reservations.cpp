#include "gate_reservations.h"

#include <scoria/scoria.hpp>

#include <algorithm>

namespace capacity {

using scoria::api;

bool opted_in(const scoria_task_info& ti) {
  return (ti.queue_gate & SCORIA_TASK_QUEUE_GATE_OPTED_IN) != 0;
}

void GateReservations::open(const scoria_session* ssn, size_t queues) {
  by_queue_.assign(queues, {});
  active_ = false;
  if (!SCORIA_HOST_HAS(&api(), session_tasks_with_features)) return;
  const size_t count =
      api().session_tasks_with_features(ssn, SCORIA_TASK_FEATURE_QUEUE_GATE, nullptr, 0);
  if (count == 0) return;
  active_ = true;
  std::vector<const scoria_task*> tasks(count);
  api().session_tasks_with_features(ssn, SCORIA_TASK_FEATURE_QUEUE_GATE, tasks.data(), count);
  for (const scoria_task* t : tasks) {
    const scoria_task_info ti = scoria::info(t);
    if (ti.status != SCORIA_TASK_PENDING || ti.scheduling_gated != 0 || !opted_in(ti)) continue;
    if (ti.job == nullptr) continue;
    if (const scoria_queue* q = scoria::info(ti.job).queue) reserve(scoria::info(q).index, t);
  }
}

void GateReservations::reserve(size_t queue, const scoria_task* task) {
  if (queue >= by_queue_.size()) return;
  std::vector<const scoria_task*>& held = by_queue_[queue];
  if (std::find(held.begin(), held.end(), task) == held.end()) held.push_back(task);
}

void GateReservations::release(const scoria_task* task) {
  for (std::vector<const scoria_task*>& held : by_queue_)
    if (const auto it = std::find(held.begin(), held.end(), task); it != held.end()) {
      held.erase(it);
      return;
    }
}

std::vector<double> GateReservations::with_reserved(size_t queue, const scoria_task* task,
                                                    size_t dims) const {
  if (queue >= by_queue_.size() || by_queue_[queue].empty()) return {};
  const double* request = scoria::info(task).resreq;
  std::vector<double> out(request, request + dims);
  for (const scoria_task* t : by_queue_[queue]) {
    if (t == task) continue;  // counted once, as the request
    const double* held = scoria::info(t).resreq;
    for (size_t d = 0; d < dims; ++d)
      if (request[d] > 0) out[d] += held[d];
  }
  return out;
}

}  // namespace capacity
