// The gang plugin: a job runs only when at least minAvailable of its tasks can
// run together (Volcano's gang). It keeps too-small jobs out of the session,
// tells when a job is ready or pipelined, puts jobs that still wait for their
// gang first, and refuses evictions that would break a running gang. The gang
// actions (gangpreempt, gangreclaim) weigh gangs themselves, splitting victims
// into bundles that keep a gang or break it whole, so for them (on_evictable)
// it permits every candidate, as Volcano's does.
//
// Per-role minimums (PodGroup minTaskMember) and sub-group policies are not
// visible through ABI 1.0, so only the job-wide minAvailable is enforced.
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string_view>
#include <vector>

namespace {

using scoria::api;
using scoria::log_line;

// Volcano's task counts of a job, read from the host's per-status counters.
struct GangCounts {
  int32_t min_available = 0;
  int32_t ready = 0;    // bound, binding, running, allocated, succeeded
  int32_t waiting = 0;  // pipelined
  int32_t pending = 0;
  int32_t valid = 0;  // ready + pipelined + pending: failed and releasing do not count

  explicit GangCounts(const scoria_job_info& ji)
      : min_available(ji.min_available),
        ready(scoria::count_status(ji, scoria::kReadyStatuses)),
        waiting(scoria::count_status(ji, SCORIA_TASK_PIPELINED)),
        pending(scoria::count_status(ji, SCORIA_TASK_PENDING)),
        valid(ready + waiting + pending) {}
};

// Pending tasks that ask for nothing: Volcano counts them towards the gang
// because they need no node resources to start.
int32_t pending_best_effort(const scoria_job* job) {
  int32_t n = 0;
  const size_t count = api().job_task_count(job);
  for (size_t i = 0; i < count; ++i) {
    const scoria_task* task = api().job_task_at(job, i);
    if (task == nullptr) continue;
    const scoria_task_info ti = scoria::info(task);
    if (ti.status == SCORIA_TASK_PENDING && ti.best_effort != 0) ++n;
  }
  return n;
}

// base + pending best-effort tasks >= minAvailable. The job's tasks are only
// walked when the best-effort ones can change the answer.
bool reaches_min(const scoria_job* job, const GangCounts& c, int32_t base) {
  if (base >= c.min_available) return true;
  if (c.pending == 0 || base + c.pending < c.min_available) return false;
  return base + pending_best_effort(job) >= c.min_available;
}

bool job_is_ready(const scoria_job* job) {
  const GangCounts c(scoria::info(job));
  return reaches_min(job, c, c.ready);
}

// The gang takes no arguments; the instance exists for the lifecycle only.
struct Instance {};

scoria_code on_job_valid(void* /*user_data*/, const scoria_job* job, char* message,
                         size_t message_capacity) {
  const GangCounts c(scoria::info(job));
  if (c.valid >= c.min_available) return SCORIA_OK;
  if (message != nullptr && message_capacity > 0) {
    std::snprintf(message, message_capacity,
                  "Not enough valid tasks for gang-scheduling, valid: %d, min: %d",
                  static_cast<int>(c.valid), static_cast<int>(c.min_available));
  }
  return SCORIA_UNSCHEDULABLE;
}

int on_job_ready(void* /*user_data*/, const scoria_job* job) { return job_is_ready(job) ? 1 : 0; }

scoria_vote on_job_pipelined(void* /*user_data*/, const scoria_job* job) {
  const GangCounts c(scoria::info(job));
  return reaches_min(job, c, c.ready + c.waiting) ? SCORIA_VOTE_PERMIT : SCORIA_VOTE_REJECT;
}

// Jobs whose gang is not yet ready go first; two ready or two unready jobs
// are left to the next plugin.
int on_job_order(void* /*user_data*/, const scoria_job* l, const scoria_job* r) {
  const bool l_ready = job_is_ready(l);
  const bool r_ready = job_is_ready(r);
  if (l_ready == r_ready) return 0;
  return l_ready ? 1 : -1;
}

// Starving ignores best-effort tasks: preemption only helps tasks that need
// resources.
int on_job_starving(void* /*user_data*/, const scoria_job* job) {
  const GangCounts c(scoria::info(job));
  return c.ready + c.waiting < c.min_available ? 1 : 0;
}

// Budget of evictions of one victim job: its ready tasks may be taken while
// more than minAvailable of them remain.
struct EvictionBudget {
  const scoria_job* job = nullptr;
  int32_t occupied = 0;
  int32_t min_available = 0;
};

// Preemptable and reclaimable alike: selects candidates in the given order as
// long as each victim job keeps at least minAvailable ready tasks.
scoria_vote keep_gangs_whole(const scoria_task* const* candidates, size_t count,
                             uint8_t* selected) {
  try {
    // Candidates come from one node or a few jobs: a linear scan beats a map.
    std::vector<EvictionBudget> budgets;
    for (size_t i = 0; i < count; ++i) {
      const scoria_task_info ti = scoria::info(candidates[i]);
      if (ti.job == nullptr) {
        log_line(SCORIA_LOG_WARNING, "skip victim <", scoria::view(ti.uid), ">: it has no job");
        continue;
      }
      auto it = std::find_if(budgets.begin(), budgets.end(),
                             [&](const EvictionBudget& b) { return b.job == ti.job; });
      if (it == budgets.end()) {
        const GangCounts c(scoria::info(ti.job));
        it = budgets.insert(budgets.end(), EvictionBudget{ti.job, c.ready, c.min_available});
      }
      if (it->occupied > it->min_available) {
        --it->occupied;
        selected[i] = 1;
      } else {
        log_line(SCORIA_LOG_V4, "cannot evict <", scoria::view(ti.uid), ">: its job keeps ",
                 it->occupied, " ready tasks for minAvailable ", it->min_available);
      }
    }
  } catch (const std::exception& e) {
    // Nothing chosen is the safe answer: a gang must never be broken.
    std::fill(selected, selected + count, uint8_t{0});
    scoria::report_error(e.what());
  }
  return SCORIA_VOTE_PERMIT;
}

scoria_vote on_preemptable(void* /*user_data*/, const scoria_task* /*preemptor*/,
                           const scoria_task* const* candidates, size_t count, uint8_t* selected) {
  return keep_gangs_whole(candidates, count, selected);
}

scoria_vote on_reclaimable(void* /*user_data*/, const scoria_task* /*reclaimer*/,
                           const scoria_task* const* candidates, size_t count, uint8_t* selected) {
  return keep_gangs_whole(candidates, count, selected);
}

// Volcano's UnifiedEvictableFn of gang: every candidate, whatever the kind.
scoria_vote on_evictable(void* /*user_data*/, const scoria_eviction_context* /*ctx*/,
                         const scoria_task* const* /*candidates*/, size_t count,
                         uint8_t* selected) {
  std::fill(selected, selected + count, uint8_t{1});
  return SCORIA_VOTE_PERMIT;
}

scoria_code on_session_open(void* instance, scoria_session* /*ssn*/, scoria_hooks* hooks) {
  // Every hook set below exists since ABI 1.0; refuse a table that is smaller.
  if (hooks == nullptr || hooks->struct_size < sizeof(scoria_hooks)) return SCORIA_INVALID_ARGUMENT;
  hooks->user_data = instance;
  hooks->on_job_valid = on_job_valid;
  hooks->on_job_ready = on_job_ready;
  hooks->on_job_pipelined = on_job_pipelined;
  hooks->on_job_order = on_job_order;
  hooks->on_job_starving = on_job_starving;
  hooks->on_preemptable = on_preemptable;
  hooks->on_reclaimable = on_reclaimable;
  hooks->on_evictable = on_evictable;
  return SCORIA_OK;
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "gang",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS,  // Volcano's gang takes no arguments
    .version = "1.0.0",
    .description = "Gang scheduling: a job runs only when minAvailable of its tasks can run",
    .on_create = scoria::create_instance<Instance>,
    .on_destroy = scoria::destroy_instance<Instance>,
    .on_session_open = on_session_open,
    .on_session_close = nullptr,
    .on_execute = nullptr,
    .args = nullptr,
    .arg_count = 0,
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
