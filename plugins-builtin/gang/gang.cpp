// The gang plugin: a job runs only when at least minAvailable of its tasks can
// run together (Volcano's gang). It keeps too-small jobs out of the session,
// tells when a job is ready or pipelined, puts jobs that still wait for their
// gang first, and refuses evictions that would break a running gang. The gang
// actions (gangpreempt, gangreclaim) weigh gangs themselves, splitting victims
// into bundles that keep a gang or break it whole, so for them (on_evictable)
// it permits every candidate, as Volcano's does.
//
// Per-role minimums (PodGroup minTaskMember, read through ABI 1.4's
// job_min_task_member_*) are checked as Volcano's JobInfo.CheckTaskValid,
// CheckTaskReady and CheckTaskPipelined check them: every role with a
// minimum must have that many tasks, unless minAvailable is below the sum of
// the minimums (Volcano then enforces only minAvailable). On an older host
// the minimums are not visible and only minAvailable is enforced.
//
// Sub-jobs (PodGroup spec.subGroupPolicy, ABI 1.9) as Volcano HEAD's gang
// weighs them: a sub-job is ready when subGroupSize of its tasks are, and a
// job is ready only when, besides minAvailable, each policy with a
// minSubGroups has that many ready sub-jobs (CheckSubJobReady); a job is
// valid only when each policy has that many sub-jobs at all. Sub-jobs that
// are not ready go first.
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
  // Pending tasks that ask for nothing: Volcano counts them towards the
  // gang because they need no node resources to start.
  int32_t pending_best_effort = 0;

  explicit GangCounts(const scoria_job_info& ji)
      : min_available(ji.min_available),
        ready(scoria::count_status(ji, scoria::kReadyStatuses)),
        waiting(scoria::count_status(ji, SCORIA_TASK_PIPELINED)),
        pending(scoria::count_status(ji, SCORIA_TASK_PENDING)),
        valid(ready + waiting + pending),
        pending_best_effort(ji.pending_best_effort) {}
};

// base + pending best-effort tasks >= minAvailable.
bool reaches_min(const GangCounts& c, int32_t base) {
  return base + c.pending_best_effort >= c.min_available;
}

// Volcano's JobInfo.IsReady: ready tasks and pending best-effort ones reach
// minAvailable. The job order asks only this, not the per-role minimums.
bool job_is_ready(const scoria_job* job) {
  const GangCounts c(scoria::info(job));
  return reaches_min(c, c.ready);
}

// Which tasks a per-role check counts: those in `statuses`, and pending ones
// that ask for nothing when `pending_best_effort` is set.
struct RoleCount {
  uint32_t statuses;
  bool pending_best_effort;
};
// CheckTaskValid: all but failed, releasing and unknown tasks.
constexpr RoleCount kValidRoles{
    scoria::kReadyStatuses | SCORIA_TASK_PIPELINED | SCORIA_TASK_PENDING, false};
// CheckTaskReady: what IsReady counts.
constexpr RoleCount kReadyRoles{scoria::kReadyStatuses, true};
// CheckTaskPipelined: what IsPipelined counts.
constexpr RoleCount kPipelinedRoles{scoria::kReadyStatuses | SCORIA_TASK_PIPELINED, true};

// Volcano's JobInfo.CheckTask{Valid,Ready,Pipelined}: every role with a
// minimum (minTaskMember) has at least that many tasks counted by `what`.
// True when the job sets no minimums, when minAvailable is below their sum
// (Volcano then leaves the roles to minAvailable) and on a host older than
// ABI 1.4. A role absent from the job counts 0 tasks.
bool roles_reach_min(const scoria_job* job, int32_t min_available, RoleCount what) {
  const std::vector<scoria::RoleMinimum> mins = scoria::min_task_members(job);
  if (mins.empty()) return true;
  int64_t total = 0;
  for (const scoria::RoleMinimum& m : mins) total += m.min;
  if (min_available < total) return true;

  std::vector<int32_t> counted(mins.size(), 0);
  const size_t count = api().job_task_count(job);
  for (size_t i = 0; i < count; ++i) {
    const scoria_task* task = api().job_task_at(job, i);
    if (task == nullptr) continue;
    const scoria_task_info ti = scoria::info(task);
    const bool counts =
        (ti.status & what.statuses) != 0 ||
        (what.pending_best_effort && ti.status == SCORIA_TASK_PENDING && ti.best_effort != 0);
    if (!counts) continue;
    const std::string_view role = scoria::view(ti.role);
    for (size_t r = 0; r < mins.size(); ++r) {
      if (mins[r].role == role) {
        ++counted[r];
        break;
      }
    }
  }
  for (size_t r = 0; r < mins.size(); ++r) {
    if (counted[r] < mins[r].min) {
      if (!api().log_enabled(scoria::host().ctx, SCORIA_LOG_V4)) return false;
      log_line(SCORIA_LOG_V4, "job <", scoria::view(scoria::info(job).uid), ">: role <",
               mins[r].role, "> counts ", counted[r], " tasks, below its minimum ", mins[r].min);
      return false;
    }
  }
  return true;
}

