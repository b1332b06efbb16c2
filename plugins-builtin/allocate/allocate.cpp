// The allocate action: places Pending tasks on nodes, queue by queue and job by
// job, and binds a job's placements only once its gang is ready (Volcano's
// allocate without sub-job policies). A job's per-role minimums
// (minTaskMember, ABI 1.4) decide, as in Volcano, whether a task that fits
// nowhere ends the job's attempt. A job with sub-jobs (spec.subGroupPolicy,
// ABI 1.9) or a network topology (ABI 1.6) is placed sub-job by sub-job,
// each within the HyperNodes its topology allows (topology_search.h).
#include <scoria/scoria.h>
#include <scoria/hypernodes.hpp>
#include <scoria/scoria.hpp>

#include "topology_search.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace {

using scoria::api;
using scoria::log_line;

// The action's `arguments` (Volcano's per-action configurations): the one
// Volcano's allocate reads. Scoria's allocate always does what Volcano does
// with the predicate error cache on: once a task of a role (task-spec) fits
// no node, the role's other tasks are not tried again this session.
constexpr scoria_arg_spec kArgs[] = {
    scoria::declare_arg(SCORIA_ARG_BOOL, "predicateErrorCacheEnable", "true",
                        "accepted for Volcano configs; Scoria's allocate always skips the other "
                        "tasks of a role once one fits no node (Volcano's cache on): no effect"),
};

// A Pending task to place, with what the hot loop reads of it. The pointers
// are host-owned and stay valid for the session.
struct TaskWork {
  const scoria_task* task;
  const double* init_resreq;
  std::string_view role;
  std::string_view uid;
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

// The live resource vectors of a node (host-owned, updated as the session
// allocates), read once per session instead of once per task and node.
struct NodeState {
  const scoria_node* node;
  const double* idle;
  const double* releasing;
  const double* pipelined;
};

// A node chosen for a task, and whether it has the resources idle now (else
// they are being released and the task is pipelined).
struct Choice {
  const scoria_node* node = nullptr;
  bool idle = false;
};

using Index = uint32_t;

// One run of the action over one session.
class Allocate {
 public:
  explicit Allocate(scoria_session* ssn) : ssn_(ssn), dims_(scoria::dims(ssn)) {}

  void run() {
    read_nodes();
    collect();
    log_line(SCORIA_LOG_V3, "try to allocate for ", jobs_.size(), " jobs in ", active_.size(),
             " queues over ", nodes_.size(), " nodes");
    allocate_queues();
  }

 private:
  // --- setup ----------------------------------------------------------------

  void read_nodes() {
    const size_t count = api().node_count(ssn_);
    nodes_.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      const scoria_node* node = api().node_at(ssn_, i);
      const scoria_node_info ni = scoria::info(node);
      if (ni.idle == nullptr || ni.releasing == nullptr || ni.pipelined == nullptr) {
        // Kept so that positions match the session's; never chosen.
        log_line(SCORIA_LOG_ERROR, "node ", i, " has no resource vectors; it is not used");
        nodes_.push_back(NodeState{node, nullptr, nullptr, nullptr});
        continue;
      }
      nodes_.push_back(NodeState{node, ni.idle, ni.releasing, ni.pipelined});
    }
    // Sized once: session_predicate_nodes writes up to node_count nodes.
    fit_.resize(count);
    idle_nodes_.reserve(count);
    future_nodes_.reserve(count);
    scores_.resize(count);
  }

  // Gathers every job that may be allocated and its Pending tasks in task order,
  // grouped by queue.
  void collect() {
    const bool enqueue_enabled = api().session_action_enabled(ssn_, scoria::str("enqueue")) != 0;
    const size_t queue_count = api().queue_count(ssn_);
    std::vector<int64_t> slot_of(queue_count, -1);  // queue index -> position in queues_
    const auto after = [this](size_t a, size_t b) { return job_after(a, b); };

    const size_t job_count = api().job_count(ssn_);
    for (size_t i = 0; i < job_count; ++i) {
      const scoria_job* job = api().job_at(ssn_, i);
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
      const bool policies =
          scoria::host_has_sub_jobs() && api().job_sub_group_policy_count(job) > 0;
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
      jobs_.push_back(JobWork{job, ji.queue, uid, Cursor{begin, tasks_.size(), {}},
                              ji.min_available, ji.task_count, ji.min_available < ji.task_count,
                              std::move(role_mins), role_min_total, policies, std::move(subs)});
      if (policies) organize_worksheet(jobs_.back());
      std::vector<size_t>& heap = queues_[static_cast<size_t>(slot_of[qi.index])].jobs;
      heap.push_back(jobs_.size() - 1);
      std::push_heap(heap.begin(), heap.end(), after);
      log_line(SCORIA_LOG_V4, "job <", uid, "> with ", tasks_.size() - begin,
               " pending tasks added to queue <", scoria::view(qi.name), ">");
    }
  }

