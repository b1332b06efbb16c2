// The allocate action: places Pending tasks on nodes, queue by queue and job by
// job, and binds a job's placements only once its gang is ready (Volcano's
// allocate without sub-job policies). A job's per-role minimums
// (minTaskMember, ABI 1.4) decide, as in Volcano, whether a task that fits
// nowhere ends the job's attempt. A job with a network topology (ABI 1.6) is
// placed within one HyperNode (topology_search.h).
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

// A job with tasks to place. Its tasks are tasks_[next, end) in task order.
struct JobWork {
  const scoria_job* job;
  const scoria_queue* queue;
  std::string_view uid;
  size_t next;
  size_t end;
  int32_t min_available;
  // minAvailable is below the job's task count: not every task is needed, so
  // a task that fits nowhere need not end the attempt (see need_continue).
  bool may_skip_unfit;
  // The PodGroup's minTaskMember (empty on a host older than ABI 1.4) and
  // the sum of its minimums.
  std::vector<scoria::RoleMinimum> role_mins;
  int64_t role_min_total;
  // Roles (task-spec) with a task that fit nowhere this session: the other
  // tasks of a named role are taken to be alike and are not tried again.
  // The unnamed role ("") is listed too but never skipped, as in Volcano.
  std::vector<std::string_view> failed_roles;
  // A hard network topology (soft ones arrive as hard, ABI 1.6): placed
  // HyperNode by HyperNode.
  bool topology = false;
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

using scoria_allocate::Attempt;
using scoria_allocate::Scope;
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
      collect_tasks(job);
      if (tasks_.size() == begin) continue;