// roles_reach_min for a hook: an exception (out of memory) is reported and
// counts as "not reached", which keeps the job from running rather than
// breaking its roles' minimums.
bool roles_reach_min_guarded(const scoria_job* job, int32_t min_available, RoleCount what) {
  try {
    return roles_reach_min(job, min_available, what);
  } catch (const std::exception& e) {
    scoria::report_error(e.what());
    return false;
  }
}

// --- sub-jobs (ABI 1.9) ----------------------------------------------------------

// base + the sub-job's pending best-effort tasks >= its minAvailable.
bool sub_job_reaches_min(const scoria_sub_job_info& si, int32_t base) {
  return base + si.pending_best_effort >= si.min_available;
}

// Volcano's SubJobInfo.IsReady and IsPipelined.
bool sub_job_is_ready(const scoria_sub_job* sj) {
  const scoria_sub_job_info si = scoria::info(sj);
  return sub_job_reaches_min(si, scoria::count_status(si, scoria::kReadyStatuses));
}
bool sub_job_is_pipelined(const scoria_sub_job* sj) {
  const scoria_sub_job_info si = scoria::info(sj);
  return sub_job_reaches_min(
      si, scoria::count_status(si, scoria::kReadyStatuses | SCORIA_TASK_PIPELINED));
}

// Volcano's checkSubJobCondition: for each policy name with a minSubGroups
// (the last policy of a name decides, as Volcano's map of them keeps it),
// at least that many of the job's sub-jobs of that name pass `counts`. The
// default sub-job belongs to no policy and never counts. True without
// policies, and on a host older than ABI 1.9.
template <class Counts>
bool sub_groups_reach_min(const scoria_job* job, Counts&& counts) {
  const std::vector<scoria::SubGroupPolicy> policies = scoria::sub_group_policies(job);
  if (policies.empty()) return true;
  const scoria::SubGroupMinimums groups = scoria::sub_group_minimums(policies);
  std::vector<int32_t> counted(groups.min.size(), 0);
  const size_t count = api().job_sub_job_count(job);
  for (size_t i = 0; i < count; ++i) {
    const scoria_sub_job* sj = api().job_sub_job_at(job, i);
    const uint32_t p = scoria::info(sj).policy;
    if (p >= policies.size()) continue;  // the default sub-job
    const uint32_t g = groups.group_of[p];
    if (groups.min[g] > 0 && counts(sj)) ++counted[g];
  }
  for (size_t g = 0; g < groups.min.size(); ++g) {
    if (counted[g] >= groups.min[g]) continue;
    log_line(SCORIA_LOG_V4, "job <", scoria::view(scoria::info(job).uid), ">: policy <",
             groups.name[g], "> has ", counted[g], " sub-groups, below its minSubGroups ",
             groups.min[g]);
    return false;
  }
  return true;
}

// sub_groups_reach_min for a hook: an exception counts as "not reached".
template <class Counts>
bool sub_groups_reach_min_guarded(const scoria_job* job, Counts&& counts) {
  try {
    return sub_groups_reach_min(job, counts);
  } catch (const std::exception& e) {
    scoria::report_error(e.what());
    return false;
  }
}

int on_sub_job_ready(void* /*user_data*/, const scoria_sub_job* sj) {
  return sub_job_is_ready(sj) ? 1 : 0;
}

