// The priority plugin: higher priority goes first, for tasks (pod priority)
// and for jobs (PodGroup priority) and a job's sub-jobs (their highest
// task's); a preemptor may only evict tasks of
// lower-priority jobs, or lower-priority tasks of its own job (Volcano's
// priority). It registers no reclaimable hook: reclaim is about fair shares
// between queues, not priority. For the gang actions (on_evictable) a victim's
// job must have a lower priority than the job that wants room, and gang
// reclaim is not its business either.
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string_view>

namespace {

using scoria::api;
using scoria::log_line;

// <0 when l has the higher priority, >0 when r has, 0 when equal.
int higher_first(int32_t l, int32_t r) {
  if (l == r) return 0;
  return l > r ? -1 : 1;
}

// Priority takes no arguments; the instance exists for the lifecycle only.
struct Instance {};

int on_task_order(void* /*user_data*/, const scoria_task* l, const scoria_task* r) {
  return higher_first(scoria::info(l).priority, scoria::info(r).priority);
}

int on_job_order(void* /*user_data*/, const scoria_job* l, const scoria_job* r) {
  return higher_first(scoria::info(l).priority, scoria::info(r).priority);
}

// Across jobs the job priorities decide; within the preemptor's own job the
// task priorities do. Equal priority never preempts.
scoria_vote on_preemptable(void* /*user_data*/, const scoria_task* preemptor,
                           const scoria_task* const* candidates, size_t count, uint8_t* selected) {
  try {
    const scoria_task_info pt = scoria::info(preemptor);
    if (pt.job == nullptr) {
      log_line(SCORIA_LOG_WARNING, "preemptor <", scoria::view(pt.uid), "> has no job; no victims");
      return SCORIA_VOTE_PERMIT;
    }
    const int32_t preemptor_job_priority = scoria::info(pt.job).priority;
    for (size_t i = 0; i < count; ++i) {
      const scoria_task_info ct = scoria::info(candidates[i]);
      if (ct.job == nullptr) {
        log_line(SCORIA_LOG_WARNING, "skip victim <", scoria::view(ct.uid), ">: it has no job");
        continue;
      }
      if (ct.job != pt.job) {
        const int32_t victim_job_priority = scoria::info(ct.job).priority;
        if (victim_job_priority < preemptor_job_priority) {
          selected[i] = 1;
        } else {
          log_line(SCORIA_LOG_V4, "cannot preempt <", scoria::view(ct.uid), ">: its job priority ",
                   victim_job_priority, " is not below the preemptor's ", preemptor_job_priority);
        }
      } else if (ct.priority < pt.priority) {
        selected[i] = 1;
      } else {
        log_line(SCORIA_LOG_V4, "cannot preempt <", scoria::view(ct.uid), ">: its task priority ",
                 ct.priority, " is not below the preemptor's ", pt.priority);
      }
    }
  } catch (const std::exception& e) {
    // Only logging allocates; choose nothing rather than half a decision.
    std::fill(selected, selected + count, uint8_t{0});
    scoria::report_error(e.what());
  }
  return SCORIA_VOTE_PERMIT;
}

// Volcano's UnifiedEvictableFn of priority: a gang reclaim may take any
// candidate; every other eviction only those of jobs with a lower priority
// than ctx->job. (Volcano answers the task kinds so too; no action asks them
// yet.)
scoria_vote on_evictable(void* /*user_data*/, const scoria_eviction_context* ctx,
                         const scoria_task* const* candidates, size_t count, uint8_t* selected) {
  if (ctx->kind == SCORIA_EVICTION_GANG_RECLAIM) {
    std::fill(selected, selected + count, uint8_t{1});
    return SCORIA_VOTE_PERMIT;
  }
  if (ctx->job == nullptr) return SCORIA_VOTE_PERMIT;  // nobody to compare with: no victims
  try {
    const int32_t evictor_priority = scoria::info(ctx->job).priority;
    for (size_t i = 0; i < count; ++i) {
      const scoria_task_info ct = scoria::info(candidates[i]);
      if (ct.job == nullptr) continue;
      const int32_t victim_priority = scoria::info(ct.job).priority;
      if (victim_priority < evictor_priority) {
        selected[i] = 1;
      } else {
        log_line(SCORIA_LOG_V4, "cannot evict <", scoria::view(ct.uid), ">: its job priority ",
                 victim_priority, " is not below the evicting job's ", evictor_priority);
      }
    }
  } catch (const std::exception& e) {
    std::fill(selected, selected + count, uint8_t{0});
    scoria::report_error(e.what());
  }
  return SCORIA_VOTE_PERMIT;
}

// Sub-jobs of one job (ABI 1.9): the one with the higher priority (its
// highest task's) first.
int on_sub_job_order(void* /*user_data*/, const scoria_sub_job* l, const scoria_sub_job* r) {
  return higher_first(scoria::info(l).priority, scoria::info(r).priority);
}

// A job starves while some of its tasks are neither ready nor pipelined.
int on_job_starving(void* /*user_data*/, const scoria_job* job) {
  const scoria_job_info ji = scoria::info(job);
  const int32_t placed = scoria::count_status(ji, scoria::kReadyStatuses | SCORIA_TASK_PIPELINED);
  return placed < ji.task_count ? 1 : 0;
}

scoria_code on_session_open(void* instance, scoria_session* /*ssn*/, scoria_hooks* hooks) {
  // Every hook set below exists since ABI 1.0; refuse a table that is smaller.
  if (hooks == nullptr || hooks->struct_size < sizeof(scoria_hooks)) return SCORIA_INVALID_ARGUMENT;
  hooks->user_data = instance;
  hooks->on_task_order = on_task_order;
  hooks->on_job_order = on_job_order;
  hooks->on_preemptable = on_preemptable;
  hooks->on_job_starving = on_job_starving;
  hooks->on_evictable = on_evictable;
  if (scoria::host_has_sub_jobs()) hooks->on_sub_job_order = on_sub_job_order;
  return SCORIA_OK;
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "priority",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS,  // Volcano's priority takes no arguments
    .version = "1.0.0",
    .description = "Orders jobs and tasks by priority; only lower priority may be preempted",
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