      if (slot_of[qi.index] < 0) {
        slot_of[qi.index] = static_cast<int64_t>(queues_.size());
        active_.push_back(queues_.size());
        queues_.push_back(QueueWork{ji.queue, scoria::view(qi.name), {}});
      }
      std::vector<scoria::RoleMinimum> role_mins = scoria::min_task_members(job);
      int64_t role_min_total = 0;
      for (const scoria::RoleMinimum& m : role_mins) role_min_total += m.min;
      const scoria_network_topology topo = scoria::network_topology(job);
      jobs_.push_back(
          JobWork{job,
                  ji.queue,
                  uid,
                  begin,
                  tasks_.size(),
                  ji.min_available,
                  ji.min_available < ji.task_count,
                  std::move(role_mins),
                  role_min_total,
                  {},
                  topo.mode == SCORIA_TOPOLOGY_HARD && topo.has_highest_tier_allowed != 0});
      std::vector<size_t>& heap = queues_[static_cast<size_t>(slot_of[qi.index])].jobs;
      heap.push_back(jobs_.size() - 1);
      std::push_heap(heap.begin(), heap.end(), after);
      log_line(SCORIA_LOG_V4, "job <", uid, "> with ", tasks_.size() - begin,
               " pending tasks added to queue <", scoria::view(qi.name), ">");
    }
  }

  // Appends the job's Pending tasks that ask for resources, in task order.
  // Best-effort tasks are left to backfill; a pod held by scheduling gates
  // waits until they are removed.
  void collect_tasks(const scoria_job* job) {
    const size_t begin = tasks_.size();
    const size_t count = api().job_task_count(job);
    for (size_t k = 0; k < count; ++k) {
      const scoria_task* task = api().job_task_at(job, k);
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
    if (jw.topology) return allocate_topology_job(jw);
    scoria::Statement stmt(ssn_);
    if (!stmt) {
      log_line(SCORIA_LOG_ERROR, "cannot open a statement for job <", jw.uid, ">; job skipped");
      return false;
    }
    place_tasks(jw, stmt.get(), nullptr);
    return finish(jw, stmt);
  }

  // Places the job's tasks in order, from jw.next, until it is ready or a
  // needed task fits nowhere. With `scope`, only on the scope's nodes, each
  // placement recorded, and the job's allocated HyperNode kept current for
  // node scoring (Volcano's JobAllocatedHyperNode).
  void place_tasks(JobWork& jw, scoria_statement* stmt, scoria_allocate::Scope* scope) {
    while (jw.next < jw.end) {
      const TaskWork& t = tasks_[jw.next++];
      if (api().session_allocatable(ssn_, jw.queue, t.task) == 0) {
        log_line(SCORIA_LOG_V3, "queue of job <", jw.uid, "> cannot take task <", t.uid, ">");
        continue;
      }
      if (!t.role.empty() && role_failed(jw, t.role)) {
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
        if (!role_failed(jw, t.role)) jw.failed_roles.push_back(t.role);
        if (need_continue(jw) || api().session_job_ready(ssn_, jw.job) != 0) continue;
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
      if (scope != nullptr) scope->placed(jw.job, t.task, choice.node, choice.idle);
      // Stop at the gang minimum so that other jobs get their turn.
      if (api().session_job_ready(ssn_, jw.job) != 0) break;
    }
  }

  // Commits the job's statement once its gang is ready, keeps a pipelined
  // one open, undoes the rest. True when committed with tasks left.
  bool finish(JobWork& jw, scoria::Statement& stmt) {
    if (api().session_job_ready(ssn_, jw.job) != 0) {
      const scoria_code rc = stmt.commit();
      if (rc != SCORIA_OK) {
        log_line(SCORIA_LOG_ERROR, "commit for job <", jw.uid, "> failed: code ",
                 static_cast<int>(rc));
      }
      return jw.next < jw.end;
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

  // --- network topology (ABI 1.6) ---------------------------------------------

  // Volcano's allocateForJob: each HyperNode of the job's gradients (from
  // the cluster top) is tried as its sub-job would be (allocateForSubJob:
  // the gradients under it, the best by HyperNode order), on a dry run; the
  // first gradient with a HyperNode where the job is ready (or pipelined)
  // decides, its best-scored HyperNode wins, and its placements are made
  // again for real.
  bool allocate_topology_job(JobWork& jw) {
    if (!tree_) tree_.emplace(ssn_);
    const Index before = scoria::network_topology(jw.job).allocated_hypernode;
    const size_t next = jw.next;
    const std::vector<std::string_view> failed = jw.failed_roles;
    const auto restore = [&] {
      jw.next = next;
      jw.failed_roles = failed;
      api().session_job_set_allocated_hypernode(ssn_, jw.job, before);
    };
    const auto try_in = [&](Index h) -> std::optional<Attempt> {
      Scope scope(ssn_, *tree_, h, before);
      scoria::Statement stmt(ssn_);
      if (!stmt) return std::nullopt;
      place_tasks(jw, stmt.get(), &scope);
      const bool ok = stmt.size() > 0 && (api().session_job_ready(ssn_, jw.job) != 0 ||
                                          api().session_job_pipelined(ssn_, jw.job) != 0);
      Attempt a{h, std::move(scope.plan), jw.next, jw.failed_roles, tree_->lca(before, h), 0};
      stmt.discard();
      restore();
      if (!ok) return std::nullopt;
      return a;
    };
    const auto for_sub_job = [&](Index h) {
      return scoria_allocate::best_in_gradients(ssn_, jw.job, h, *tree_, try_in, true);
    };
    std::optional<Attempt> best =
        scoria_allocate::best_in_gradients(ssn_, jw.job, tree_->top(), *tree_, for_sub_job, false);
    if (!best) {
      log_line(SCORIA_LOG_V3, "job <", jw.uid, "> fits in no HyperNode its topology allows");
      return false;
    }
    scoria::Statement stmt(ssn_);
    if (!stmt) return false;
    for (const scoria_allocate::Placement& p : best->plan) {
      const scoria_code rc = p.idle ? api().statement_allocate(stmt.get(), p.task, p.node)
                                    : api().statement_pipeline(stmt.get(), p.task, p.node);
      if (rc != SCORIA_OK) {
        log_line(SCORIA_LOG_ERROR, "placing job <", jw.uid, "> in HyperNode <",
                 tree_->name(best->hypernode), "> again failed: code ", static_cast<int>(rc));
        return false;
      }
    }
    jw.next = best->next;
    jw.failed_roles = std::move(best->failed_roles);
    api().session_job_set_allocated_hypernode(ssn_, jw.job, best->allocated);
    log_line(SCORIA_LOG_V3, "job <", jw.uid, "> placed in HyperNode <",
             tree_->name(best->hypernode), ">");
    return finish(jw, stmt);
  }

  static bool role_failed(const JobWork& jw, std::string_view role) {
    return std::find(jw.failed_roles.begin(), jw.failed_roles.end(), role) != jw.failed_roles.end();
  }

  // Volcano's JobInfo.NeedContinueAllocating, asked when a task fits no
  // node: may the job's other tasks still make its gang?
  //  - every task is needed (minAvailable >= task count): no;
  //  - no per-role minimums: yes, the others may make minAvailable;
  //  - minAvailable below the sum of the minimums (the roles are not
  //    enforced): yes while the ready tasks and the Pending tasks of roles
  //    that have not failed can still reach minAvailable;
  //  - else: no once a failed role (one with a minimum) has fewer tasks
  //    placed (or done, or best-effort) than its minimum, because its other
  //    tasks will not fit either.
  bool need_continue(const JobWork& jw) const {
    if (!jw.may_skip_unfit) return false;
    if (jw.role_mins.empty()) return true;
    const size_t count = api().job_task_count(jw.job);
    if (jw.min_available < jw.role_min_total) {
      int64_t reachable = scoria::count_status(scoria::info(jw.job), scoria::kReadyStatuses);
      for (size_t i = 0; i < count; ++i) {
        const scoria_task_info ti = scoria::info(api().job_task_at(jw.job, i));
        if (ti.status == SCORIA_TASK_PENDING && !role_failed(jw, scoria::view(ti.role))) {
          ++reachable;
        }
      }
      return reachable >= jw.min_available;
    }
    for (const scoria::RoleMinimum& m : jw.role_mins) {
      if (m.min == 0 || !role_failed(jw, m.role)) continue;
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
