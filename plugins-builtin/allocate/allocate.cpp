// The allocate action: places Pending tasks on nodes, queue by queue and job by
// job, and binds a job's placements only once its gang is ready (Volcano's
// allocate without sub-job policies). A job's per-role minimums
// (minTaskMember, ABI 1.4) decide, as in Volcano, whether a task that fits
// nowhere ends the job's attempt. A job with sub-jobs (spec.subGroupPolicy,
// ABI 1.9) or a network topology (ABI 1.6) is placed sub-job by sub-job,
// each within the HyperNodes its topology allows (topology_search.h).
#include "allocate.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <string_view>
#include <vector>

namespace scoria_allocate {

void Allocate::collect() {
  const bool enqueue_enabled = api().session_action_enabled(ssn_, scoria::str("enqueue")) != 0;
  const size_t queue_count = api().queue_count(ssn_);
  std::vector<int64_t> slot_of(queue_count, -1);  // queue index -> position in queues_
  const auto after = [this](size_t a, size_t b) { return job_after(a, b); };

  // The jobs it places or admits: those with Pending tasks, and those still
  // Pending (left to enqueue, or admitted here when there is no enqueue).
  for (const scoria_job* job :
       scoria::jobs_where(ssn_, SCORIA_JOBS_PHASE_PENDING | SCORIA_JOBS_WITH_PENDING_TASKS)) {
    const scoria_job_info ji = scoria::info(job);
    const std::string_view uid = scoria::view(ji.uid);
    if (ji.phase == SCORIA_PHASE_PENDING) {
      if (enqueue_enabled) {
        log_line(SCORIA_LOG_V4, "job <", uid, "> is Pending; left to enqueue");
        continue;
      }
      // Without an enqueue action nothing else would ever admit the job.
      api().session_job_set_phase(ssn_, job, SCORIA_PHASE_INQUEUE);
    }
    // Cheap test first: a job without Pending tasks has nothing to place,
    // whatever the checks below would say.
    if (ji.status_count[0] == 0) continue;

    scoria_str message{};
    if (api().session_job_valid(ssn_, job, &message) == 0) {
      log_line(SCORIA_LOG_V4, "job <", uid, "> is not valid: ", scoria::view(message));
      continue;
    }
    if (ji.queue == nullptr) {
      log_line(SCORIA_LOG_WARNING, "queue <", scoria::view(ji.queue_name), "> of job <", uid,
               "> does not exist; job skipped");
      continue;
    }
    const scoria_queue_info qi = scoria::info(ji.queue);
    if (qi.index >= queue_count) {
      log_line(SCORIA_LOG_ERROR, "queue <", scoria::view(qi.name), "> of job <", uid,
               "> has an index out of range; job skipped");
      continue;
    }

    const size_t begin = tasks_.size();
    const bool policies = scoria::host_has_sub_jobs() && api().job_sub_group_policy_count(job) > 0;
    const scoria_network_topology topo = scoria::network_topology(job);
    std::vector<SubJobWork> subs;
    if (policies || (topo.mode == SCORIA_TOPOLOGY_HARD && topo.has_highest_tier_allowed != 0)) {
      subs = collect_sub_jobs(job);
    } else {
      collect_tasks(api().job_task_count(job),
                    [job](size_t k) { return api().job_task_at(job, k); });
    }
    if (tasks_.size() == begin) continue;

    if (slot_of[qi.index] < 0) {
      slot_of[qi.index] = static_cast<int64_t>(queues_.size());
      active_.push_back(queues_.size());
      queues_.push_back(QueueWork{ji.queue, scoria::view(qi.name), {}});
    }
    std::vector<scoria::RoleMinimum> role_mins = scoria::min_task_members(job);
    int64_t role_min_total = 0;
    for (const scoria::RoleMinimum& m : role_mins) role_min_total += m.min;
    jobs_.push_back(JobWork{job, ji.queue, uid, Cursor{begin, tasks_.size(), {}}, ji.min_available,
                            ji.task_count, ji.min_available < ji.task_count, std::move(role_mins),
                            role_min_total, policies, std::move(subs)});
    if (policies) organize_worksheet(jobs_.back());
    std::vector<size_t>& heap = queues_[static_cast<size_t>(slot_of[qi.index])].jobs;
    heap.push_back(jobs_.size() - 1);
    std::push_heap(heap.begin(), heap.end(), after);
    log_line(SCORIA_LOG_V4, "job <", uid, "> with ", tasks_.size() - begin,
             " pending tasks added to queue <", scoria::view(qi.name), ">");
  }
}

void Allocate::allocate_queues() {
  const auto after = [this](size_t a, size_t b) { return job_after(a, b); };
  while (!active_.empty()) {
    size_t best = 0;
    for (size_t i = 1; i < active_.size(); ++i) {
      if (api().session_queue_less(ssn_, queues_[active_[i]].queue, queues_[active_[best]].queue) !=
          0) {
        best = i;
      }
    }
    QueueWork& qw = queues_[active_[best]];
    if (api().session_overused(ssn_, qw.queue) != 0) {
      log_line(SCORIA_LOG_V3, "queue <", qw.name, "> is overused; skipped");
      active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(best));
      continue;
    }
    if (qw.jobs.empty()) {
      active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(best));
      continue;
    }
    std::pop_heap(qw.jobs.begin(), qw.jobs.end(), after);
    const size_t job = qw.jobs.back();
    qw.jobs.pop_back();
    if (allocate_job(jobs_[job])) {
      qw.jobs.push_back(job);
      std::push_heap(qw.jobs.begin(), qw.jobs.end(), after);
    }
  }
}