scoria_vote on_sub_job_pipelined(void* /*user_data*/, const scoria_sub_job* sj) {
  return sub_job_is_pipelined(sj) ? SCORIA_VOTE_PERMIT : SCORIA_VOTE_REJECT;
}

// Sub-jobs not yet ready go first.
int on_sub_job_order(void* /*user_data*/, const scoria_sub_job* l, const scoria_sub_job* r) {
  const bool l_ready = sub_job_is_ready(l);
  const bool r_ready = sub_job_is_ready(r);
  if (l_ready == r_ready) return 0;
  return l_ready ? 1 : -1;
}

// The gang takes no arguments; the instance exists for the lifecycle only.
struct Instance {};

// Volcano's gang JobValidFn: each role's minimum first and each policy's
// minSubGroups (reason NotEnoughPodsOfTask there), then minAvailable
// (NotEnoughPods).
scoria_code on_job_valid(void* /*user_data*/, const scoria_job* job, char* message,
                         size_t message_capacity) {
  const GangCounts c(scoria::info(job));
  if (!roles_reach_min_guarded(job, c.min_available, kValidRoles)) {
    scoria::write_message(message, message_capacity,
                          "Not enough valid pods of each task for gang-scheduling");
    return SCORIA_UNSCHEDULABLE;
  }
  if (!sub_groups_reach_min_guarded(job, [](const scoria_sub_job*) { return true; })) {
    scoria::write_message(message, message_capacity,
                          "Not enough valid subGroups of each task for gang-scheduling");
    return SCORIA_UNSCHEDULABLE;
  }
  if (c.valid >= c.min_available) return SCORIA_OK;
  if (message != nullptr && message_capacity > 0) {
    std::snprintf(message, message_capacity,
                  "Not enough valid tasks for gang-scheduling, valid: %d, min: %d",
                  static_cast<int>(c.valid), static_cast<int>(c.min_available));
  }
  return SCORIA_UNSCHEDULABLE;
}

// Volcano's gang JobReadyFn: CheckTaskReady, CheckSubJobReady and IsReady.
// The cheap count goes first; roles and sub-jobs are only walked when it
// passes.
int on_job_ready(void* /*user_data*/, const scoria_job* job) {
  const GangCounts c(scoria::info(job));
  return reaches_min(c, c.ready) && roles_reach_min_guarded(job, c.min_available, kReadyRoles) &&
                 sub_groups_reach_min_guarded(job, sub_job_is_ready)
             ? 1
             : 0;
}

// Volcano's gang JobPipelinedFn: CheckTaskPipelined, CheckSubJobPipelined
// and IsPipelined.
scoria_vote on_job_pipelined(void* /*user_data*/, const scoria_job* job) {
  const GangCounts c(scoria::info(job));
  return reaches_min(c, c.ready + c.waiting) &&
                 roles_reach_min_guarded(job, c.min_available, kPipelinedRoles) &&
                 sub_groups_reach_min_guarded(job, sub_job_is_pipelined)
             ? SCORIA_VOTE_PERMIT
             : SCORIA_VOTE_REJECT;
}

// Jobs whose gang is not yet ready go first; two ready or two unready jobs
// are left to the next plugin.
int on_job_order(void* /*user_data*/, const scoria_job* l, const scoria_job* r) {
  const bool l_ready = job_is_ready(l);
  const bool r_ready = job_is_ready(r);
  if (l_ready == r_ready) return 0;
  return l_ready ? 1 : -1;
}

// Volcano's gang JobStarvingFn, IsStarving alone: starving ignores
// best-effort tasks (preemption only helps tasks that need resources) and,
// as Volcano's says, the per-role minimums (its JobInfo.CheckTaskStarving
// is used by no plugin), so preempt and reclaim weigh minAvailable only.
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
// long as each victim job keeps at least minAvailable ready tasks. A job
// disrupted only whole (a scheduling.k8s.io PodGroup with disruptionMode
// all, ABI 1.16) goes whole: the host evicts all of it with any one, so no
// gang is left broken.
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
      if (scoria::info(ti.job).disrupt_whole != 0) {
        selected[i] = 1;
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
  if (scoria::host_has_sub_jobs()) {
    hooks->on_sub_job_ready = on_sub_job_ready;
    hooks->on_sub_job_pipelined = on_sub_job_pipelined;
    hooks->on_sub_job_order = on_sub_job_order;
  }
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
