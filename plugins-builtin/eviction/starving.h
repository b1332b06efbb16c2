// What Volcano's preempt, reclaim, gangpreempt and gangreclaim do alike
// before they evict anything: gather the starving jobs of each queue, read a
// job's Pending tasks in task order, and serve queues and jobs in the
// session's order as it stands when each turn comes.
#ifndef SCORIA_PLUGINS_EVICTION_STARVING_H
#define SCORIA_PLUGINS_EVICTION_STARVING_H

#include <scoria/scoria.h>

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

namespace eviction {

// A queue with starving jobs; `jobs` in session order.
struct StarvingQueue {
  const scoria_queue* queue;
  std::string_view name;
  std::vector<const scoria_job*> jobs;
};

// Every job that is past Pending, has a Pending task, is valid, has a known
// queue and is starving, grouped by queue (queues in the order their first
// such job comes). `action` names the caller in log lines.
std::vector<StarvingQueue> collect_starving(scoria_session* ssn, std::string_view action);

// Which Pending tasks a job offers as preemptors.
enum class Pending {
  kAll,             // preempt, reclaim: best-effort ones too (they may evict best-effort tasks)
  kNeedsResources,  // the gang actions: Volcano leaves out tasks that ask for nothing
};

// The job's Pending tasks that no scheduling gate holds back, in task order.
std::vector<const scoria_task*> pending_in_order(const scoria_session* ssn, const scoria_job* job,
                                                 Pending which);

// Removes and returns the item of `items` that `first(a, b)` puts before
// every other, as the order stands now: Volcano pops its priority queues one
// at a time, and each eviction can change the shares the order reads. A
// linear scan: bounded even if a plugin's order is inconsistent.
template <class T, class First>
T pop_first(std::vector<T>& items, First first) {
  size_t best = 0;
  for (size_t i = 1; i < items.size(); ++i)
    if (first(items[i], items[best])) best = i;
  T out = std::move(items[best]);
  items.erase(items.begin() + static_cast<std::ptrdiff_t>(best));
  return out;
}

}  // namespace eviction

#endif  // SCORIA_PLUGINS_EVICTION_STARVING_H