bool Allocate::allocate_job(JobWork& jw) {
  if (!jw.subs.empty()) return allocate_sub_jobs(jw);
  scoria::Statement stmt(ssn_);
  if (!stmt) {
    log_line(SCORIA_LOG_ERROR, "cannot open a statement for job <", jw.uid, ">; job skipped");
    return false;
  }
  place_tasks(jw, jw.cursor, stmt.get(), nullptr, nullptr);
  return finish(jw, stmt) && !jw.cursor.done();
}

void Allocate::place_tasks(const JobWork& jw, Cursor& at, scoria_statement* stmt, Scope* scope,
                           const SubJobWork* sub) {
  const auto ready = [&] {
    return (sub ? api().session_sub_job_ready(ssn_, sub->sj)
                : api().session_job_ready(ssn_, jw.job)) != 0;
  };
  while (!at.done()) {
    const TaskWork& t = tasks_[at.next++];
    if (api().session_allocatable(ssn_, jw.queue, t.task) == 0) {
      log_line(SCORIA_LOG_V3, "queue of job <", jw.uid, "> cannot take task <", t.uid, ">");
      continue;
    }
    if (t.queue_gate != 0) {
      lift_gate(t);
      continue;  // placed once the gate is gone, in a later session
    }
    if (!t.role.empty() && role_failed(at, t.role)) {
      log_line(SCORIA_LOG_V5, "task <", t.uid, "> skipped: role <", t.role,
               "> already fits nowhere");
      continue;
    }
    // A scope without nodes has nothing to offer (a NULL list means every node).
    scoria_node_choice choice{};
    choice.struct_size = sizeof choice;
    if (scope == nullptr || !scope->nodes.empty()) {
      api().session_select_node(ssn_, t.task, scope ? scope->nodes.data() : nullptr,
                                scope ? scope->nodes.size() : 0, &choice);
    }
    if (choice.fit_count == 0) {
      log_line(SCORIA_LOG_V3, "task <", t.uid, "> fits no node");
      if (!role_failed(at, t.role)) at.failed_roles.push_back(t.role);
      if (need_continue(jw, at, sub) || ready()) continue;
      break;
    }
    if (choice.node == nullptr) continue;

    const scoria_code rc = choice.idle ? api().statement_allocate(stmt, t.task, choice.node)
                                       : api().statement_pipeline(stmt, t.task, choice.node);
    if (rc != SCORIA_OK) {
      log_line(SCORIA_LOG_ERROR, choice.idle ? "allocating" : "pipelining", " task <", t.uid,
               "> failed: code ", static_cast<int>(rc));
      continue;
    }
    if (api().log_enabled(scoria::host().ctx, SCORIA_LOG_V3)) {
      log_line(SCORIA_LOG_V3, choice.idle ? "allocated" : "pipelined", " task <", t.uid,
               "> on node <", scoria::view(scoria::info(choice.node).name), ">");
    }
    if (scope != nullptr) scope->placed(t.task, choice.node, choice.idle);
    // Stop at the gang minimum so that other jobs get their turn.
    if (ready()) break;
  }
}

