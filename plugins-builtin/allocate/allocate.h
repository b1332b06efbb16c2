// The allocate action's state over one session: the jobs and tasks it has
// yet to place, queue by queue, and how it places them. allocate.cpp runs
// the loop and chooses nodes; sub_job_allocate.cpp places a job with
// sub-jobs (spec.subGroupPolicy, ABI 1.9) or a network topology (ABI 1.6)
// sub-job by sub-job, HyperNode by HyperNode (topology_search.h).
#pragma once

#include <scoria/scoria.h>
#include <scoria/hypernodes.hpp>
#include <scoria/scoria.hpp>

#include "topology_search.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace scoria_allocate {

using scoria::api;
using scoria::log_line;

// A Pending task to place, with what the hot loop reads of it. The pointers
// are host-owned and stay valid for the session.
struct TaskWork {
  const scoria_task* task;
  const double* init_resreq;
  std::string_view role;
  std::string_view uid;
  // Held by Volcano's queue-admission gate alone (SCORIA_TASK_QUEUE_GATE_*
  // bits, 0 for any other task): it only goes through its queue's check.
  uint32_t queue_gate = 0;
};

// Where the placement of a job's (or a sub-job's) tasks stands: the ones
// left are tasks_[next, end), in task order.
struct Cursor {
  size_t next = 0;
  size_t end = 0;
  // Roles (task-spec) with a task that fit nowhere this session: the other
  // tasks of a named role are taken to be alike and are not tried again.
  // The unnamed role ("") is listed too but never skipped, as in Volcano.
  std::vector<std::string_view> failed_roles;

  bool done() const { return next >= end; }
};

// A sub-job with tasks to place (Volcano's SubJobWorksheet).
struct SubJobWork {
  const scoria_sub_job* sj;
  Cursor cursor;
  int32_t min_available;
  int32_t task_count;
  bool topology;  // a network topology to keep (its allocated HyperNode)
  // One of the not-ready sub-jobs the job needs for its policies'
  // minSubGroups: placed before the others.
  bool required = false;
  bool alive = true;  // still in the worksheet
};

// A job with tasks to place.
struct JobWork {
  const scoria_job* job;
  const scoria_queue* queue;
  std::string_view uid;
  Cursor cursor;  // the job's tasks, unless it is placed by sub-job
  int32_t min_available;
  int32_t task_count;
  // minAvailable is below the job's task count: not every task is needed, so
  // a task that fits nowhere need not end the attempt (see need_continue).
  bool may_skip_unfit;
  // The PodGroup's minTaskMember (empty on a host older than ABI 1.4) and
  // the sum of its minimums.
  std::vector<scoria::RoleMinimum> role_mins;
  int64_t role_min_total;
  // spec.subGroupPolicy is not empty (ABI 1.9).
  bool policies = false;
  // Placed sub-job by sub-job and HyperNode by HyperNode (Volcano's
  // allocateForJob): a job with policies, or with a hard network topology
  // (soft ones arrive as hard, ABI 1.6). Empty: placed as one gang.
  std::vector<SubJobWork> subs;
};

// A queue with jobs to place; `jobs` is a heap of positions in jobs_.
struct QueueWork {
  const scoria_queue* queue;
  std::string_view name;
  std::vector<size_t> jobs;
};

// One run of the action over one session.
class Allocate {
 public:
  explicit Allocate(scoria_session* ssn) : ssn_(ssn) {}

  void run() {
    collect();
    log_line(SCORIA_LOG_V3, "try to allocate for ", jobs_.size(), " jobs in ", active_.size(),
             " queues over ", api().node_count(ssn_), " nodes");
    allocate_queues();
  }

 private:
  // --- setup ----------------------------------------------------------------

  // Gathers every job that may be allocated and its Pending tasks in task order,
  // grouped by queue.
  void collect();

  // Appends the Pending tasks that ask for resources among `count` given by
  // task_at(k), in task order. Best-effort tasks are left to backfill; a pod
  // held by scheduling gates waits until they are removed, save one held by
  // Volcano's queue-admission gate alone, which its queue's check may lift.
  template <class TaskAt>
  void collect_tasks(size_t count, TaskAt&& task_at) {
    const size_t begin = tasks_.size();
    for (size_t k = 0; k < count; ++k) {
      const scoria_task* task = task_at(k);
      const scoria_task_info ti = scoria::info(task);
      if (ti.status != SCORIA_TASK_PENDING || ti.best_effort != 0) continue;
      const uint32_t queue_gate = ti.scheduling_gated != 0 ? ti.queue_gate : 0;
      if (ti.scheduling_gated != 0 && (ti.queue_gate & SCORIA_TASK_QUEUE_GATE_ONLY) == 0) continue;
      if (ti.init_resreq == nullptr) {
        log_line(SCORIA_LOG_ERROR, "task <", scoria::view(ti.uid), "> has no request; skipped");
        continue;
      }
      tasks_.push_back(
          TaskWork{task, ti.init_resreq, scoria::view(ti.role), scoria::view(ti.uid), queue_gate});
    }
    // Heap sort: bounded even if a plugin's order is inconsistent, which
    // std::sort does not promise.
    const auto first = tasks_.begin() + static_cast<std::ptrdiff_t>(begin);
    const auto less = [this](const TaskWork& l, const TaskWork& r) {
      return api().session_task_less(ssn_, l.task, r.task) != 0;
    };
    std::make_heap(first, tasks_.end(), less);
    std::sort_heap(first, tasks_.end(), less);
  }