  // Appends the Pending tasks that ask for resources among `count` given by
  // task_at(k), in task order. Best-effort tasks are left to backfill; a pod
  // held by scheduling gates waits until they are removed.
  template <class TaskAt>
  void collect_tasks(size_t count, TaskAt&& task_at) {
    const size_t begin = tasks_.size();
    for (size_t k = 0; k < count; ++k) {
      const scoria_task* task = task_at(k);
      const scoria_task_info ti = scoria::info(task);
      if (ti.status != SCORIA_TASK_PENDING || ti.best_effort != 0) continue;
      if (ti.scheduling_gated != 0) continue;
      if (ti.init_resreq == nullptr) {
        log_line(SCORIA_LOG_ERROR, "task <", scoria::view(ti.uid), "> has no request; skipped");
        continue;
      }
      tasks_.push_back(TaskWork{task, ti.init_resreq, scoria::view(ti.role), scoria::view(ti.uid)});
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
  std::vector<SubJobWork> collect_sub_jobs(const scoria_job* job) {
    std::vector<SubJobWork> subs;
    const size_t count = api().job_sub_job_count(job);
    for (size_t i = 0; i < count; ++i) {
      const scoria_sub_job* sj = api().job_sub_job_at(job, i);
      const size_t begin = tasks_.size();
      collect_tasks(api().sub_job_task_count(sj),
                    [sj](size_t k) { return api().sub_job_task_at(sj, k); });
      if (tasks_.size() == begin) continue;
      const scoria_sub_job_info si = scoria::info(sj);
      subs.push_back(SubJobWork{sj, Cursor{begin, tasks_.size(), {}}, si.min_available,
                                si.task_count,
                                scoria::network_topology(sj).mode != SCORIA_TOPOLOGY_NONE});
    }
    return subs;
  }

  // Volcano's organizeJobWorksheet: of the sub-jobs not yet ready, in
  // sub-job order, as many of each policy as its minSubGroups still asks
  // for are required, and go before the others.
  void organize_worksheet(JobWork& jw) {
    const std::vector<scoria::SubGroupPolicy> policies = scoria::sub_group_policies(jw.job);
    // Ready sub-jobs (then required ones) counted by policy name, against
    // the last minSubGroups given for that name.
    std::vector<std::pair<std::string_view, int32_t>> counted, mins;
    const auto at = [](auto& list, std::string_view name) -> int32_t& {
      for (auto& [n, v] : list)
        if (n == name) return v;
      return list.emplace_back(name, 0).second;
    };
    for (const scoria::SubGroupPolicy& p : policies) at(mins, p.name) = p.min_sub_groups;
    const auto policy_of = [&](const scoria_sub_job* sj) -> std::string_view {
      const uint32_t p = scoria::info(sj).policy;
      return p < policies.size() ? policies[p].name : std::string_view{};
    };
    std::vector<const scoria_sub_job*> not_ready;
    const size_t count = api().job_sub_job_count(jw.job);
    for (size_t i = 0; i < count; ++i) {
      const scoria_sub_job* sj = api().job_sub_job_at(jw.job, i);
      if (api().session_sub_job_ready(ssn_, sj) != 0)
        ++at(counted, policy_of(sj));
      else
        not_ready.push_back(sj);
    }
    const auto less = [this](const scoria_sub_job* l, const scoria_sub_job* r) {
      return api().session_sub_job_less(ssn_, l, r) != 0;
    };
    std::make_heap(not_ready.begin(), not_ready.end(), less);
    std::sort_heap(not_ready.begin(), not_ready.end(), less);
    for (const scoria_sub_job* sj : not_ready) {
      const uint32_t p = scoria::info(sj).policy;
      if (p >= policies.size()) continue;  // the default sub-job is never required
      int32_t& have = at(counted, policies[p].name);
      if (have >= at(mins, policies[p].name)) continue;
      ++have;
      for (SubJobWork& s : jw.subs)
        if (s.sj == sj) s.required = true;
    }
  }

  // Heap order for std::*_heap (a max-heap): `a` sorts below `b` when b goes first.
  bool job_after(size_t a, size_t b) const {
    return api().session_job_less(ssn_, jobs_[b].job, jobs_[a].job) != 0;
  }

  // --- the loop ---------------------------------------------------------------

  // Serves the first queue one job at a time. The queue order is asked afresh
  // every round because allocation changes the queues' shares; a job's place
  // among its queue's jobs is re-evaluated when it is pushed back (the other
  // jobs of the queue did not change meanwhile).
  void allocate_queues() {
    const auto after = [this](size_t a, size_t b) { return job_after(a, b); };
    while (!active_.empty()) {
      size_t best = 0;
      for (size_t i = 1; i < active_.size(); ++i) {
        if (api().session_queue_less(ssn_, queues_[active_[i]].queue,
                                     queues_[active_[best]].queue) != 0) {
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

  // Places the job's tasks in order until it is ready or a needed task fits
  // nowhere. Returns true when the job was committed and has tasks left, so
  // that it competes again for the rest.
  bool allocate_job(JobWork& jw) {
    if (!jw.subs.empty()) return allocate_sub_jobs(jw);
    scoria::Statement stmt(ssn_);
    if (!stmt) {
      log_line(SCORIA_LOG_ERROR, "cannot open a statement for job <", jw.uid, ">; job skipped");
      return false;
    }
    place_tasks(jw, jw.cursor, stmt.get(), nullptr, nullptr);
    return finish(jw, stmt) && !jw.cursor.done();
  }

  // Places tasks from `at` in order until the job (with `sub`, the sub-job)
  // is ready or a needed task fits nowhere. With `scope`, only on the
  // scope's nodes, each placement recorded, and the sub-job's allocated
  // HyperNode kept current for node scoring (Volcano's
  // JobAllocatedHyperNode).
  void place_tasks(const JobWork& jw, Cursor& at, scoria_statement* stmt,
                   scoria_allocate::Scope* scope, const SubJobWork* sub) {
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
      if (!t.role.empty() && role_failed(at, t.role)) {
        log_line(SCORIA_LOG_V5, "task <", t.uid, "> skipped: role <", t.role,
                 "> already fits nowhere");
        continue;
      }
      size_t fit_count = scope == nullptr
                             ? api().session_predicate_nodes(ssn_, t.task, nullptr, 0,
                                                             /*check_resources=*/1, fit_.data())
                             : api().session_predicate_nodes(ssn_, t.task, scope->nodes.data(),
                                                             scope->nodes.size(), 1, fit_.data());
      fit_count = std::min(fit_count, fit_.size());
      if (fit_count == 0) {
        log_line(SCORIA_LOG_V3, "task <", t.uid, "> fits no node");
        if (!role_failed(at, t.role)) at.failed_roles.push_back(t.role);
        if (need_continue(jw, at, sub) || ready()) continue;
        break;
      }
      const Choice choice = choose_node(t, fit_count);
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

  // Commits the job's statement once its gang is ready, keeps a pipelined
  // one open, undoes the rest. True when committed.
  bool finish(const JobWork& jw, scoria::Statement& stmt) {
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

  // --- sub-jobs and network topology (ABI 1.9, 1.6) ------------------------------

  // A sub-job placed within one HyperNode on a dry run.
  struct SubJobTrial {
    Index hypernode;
    std::vector<scoria_allocate::Placement> plan;
    Cursor cursor;    // where the sub-job's tasks would stand after it
    Index allocated;  // the sub-job's allocated HyperNode then
    double score = 0;
  };
  // The job placed within one HyperNode on a dry run, sub-job by sub-job.
  struct JobTrial {
    Index hypernode;
    std::vector<scoria_allocate::Placement> plan;
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
  bool replay(const JobWork& jw, const std::vector<scoria_allocate::Placement>& plan,
              scoria_statement* stmt) {
    for (const scoria_allocate::Placement& p : plan) {
      const scoria_code rc = p.idle ? api().statement_allocate(stmt, p.task, p.node)
                                    : api().statement_pipeline(stmt, p.task, p.node);
      if (rc != SCORIA_OK) {
        log_line(SCORIA_LOG_ERROR, "placing job <", jw.uid, "> again failed: code ",
                 static_cast<int>(rc));
        return false;
      }
    }
    return true;
  }

  // The next sub-job of a worksheet: required ones first, then the sub-job
  // order, asked afresh as placements change readiness.
  const SubJobWork* next_sub_job(std::vector<SubJobWork>& ws) const {
    SubJobWork* best = nullptr;
    for (SubJobWork& s : ws) {
      if (!s.alive) continue;
      if (best == nullptr ||
          (s.required != best->required ? s.required
                                        : api().session_sub_job_less(ssn_, s.sj, best->sj) != 0)) {
        best = &s;
      }
    }
    return best;
  }

  // Volcano's allocateForJob: each HyperNode of the job's gradients (from
  // the cluster top) is tried on a dry run, placing its sub-jobs one after
  // another (each by allocate_sub_job, and left in place for the next to
  // see) until the job is ready; the first gradient with a HyperNode where
  // the job is ready or pipelined decides, the HyperNode whose sub-jobs
  // scored best wins, and its placements are made again for real.
  bool allocate_sub_jobs(JobWork& jw) {
    if (!tree_) tree_.emplace(ssn_);
    if (std::none_of(jw.subs.begin(), jw.subs.end(), [](const SubJobWork& s) { return s.alive; }))
      return false;
    const Index job_before = scoria::network_topology(jw.job).allocated_hypernode;
    std::vector<Index> before;
    for (const SubJobWork& s : jw.subs) before.push_back(allocated_of(s.sj));
    const auto restore = [&] {
      for (size_t k = 0; k < jw.subs.size(); ++k) set_allocated(jw.subs[k].sj, before[k]);
    };
    const auto try_in = [&](Index h) -> std::optional<JobTrial> {
      JobTrial trial{h, {}, jw.subs, {}, 0};
      scoria::Statement stmt(ssn_);
      if (!stmt) return std::nullopt;
      while (const SubJobWork* next = next_sub_job(trial.subs)) {
        SubJobWork& s = *const_cast<SubJobWork*>(next);
        std::optional<SubJobTrial> r = allocate_sub_job(jw, s, h);
        if (!r || r->plan.empty() || !replay(jw, r->plan, stmt.get())) {
          s.alive = false;  // gone from this trial's worksheet
          continue;
        }
        s.cursor = std::move(r->cursor);
        s.alive = !s.cursor.done();
        set_allocated(s.sj, r->allocated);
        trial.plan.insert(trial.plan.end(), r->plan.begin(), r->plan.end());
        trial.score += r->score;
        if (api().session_job_ready(ssn_, jw.job) != 0) break;
      }
      for (const SubJobWork& s : jw.subs) trial.allocated.push_back(allocated_of(s.sj));
      restore();
      const bool ok = !trial.plan.empty() && (api().session_job_ready(ssn_, jw.job) != 0 ||
                                              api().session_job_pipelined(ssn_, jw.job) != 0);
      stmt.discard();
      if (!ok) return std::nullopt;
      return trial;
    };
    std::optional<JobTrial> best = scoria_allocate::best_in_gradients(
        tree_->size(),
        [&](Index* hypernodes, uint32_t* gradient, size_t capacity) {
          return api().session_hypernode_gradient(
              ssn_, jw.job, tree_->top(), SCORIA_SEARCH_ALLOCATE, hypernodes, gradient, capacity);
        },
        [](const Index*, size_t, double*) {}, try_in);
    if (!best) {
      log_line(SCORIA_LOG_V3, "job <", jw.uid, "> fits in no HyperNode its topology allows");
      return false;
    }
    scoria::Statement stmt(ssn_);
    if (!stmt || !replay(jw, best->plan, stmt.get())) return false;
    jw.subs = std::move(best->subs);
    log_line(SCORIA_LOG_V3, "job <", jw.uid, "> placed in HyperNode <",
             tree_->name(best->hypernode), ">");
    if (!finish(jw, stmt)) return false;
    // Committed: where the job and its sub-jobs now are (Volcano's
    // UpdateDecisionToJob).
    api().session_job_set_allocated_hypernode(ssn_, jw.job,
                                              tree_->lca(job_before, best->hypernode));
    for (size_t k = 0; k < jw.subs.size(); ++k) set_allocated(jw.subs[k].sj, best->allocated[k]);
    return std::any_of(jw.subs.begin(), jw.subs.end(), [](const SubJobWork& s) { return s.alive; });
  }

  // Volcano's allocateForSubJob: each HyperNode of the sub-job's gradients
  // under `h` is tried on a dry run; the first gradient with a HyperNode
  // where the sub-job is ready (or pipelined) decides, and the best by
  // HyperNode order wins.
  std::optional<SubJobTrial> allocate_sub_job(const JobWork& jw, const SubJobWork& s, Index h) {
    const Index before = allocated_of(s.sj);
    const auto try_in = [&](Index within) -> std::optional<SubJobTrial> {
      scoria_allocate::Scope scope(ssn_, *tree_, within, s.sj, s.topology, before);
      scoria::Statement stmt(ssn_);
      if (!stmt) return std::nullopt;
      Cursor cursor = s.cursor;
      place_tasks(jw, cursor, stmt.get(), &scope, &s);
      const bool ok = stmt.size() > 0 && (api().session_sub_job_ready(ssn_, s.sj) != 0 ||
                                          api().session_sub_job_pipelined(ssn_, s.sj) != 0);
      SubJobTrial a{within, std::move(scope.plan), std::move(cursor), tree_->lca(before, within),
                    0};
      stmt.discard();
      set_allocated(s.sj, before);
      if (!ok) return std::nullopt;
      return a;
    };
    return scoria_allocate::best_in_gradients(
        tree_->size(),
        [&](Index* hypernodes, uint32_t* gradient, size_t capacity) {
          return api().session_sub_job_hypernode_gradient(ssn_, s.sj, h, SCORIA_SEARCH_ALLOCATE,
                                                          hypernodes, gradient, capacity);
        },
        [&](const Index* which, size_t count, double* scores) {
          api().session_sub_job_hypernode_scores(ssn_, s.sj, which, count, scores);
        },
        try_in);
  }

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
  bool need_continue(const JobWork& jw, const Cursor& at, const SubJobWork* sub) const {
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

  // --- node choice -------------------------------------------------------------

  // Prefers nodes with the resources idle now over nodes where they are being
  // released; within the first group that has any, the best scored node wins.
  Choice choose_node(const TaskWork& t, size_t fit_count) {
    idle_nodes_.clear();
    future_nodes_.clear();
    const scoria::ResourceView req(t.init_resreq, dims_);
    size_t cursor = 0;
    for (size_t k = 0; k < fit_count; ++k) {
      const NodeState* ns = locate(fit_[k], cursor);
      if (ns == nullptr || ns->idle == nullptr) continue;
      if (scoria::less_equal(req, scoria::ResourceView(ns->idle, dims_))) {
        idle_nodes_.push_back(ns->node);
      } else if (fits_future_idle(req, *ns)) {
        future_nodes_.push_back(ns->node);
      }
    }
    if (const scoria_node* node = best_of(t, idle_nodes_)) return Choice{node, true};
    if (const scoria_node* node = best_of(t, future_nodes_)) return Choice{node, false};
    return Choice{};
  }

  // The predicate writes fit nodes in session order, so a forward walk finds
  // them without a host call; anything else is looked up by index.
  const NodeState* locate(const scoria_node* node, size_t& cursor) const {
    while (cursor < nodes_.size() && nodes_[cursor].node != node) ++cursor;
    if (cursor < nodes_.size()) return &nodes_[cursor++];
    const uint32_t index = scoria::info(node).index;
    if (index >= nodes_.size() || nodes_[index].node != node) return nullptr;
    // The order is not the session's: look up every further node directly.
    cursor = nodes_.size();
    return &nodes_[index];
  }

  // init_resreq <= idle + releasing - pipelined, with Volcano's tolerance.
  bool fits_future_idle(scoria::ResourceView req, const NodeState& ns) const {
    for (size_t d = 0; d < dims_; ++d) {
      const double future = ns.idle[d] + ns.releasing[d] - ns.pipelined[d];
      if (!(req[d] < future || std::fabs(req[d] - future) < SCORIA_RESOURCE_EPSILON)) {
        return false;
      }
    }
    return true;
  }

  const scoria_node* best_of(const TaskWork& t, const std::vector<const scoria_node*>& nodes) {
    if (nodes.empty()) return nullptr;
    if (nodes.size() == 1) return nodes.front();
    const std::span<double> scores(scores_.data(), nodes.size());
    if (api().session_node_scores(ssn_, t.task, nodes.data(), nodes.size(), scores.data()) !=
        SCORIA_OK) {
      // Scores failed: let best_node's plugins or the lowest index decide.
      std::fill(scores.begin(), scores.end(), 0.0);
    }
    const int64_t best =
        api().session_best_node(ssn_, t.task, nodes.data(), scores.data(), nodes.size());
    if (best < 0 || static_cast<size_t>(best) >= nodes.size()) return nullptr;
    return nodes[static_cast<size_t>(best)];
  }

  scoria_session* ssn_;
  const size_t dims_;

  std::vector<NodeState> nodes_;  // session order
  std::vector<TaskWork> tasks_;
  std::vector<JobWork> jobs_;
  std::vector<QueueWork> queues_;
  std::vector<size_t> active_;  // positions in queues_ still served, first seen first

  // Per-task scratch, sized to node_count once per session.
  std::vector<const scoria_node*> fit_;
  std::vector<const scoria_node*> idle_nodes_;
  std::vector<const scoria_node*> future_nodes_;
  std::vector<double> scores_;
  // Read when the first job with a network topology is met.
  std::optional<scoria::HyperNodeTree> tree_;
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