void Allocate::lift_gate(const TaskWork& t) const {
  if ((t.queue_gate & SCORIA_TASK_QUEUE_GATE_OPTED_IN) == 0) {
    log_line(SCORIA_LOG_WARNING, "task <", t.uid,
             "> has Volcano's scheduling gate but not the opt-in annotation "
             "scheduling.volcano.sh/queue-allocation-gate: \"true\"; the gate stays until "
             "removed by hand");
    return;
  }
  if (!SCORIA_HOST_HAS(&api(), session_lift_queue_gate)) return;
  if (api().session_lift_queue_gate(ssn_, t.task) == SCORIA_OK)
    log_line(SCORIA_LOG_V3, "task <", t.uid, "> passed its queue's check; its gate is lifted");
}

bool Allocate::finish(const JobWork& jw, scoria::Statement& stmt) {
  if (api().session_job_ready(ssn_, jw.job) != 0) {
    const scoria_code rc = stmt.commit();
    if (rc != SCORIA_OK) {
      log_line(SCORIA_LOG_ERROR, "commit for job <", jw.uid, "> failed: code ",
               static_cast<int>(rc));
    }
    return true;
  }
  if (stmt.size() > 0 && api().session_job_pipelined(ssn_, jw.job) != 0) {
    // As Volcano: the placements hold their nodes for the rest of this
    // session but nothing is bound; the job tries again next session.
    log_line(SCORIA_LOG_V3, "job <", jw.uid, "> is pipelined; placements kept unbound");
    stmt.leave_open();
    return false;
  }
  log_line(SCORIA_LOG_V3, "job <", jw.uid, "> is not ready; placements undone");
  stmt.discard();
  return false;
}

bool Allocate::need_continue(const JobWork& jw, const Cursor& at, const SubJobWork* sub) const {
  if (!jw.may_skip_unfit) return false;
  if (sub != nullptr && jw.policies) return sub->min_available < sub->task_count;
  if (jw.role_mins.empty()) return true;
  const size_t count = api().job_task_count(jw.job);
  if (jw.min_available < jw.role_min_total) {
    int64_t reachable = scoria::count_status(scoria::info(jw.job), scoria::kReadyStatuses);
    for (size_t i = 0; i < count; ++i) {
      const scoria_task_info ti = scoria::info(api().job_task_at(jw.job, i));
      if (ti.status == SCORIA_TASK_PENDING && !role_failed(at, scoria::view(ti.role))) {
        ++reachable;
      }
    }
    return reachable >= jw.min_available;
  }
  for (const scoria::RoleMinimum& m : jw.role_mins) {
    if (m.min == 0 || !role_failed(at, m.role)) continue;
    int32_t placed = 0;
    for (size_t i = 0; i < count; ++i) {
      const scoria_task_info ti = scoria::info(api().job_task_at(jw.job, i));
      if (scoria::view(ti.role) != m.role) continue;
      if ((ti.status & scoria::kReadyStatuses) != 0 ||
          (ti.status == SCORIA_TASK_PENDING && ti.best_effort != 0)) {
        ++placed;
      }
    }
    if (placed < m.min) {
      log_line(SCORIA_LOG_V4, "job <", jw.uid, ">: role <", m.role, "> has ", placed,
               " tasks placed, below its minimum ", m.min, ", and its next fits nowhere");
      return false;
    }
  }
  return true;
}

}  // namespace scoria_allocate

namespace {

using scoria_allocate::Allocate;

// The action's `arguments` (Volcano's per-action configurations): the one
// Volcano's allocate reads. Scoria's allocate always does what Volcano does
// with the predicate error cache on: once a task of a role (task-spec) fits
// no node, the role's other tasks are not tried again this session.
constexpr scoria_arg_spec kArgs[] = {
    scoria::declare_arg(SCORIA_ARG_BOOL, "predicateErrorCacheEnable", "true",
                        "accepted for Volcano configs; Scoria's allocate always skips the other "
                        "tasks of a role once one fits no node (Volcano's cache on): no effect"),
};

// No argument changes how a session runs (see kArgs).
scoria_code on_execute(void* /*instance*/, scoria_session* ssn) {
  // An exception undoes the open statement on its way out to guarded.
  return scoria::guarded([ssn] { Allocate(ssn).run(); });
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "allocate",
    .kind = SCORIA_KIND_ACTION,
    .flags = SCORIA_FLAG_DECLARES_ARGS,
    .version = "1.0.0",
    .description = "Places Pending tasks on nodes, binding a job once its gang is ready",
    .on_create = nullptr,
    .on_destroy = nullptr,
    .on_session_open = nullptr,
    .on_session_close = nullptr,
    .on_execute = on_execute,
    .args = kArgs,
    .arg_count = std::size(kArgs),
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