  // Each sub-job's Pending tasks, side by side; the sub-jobs with any.
  std::vector<SubJobWork> collect_sub_jobs(const scoria_job* job);

  // Volcano's organizeJobWorksheet: of the sub-jobs not yet ready, in
  // sub-job order, as many of each policy as its minSubGroups still asks
  // for are required, and go before the others.
  void organize_worksheet(JobWork& jw);

  // Heap order for std::*_heap (a max-heap): `a` sorts below `b` when b goes first.
  bool job_after(size_t a, size_t b) const {
    return api().session_job_less(ssn_, jobs_[b].job, jobs_[a].job) != 0;
  }

  // --- the loop ---------------------------------------------------------------

  // Serves the first queue one job at a time. The queue order is asked afresh
  // every round because allocation changes the queues' shares; a job's place
  // among its queue's jobs is re-evaluated when it is pushed back (the other
  // jobs of the queue did not change meanwhile).
  void allocate_queues();

  // Places the job's tasks in order until it is ready or a needed task fits
  // nowhere. Returns true when the job was committed and has tasks left, so
  // that it competes again for the rest.
  bool allocate_job(JobWork& jw);

  // Places tasks from `at` in order until the job (with `sub`, the sub-job)
  // is ready or a needed task fits nowhere. With `scope`, only on the
  // scope's nodes, each placement recorded, and the sub-job's allocated
  // HyperNode kept current for node scoring (Volcano's
  // JobAllocatedHyperNode).
  void place_tasks(const JobWork& jw, Cursor& at, scoria_statement* stmt, Scope* scope,
                   const SubJobWork* sub);

  // Commits the job's statement once its gang is ready, keeps a pipelined
  // one open, undoes the rest. True when committed.
  bool finish(const JobWork& jw, scoria::Statement& stmt);

  // A task held by the queue-admission gate alone passed its queue's
  // check: its gate goes if it opted in (Volcano's allocate).
  void lift_gate(const TaskWork& t) const;

  // --- sub-jobs and network topology (ABI 1.9, 1.6) ------------------------------

  // A sub-job placed within one HyperNode on a dry run.
  struct SubJobTrial {
    Index hypernode;
    std::vector<Placement> plan;
    Cursor cursor;    // where the sub-job's tasks would stand after it
    Index allocated;  // the sub-job's allocated HyperNode then
    double score = 0;
  };
  // The job placed within one HyperNode on a dry run, sub-job by sub-job.
  struct JobTrial {
    Index hypernode;
    std::vector<Placement> plan;
    std::vector<SubJobWork> subs;  // the worksheet after it
    std::vector<Index> allocated;  // each sub-job's allocated HyperNode then
    double score = 0;              // the sum of its sub-jobs' HyperNode scores
  };

  Index allocated_of(const scoria_sub_job* sj) const {
    return scoria::network_topology(sj).allocated_hypernode;
  }
  void set_allocated(const scoria_sub_job* sj, Index h) {
    api().session_sub_job_set_allocated_hypernode(ssn_, sj, h);
  }

  // Places `plan` again into `stmt`; false if the session refuses a step.
  bool replay(const JobWork& jw, const std::vector<Placement>& plan, scoria_statement* stmt);

  // The next sub-job of a worksheet: required ones first, then the sub-job
  // order, asked afresh as placements change readiness.
  SubJobWork* next_sub_job(std::vector<SubJobWork>& ws) const;

  // Volcano's allocateForJob: each HyperNode of the job's gradients (from
  // the cluster top) is tried on a dry run, placing its sub-jobs one after
  // another (each by allocate_sub_job, and left in place for the next to
  // see) until the job is ready; the first gradient with a HyperNode where
  // the job is ready or pipelined decides, the HyperNode whose sub-jobs
  // scored best wins, and its placements are made again for real.
  bool allocate_sub_jobs(JobWork& jw);

  // Volcano's allocateForSubJob: each HyperNode of the sub-job's gradients
  // under `h` is tried on a dry run; the first gradient with a HyperNode
  // where the sub-job is ready (or pipelined) decides, and the best by
  // HyperNode order wins.
  std::optional<SubJobTrial> allocate_sub_job(const JobWork& jw, const SubJobWork& s, Index h);

  static bool role_failed(const Cursor& at, std::string_view role) {
    return std::find(at.failed_roles.begin(), at.failed_roles.end(), role) != at.failed_roles.end();
  }

  // Volcano's JobInfo.NeedContinueAllocating, asked when a task fits no
  // node: may the job's (sub-job's) other tasks still make its gang?
  //  - every task is needed (minAvailable >= task count): no;
  //  - a sub-job of a job with policies: yes unless every task of the
  //    sub-job is needed (subGroupSize >= its task count);
  //  - no per-role minimums: yes, the others may make minAvailable;
  //  - minAvailable below the sum of the minimums (the roles are not
  //    enforced): yes while the ready tasks and the Pending tasks of roles
  //    that have not failed can still reach minAvailable;
  //  - else: no once a failed role (one with a minimum) has fewer tasks
  //    placed (or done, or best-effort) than its minimum, because its other
  //    tasks will not fit either.
  bool need_continue(const JobWork& jw, const Cursor& at, const SubJobWork* sub) const;

  scoria_session* ssn_;

  std::vector<TaskWork> tasks_;
  std::vector<JobWork> jobs_;
  std::vector<QueueWork> queues_;
  std::vector<size_t> active_;  // positions in queues_ still served, first seen first

  // Read when the first job with a network topology is met.
  std::optional<scoria::HyperNodeTree> tree_;
};

}  // namespace scoria_allocate
