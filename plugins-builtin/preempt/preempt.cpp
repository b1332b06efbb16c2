// The preempt action: a starving job takes the room of lower-priority running
// tasks of its own queue (Volcano's preempt in its normal, node-by-node mode).
//
// Per queue, in queue order: first every starving job, in job order, tries to
// place its Pending tasks by evicting tasks of other jobs of the queue; the
// job's evictions and placements are kept only if the job ends up pipelined
// (its gang is met by allocated plus pipelined tasks). Then each starving job
// tries to place its remaining Pending tasks by evicting lower-priority tasks
// of its own, one task at a time. Which running tasks may go is the
// plugins' decision (session_preemptable: gang, priority, conformance, ...);
// the action adds Volcano's own rules: only Bound or Running tasks, never a
// task marked volcano.sh/preemptable=false, a best-effort preemptor only
// evicts best-effort tasks, and a pod with preemptionPolicy Never never
// preempts. The preemptor is pipelined onto the node; it is bound in a later
// session, once its victims are gone.
//
// Two ways to pick victims, as Volcano's. Normal (the default): nodes best
// scored first, evict the lowest victims on the first node until the
// preemptor fits. Topology-aware (enableTopologyAwarePreemption): dry-run
// nodes, on each asking what the preemptor would need gone (the predicates
// answer for that hypothetical state, so a pod the preemptor's
// anti-affinity rejects counts as gone once removed) and sparing every
// victim not needed; then preempt on the candidate whose victims matter
// least (candidate.h).
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <iterator>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "candidate.h"
#include "pod_fields.h"
#include "simulation.h"
#include "starving.h"

namespace {

using scoria::api;

using scoria::log_line;

// The action's `arguments`: every one Volcano's preempt reads, with its
// defaults. The predicate error cache is accepted so that Volcano
// configurations load, and has no effect.
constexpr const char* kTopologyAware = "enableTopologyAwarePreemption";
constexpr const char* kMinPercentage = "minCandidateNodesPercentage";
constexpr const char* kMinAbsolute = "minCandidateNodesAbsolute";
constexpr const char* kMaxAbsolute = "maxCandidateNodesAbsolute";

constexpr scoria_arg_spec kArgs[] = {
    scoria::declare_arg(SCORIA_ARG_BOOL, "predicateErrorCacheEnable", "true",
                        "accepted for Volcano configs; Scoria's preempt keeps no predicate error "
                        "cache: no effect"),
    scoria::declare_arg(SCORIA_ARG_BOOL, kTopologyAware, "false",
                        "pick victims by dry-running candidate nodes and sparing every victim the "
                        "preemptor does not need (inter-pod affinity included), then preempt on "
                        "the candidate whose victims matter least; false: evict the lowest "
                        "victims on the best-scored node until the preemptor fits"),
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_INT, "topologyAwarePreemptWorkerNum", "16",
                                         "accepted for Volcano configs (its dry-run workers); "
                                         "Scoria dry-runs nodes one after another, in session "
                                         "order: no effect"),
                     1),
    scoria::with_max(
        scoria::with_min(scoria::declare_arg(SCORIA_ARG_INT, kMinPercentage, "10",
                                             "topology-aware preemption: the share of the "
                                             "feasible nodes, in percent, to find as candidates "
                                             "before choosing one"),
                         0),
        100),
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_INT, kMinAbsolute, "1",
                                         "topology-aware preemption: find at least this many "
                                         "candidates (if there are)"),
                     0),
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_INT, kMaxAbsolute, "100",
                                         "topology-aware preemption: find at most this many "
                                         "candidates"),
                     1),
};

// How the action picks victims, read once from its arguments (the host has
// checked their types and ranges and filled in the defaults).
struct Config {
  explicit Config(const scoria_args* args) {
    if (args == nullptr) return;
    topology_aware = scoria::arg_bool(args, kTopologyAware, false);
    limits.min_percentage = scoria::arg_int(args, kMinPercentage, limits.min_percentage);
    limits.min_absolute = scoria::arg_int(args, kMinAbsolute, limits.min_absolute);
    limits.max_absolute = scoria::arg_int(args, kMaxAbsolute, limits.max_absolute);
  }

  bool topology_aware = false;
  preempt::CandidateLimits limits;
};

// Whose tasks a preemptor may evict: other jobs of its queue, or its own job.
enum class Scope { kOtherJobsInQueue, kOwnJob };

// A task that wants room, as read at the start of its attempt.
struct Preemptor {
  const scoria_task* task;
  scoria_task_info info;
  const scoria_job* job;
  const scoria_queue* queue;
  std::string_view queue_name;
};

// A running task that could make room. Pointers are host-owned, valid for
// the session.
struct Victim {
  const scoria_task* task;
  const scoria_job* job;
  const scoria_queue* queue;
  const double* resreq;
  std::string_view uid;
};

// A starving job and the Pending tasks it had when the action started, in
// task order; tasks from `next` on are still to try.
struct JobWork {
  const scoria_job* job;
  std::string_view uid;
  std::vector<const scoria_task*> tasks;
  size_t next = 0;
};

// A queue with starving jobs; `jobs` are positions in jobs_, in session order.
struct QueueWork {
  const scoria_queue* queue;
  std::string_view name;
  std::vector<size_t> jobs;
};

// One run of the action over one session.
class Preempt {
 public:
  Preempt(scoria_session* ssn, const Config& config)
      : ssn_(ssn), config_(config), dims_(scoria::dims(ssn)) {}

  void run() {
    collect();
    if (queues_.empty()) return;
    log_line(SCORIA_LOG_V3, "preempt: ", jobs_.size(), " starving jobs in ", queues_.size(),
             " queues");
    // Each queue is served once, in the queue order as it stands when its
    // turn comes.
    while (!queues_.empty()) {
      const QueueWork qw =
          eviction::pop_first(queues_, [this](const QueueWork& l, const QueueWork& r) {
            return api().session_queue_less(ssn_, l.queue, r.queue) != 0;
          });
      preempt_between_jobs(qw);
      preempt_within_jobs(qw);
    }
  }

 private:
  // --- setup ------------------------------------------------------------------

  // Every starving job (eviction::collect_starving), with its Pending tasks in
  // task order, grouped by queue.
  void collect() {
    for (eviction::StarvingQueue& sq : eviction::collect_starving(ssn_, "preemption")) {
      QueueWork qw{sq.queue, sq.name, {}};
      for (const scoria_job* job : sq.jobs) {
        JobWork jw{job, scoria::view(scoria::info(job).uid), pending_tasks(job), 0};
        log_line(SCORIA_LOG_V4, "job <", jw.uid, "> has ", jw.tasks.size(),
                 " pending tasks to preempt for");
        qw.jobs.push_back(jobs_.size());
        jobs_.push_back(std::move(jw));
      }
      queues_.push_back(std::move(qw));
    }
  }

  // The job's Pending tasks that are not held back by scheduling gates, in
  // task order. Best-effort tasks are included: they may evict best-effort
  // tasks.
  std::vector<const scoria_task*> pending_tasks(const scoria_job* job) const {
    return eviction::pending_in_order(ssn_, job, eviction::Pending::kAll);
  }

  // --- the two passes -----------------------------------------------------------

  // Jobs of the queue, in job order, evict tasks of the queue's other jobs.
  // A job's work is kept only if it ends up pipelined: a gang that cannot be
  // met evicts nothing.
  void preempt_between_jobs(const QueueWork& qw) {
    std::vector<size_t> remaining = qw.jobs;
    while (!remaining.empty()) {
      JobWork& jw = jobs_[eviction::pop_first(remaining, [this](size_t l, size_t r) {
        return api().session_job_less(ssn_, jobs_[l].job, jobs_[r].job) != 0;
      })];

      // The job's preemptions, one merged statement per node used.
      scoria::Statement tx(ssn_);
      while (api().session_job_starving(ssn_, jw.job) != 0) {
        if (jw.next >= jw.tasks.size()) {
          log_line(SCORIA_LOG_V3, "no preemptor task left in job <", jw.uid, ">");
          break;
        }
        const scoria_task* task = jw.tasks[jw.next++];
        if (scoria::info(task).status != SCORIA_TASK_PENDING) continue;
        preempt(task, Scope::kOtherJobsInQueue, tx);
      }
      if (api().session_job_pipelined(ssn_, jw.job) != 0) {
        tx.commit();
      } else {
        if (tx.size() > 0) {
          log_line(SCORIA_LOG_V3, "job <", jw.uid, "> is not pipelined; its preemptions undone");
        }
        tx.discard();
      }
    }
  }

  // Each starving job of the queue evicts lower-priority tasks of its own, one
  // Pending task at a time, until a task cannot be placed.
  void preempt_within_jobs(const QueueWork& qw) {
    for (size_t j : qw.jobs) {
      const JobWork& jw = jobs_[j];
      for (const scoria_task* task : pending_tasks(jw.job)) {
        scoria::Statement tx(ssn_);
        if (!preempt(task, Scope::kOwnJob, tx)) break;
        tx.commit();
      }
    }
  }

  // --- one preemptor --------------------------------------------------------------

  // Tries the nodes where only resources (or other things that evictions may
  // change) keep `task` out, best scored first, and stops at the first node
  // where evicting enough victims lets it in. Its evictions and the
  // preemptor's pipelining go into `tx`.
  bool preempt(const scoria_task* task, Scope scope, scoria::Statement& tx) {
    Preemptor p{task, scoria::info(task), nullptr, nullptr, {}};
    p.job = p.info.job;
    const std::string_view uid = scoria::view(p.info.uid);
    if (p.job == nullptr || p.info.init_resreq == nullptr) {
      log_line(SCORIA_LOG_ERROR, "preemptor <", uid, "> has no job or request; skipped");
      return false;
    }
    const scoria_job_info ji = scoria::info(p.job);
    p.queue = ji.queue;
    p.queue_name = scoria::view(ji.queue_name);
    if (!eligible(p)) return false;

    if (config_.topology_aware) return preempt_topology_aware(p, scope, tx);
    const std::vector<const scoria_node*> nodes = candidate_nodes(p, /*by_score=*/true);
    for (const scoria_node* node : nodes) {
      if (try_node(p, node, scope, tx)) return true;
    }
    log_line(SCORIA_LOG_V3, "preemptor <", uid, "> found no node to preempt on (", nodes.size(),
             " candidates)");
    return false;
  }

  // Volcano's taskEligibleToPreempt: preemptionPolicy Never does not preempt.
  // A pod nominated to a node by an earlier preemption preempts again only if
  // that node is in the session and fails its predicates, and then only if
  // the failure is unresolvable or no lower-priority pod there is still
  // terminating from a preemption.
  bool eligible(const Preemptor& p) const {
    const std::string_view uid = scoria::view(p.info.uid);
    if (p.info.preempt_never != 0) {
      log_line(SCORIA_LOG_V3, "preemptor <", uid,
               "> has preemptionPolicy Never; it does not preempt");
      return false;
    }
    const std::string_view nominated = scoria::view(p.info.nominated_node);
    if (nominated.empty()) return true;

    const scoria_node* node = api().node_find(ssn_, p.info.nominated_node);
    if (node == nullptr) {
      log_line(SCORIA_LOG_V3, "preemptor <", uid, "> is nominated to node <", nominated,
               ">, which is not in the session; it does not preempt");
      return false;
    }
    uint32_t reason = 0;
    const scoria_code code = api().session_predicate(ssn_, p.task, node, &reason);
    if (code == SCORIA_OK) {
      log_line(SCORIA_LOG_V3, "preemptor <", uid, "> passes the predicates of its nominated node <",
               nominated, ">; it does not preempt");
      return false;
    }
    if (code == SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE) return true;
    const size_t count = api().node_task_count(node);
    for (size_t k = 0; k < count; ++k) {
      const scoria_task* other = api().node_task_at(node, k);
      if (other == nullptr || scoria::info(other).priority >= p.info.priority) continue;
      if (preempt::terminating_by_preemption(scoria::view(api().task_object_json(other)))) {
        log_line(SCORIA_LOG_V3, "preemptor <", uid, "> waits for a preempted pod on node <",
                 nominated, "> to terminate");
        return false;
      }
    }
    return true;
  }

  // Nodes whose predicates fail, if at all, only in a way preemption can fix
  // (SCORIA_UNSCHEDULABLE), in session order; `by_score`: in descending
  // score, session order among equals (normal preemption). With a soft node
  // shard, its nodes go first, each group ordered on its own (Volcano's
  // GetPredicatedNodeByShard, tried group by group).
  // Asked node by node: session_predicate_nodes would also drop the fixable
  // failures (such as the pod count) and replace the task's fit error from
  // allocate. Every node is asked, where Volcano stops at its quota of
  // feasible nodes.
  std::vector<const scoria_node*> candidate_nodes(const Preemptor& p, bool by_score) {
    std::vector<const scoria_node*> in_shard, outside;
    const size_t count = api().node_count(ssn_);
    for (size_t i = 0; i < count; ++i) {
      const scoria_node* node = api().node_at(ssn_, i);
      uint32_t reason = 0;
      const scoria_code code = api().session_predicate(ssn_, p.task, node, &reason);
      if (code != SCORIA_OK && code != SCORIA_UNSCHEDULABLE) continue;
      (scoria::info(node).outside_soft_shard != 0 ? outside : in_shard).push_back(node);
    }
    std::vector<const scoria_node*> nodes = ordered(p, std::move(in_shard), by_score);
    for (const scoria_node* node : ordered(p, std::move(outside), by_score)) nodes.push_back(node);
    return nodes;
  }

  // `nodes` in descending score when `by_score`, session order among
  // equals; else as given.
  std::vector<const scoria_node*> ordered(const Preemptor& p, std::vector<const scoria_node*> nodes,
                                          bool by_score) {
    if (!by_score || nodes.size() < 2) return nodes;
    std::vector<double> scores(nodes.size(), 0.0);
    if (api().session_node_scores(ssn_, p.task, nodes.data(), nodes.size(), scores.data()) !=
        SCORIA_OK) {
      return nodes;  // unscored: session order
    }
    std::vector<size_t> order(nodes.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return scores[a] > scores[b]; });
    std::vector<const scoria_node*> sorted;
    sorted.reserve(nodes.size());
    for (size_t i : order) sorted.push_back(nodes[i]);
    return sorted;
  }

  // Evicts on `node`, lowest victim first, only as many victims as the
  // preemptor needs, then pipelines the preemptor there. Nothing is evicted
  // unless all the permitted victims together would make enough room.
  bool try_node(const Preemptor& p, const scoria_node* node, Scope scope, scoria::Statement& tx) {
    const scoria_node_info ni = scoria::info(node);
    const std::string_view node_name = scoria::view(ni.name);
    if (ni.idle == nullptr || ni.releasing == nullptr || ni.pipelined == nullptr) return false;

    std::vector<Victim> victims = candidates_on(p, node, scope);
    const scoria::ResourceView need(p.info.init_resreq, dims_);
    // Cheap bound first: if every candidate together is not enough, the
    // plugins' choice (a subset) is not either.
    if (!fits_with(need, ni, victims)) return false;
    // Ordered before the vote, so that a plugin that permits only some of
    // them (gang keeps minAvailable) spares the ones evicted last.
    scoria::sort_victims(ssn_, p.task, victims);
    victims = permitted(p, std::move(victims));
    if (!fits_with(need, ni, victims)) {
      log_line(SCORIA_LOG_V3, "no valid victims on node <", node_name, "> for <",
               scoria::view(p.info.uid), ">");
      return false;
    }

    scoria::Statement stmt(ssn_);
    if (!stmt) {
      log_line(SCORIA_LOG_ERROR, "cannot open a statement on node <", node_name, ">");
      return false;
    }
    bool fits = fits_now(p, node, ni);
    size_t evicted = 0;
    for (const Victim& v : victims) {
      if (fits) break;
      log_line(SCORIA_LOG_V3, "try to preempt <", v.uid, "> for <", scoria::view(p.info.uid),
               "> on node <", node_name, ">");
      const scoria_code rc = api().statement_evict(stmt.get(), v.task, scoria::str("preempt"));
      if (rc != SCORIA_OK) {
        log_line(SCORIA_LOG_ERROR, "evicting <", v.uid, "> failed: code ", static_cast<int>(rc));
      } else {
        ++evicted;
      }
      fits = fits_now(p, node, ni);
    }
    if (!fits) {
      log_line(SCORIA_LOG_V3, "<", scoria::view(p.info.uid), "> does not fit node <", node_name,
               "> even after ", evicted, " evictions");
      return false;  // stmt discards the evictions
    }
    const scoria_code rc = api().statement_pipeline(stmt.get(), p.task, node);
    if (rc != SCORIA_OK) {
      log_line(SCORIA_LOG_ERROR, "pipelining <", scoria::view(p.info.uid), "> onto node <",
               node_name, "> failed: code ", static_cast<int>(rc));
      return false;
    }
    log_line(SCORIA_LOG_V3, "preempted ", evicted, " tasks on node <", node_name, "> for <",
             scoria::view(p.info.uid), ">, pipelined there");
    if (const scoria_code merged = stmt.merge_into(tx); merged != SCORIA_OK) {
      log_line(SCORIA_LOG_ERROR, "merging the preemption on node <", node_name, "> failed: code ",
               static_cast<int>(merged));
      return false;
    }
    return true;
  }

  // --- topology-aware preemption ----------------------------------------------

  // Dry-runs the feasible nodes in session order until enough candidates
  // are found (candidates_wanted), chooses one (select_candidate), evicts
  // its victims and pipelines the preemptor there. Volcano starts the dry
  // run at a random node and runs nodes in parallel; Scoria starts at the
  // first so that a simulation is reproducible.
  bool preempt_topology_aware(const Preemptor& p, Scope scope, scoria::Statement& tx) {
    const std::string_view uid = scoria::view(p.info.uid);
    const std::vector<const scoria_node*> nodes = candidate_nodes(p, /*by_score=*/false);
    const size_t wanted = preempt::candidates_wanted(nodes.size(), config_.limits);
    std::vector<preempt::Candidate> found;
    for (size_t i = 0; i < nodes.size() && found.size() < wanted; ++i) {
      std::vector<const scoria_task*> victims = victims_needed(p, nodes[i], scope);
      if (!victims.empty()) found.push_back({nodes[i], std::move(victims)});
    }
    if (found.empty()) {
      log_line(SCORIA_LOG_V3, "preemptor <", uid, "> found no candidate node (", nodes.size(),
               " feasible, ", wanted, " candidates wanted)");
      return false;
    }
    const preempt::Candidate& best = found[choose(found)];
    const std::string_view node_name = scoria::view(scoria::info(best.node).name);

    scoria::Statement stmt(ssn_);
    if (!stmt) return false;
    for (const scoria_task* victim : best.victims) {
      log_line(SCORIA_LOG_V3, "try to preempt <", scoria::view(scoria::info(victim).uid), "> for <",
               uid, "> on node <", node_name, ">");
      const scoria_code rc = api().statement_evict(stmt.get(), victim, scoria::str("preempt"));
      if (rc != SCORIA_OK) {
        log_line(SCORIA_LOG_ERROR, "evicting <", scoria::view(scoria::info(victim).uid),
                 "> failed: code ", static_cast<int>(rc));
      }
    }
    if (const scoria_code rc = api().statement_pipeline(stmt.get(), p.task, best.node);
        rc != SCORIA_OK) {
      log_line(SCORIA_LOG_ERROR, "pipelining <", uid, "> onto node <", node_name, "> failed: code ",
               static_cast<int>(rc));
      return false;
    }
    log_line(SCORIA_LOG_V3, "preempted ", best.victims.size(), " tasks on node <", node_name,
             "> for <", uid, "> (", found.size(), " candidates), pipelined there");
    if (const scoria_code merged = stmt.merge_into(tx); merged != SCORIA_OK) {
      log_line(SCORIA_LOG_ERROR, "merging the preemption on node <", node_name, "> failed: code ",
               static_cast<int>(merged));
      return false;
    }
    return true;
  }

  // The victims the preemptor needs on `node` (preempt::select_victims_on_node)
  // among those the plugins permit; empty if the node is no candidate.
  std::vector<const scoria_task*> victims_needed(const Preemptor& p, const scoria_node* node,
                                                 Scope scope) {
    const scoria_node_info ni = scoria::info(node);
    if (ni.idle == nullptr || ni.releasing == nullptr || ni.pipelined == nullptr) return {};
    std::vector<Victim> victims = candidates_on(p, node, scope);
    scoria::sort_victims(ssn_, p.task, victims);
    victims = permitted(p, std::move(victims));
    const scoria::ResourceView need(p.info.init_resreq, dims_);
    if (!fits_with(need, ni, victims)) {
      log_line(SCORIA_LOG_V3, "no valid victims on node <", scoria::view(ni.name), "> for <",
               scoria::view(p.info.uid), ">");
      return {};
    }
    std::vector<const scoria_task*> ordered;
    ordered.reserve(victims.size());
    for (const Victim& v : victims) ordered.push_back(v.task);
    const preempt::Asker asker{ssn_, p.task, p.queue, need};
    return preempt::select_victims_on_node(asker, node, ordered);
  }

  // The candidate to preempt on (preempt::select_candidate), reading each
  // victim's priority and start time.
  size_t choose(std::span<const preempt::Candidate> found) {
    if (found.size() == 1) return 0;
    const int64_t now = scoria::now_ms(ssn_);
    std::vector<std::vector<preempt::VictimFacts>> facts(found.size());
    for (size_t i = 0; i < found.size(); ++i) {
      for (const scoria_task* victim : found[i].victims) {
        const scoria_task_info vi = scoria::info(victim);
        bool malformed = false;
        const std::optional<int64_t> start =
            preempt::start_time_ms(scoria::view(api().task_object_json(victim)), malformed);
        if (malformed) {
          log_line(SCORIA_LOG_WARNING, "pod <", scoria::view(vi.uid),
                   ">: status.startTime is not an RFC 3339 time; taken as not started");
        }
        facts[i].push_back({vi.priority, start.value_or(now)});
      }
    }
    return preempt::select_candidate(facts);
  }

  // Volcano's filter before the plugins vote: Bound or Running tasks that are
  // preemptable, best-effort if the preemptor is, of another job of the same
  // queue or of the preemptor's own job.
  std::vector<Victim> candidates_on(const Preemptor& p, const scoria_node* node,
                                    Scope scope) const {
    std::vector<Victim> out;
    const size_t count = api().node_task_count(node);
    for (size_t k = 0; k < count; ++k) {
      const scoria_task* task = api().node_task_at(node, k);
      if (task == nullptr) continue;
      const scoria_task_info ti = scoria::info(task);
      if (ti.status != SCORIA_TASK_BOUND && ti.status != SCORIA_TASK_RUNNING) continue;
      if (p.info.best_effort != 0 && ti.best_effort == 0) continue;
      if (ti.preemptable == 0 || ti.job == nullptr || ti.resreq == nullptr) continue;
      const scoria_job_info vj = scoria::info(ti.job);
      if (scope == Scope::kOwnJob) {
        if (ti.job != p.job) continue;
      } else if (ti.job == p.job || scoria::view(vj.queue_name) != p.queue_name) {
        continue;
      }
      out.push_back(Victim{task, ti.job, vj.queue, ti.resreq, scoria::view(ti.uid)});
    }
    return out;
  }

  // The candidates every deciding plugin lets the preemptor evict, in their
  // given order.
  std::vector<Victim> permitted(const Preemptor& p, std::vector<Victim> candidates) {
    if (candidates.empty()) return candidates;
    std::vector<const scoria_task*> tasks;
    tasks.reserve(candidates.size());
    for (const Victim& v : candidates) tasks.push_back(v.task);
    std::vector<uint8_t> selected(candidates.size(), 0);
    api().session_preemptable(ssn_, p.task, tasks.data(), tasks.size(), selected.data());
    std::vector<Victim> out;
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (selected[i] != 0) out.push_back(candidates[i]);
    }
    return out;
  }

  // need <= idle + releasing - pipelined + the victims' requests.
  bool fits_with(scoria::ResourceView need, const scoria_node_info& ni,
                 std::span<const Victim> victims) const {
    for (size_t d = 0; d < dims_; ++d) {
      double room = ni.idle[d] + ni.releasing[d] - ni.pipelined[d];
      for (const Victim& v : victims) room += v.resreq[d];
      if (!(need[d] < room || std::fabs(need[d] - room) < SCORIA_RESOURCE_EPSILON)) return false;
    }
    return true;
  }

  // Volcano's preemptorFitsOnNode: the queue may take the preemptor, it fits
  // the node's future idle as it stands now, and every predicate passes.
  bool fits_now(const Preemptor& p, const scoria_node* node, const scoria_node_info& ni) {
    if (p.queue != nullptr && api().session_allocatable(ssn_, p.queue, p.task) == 0) return false;
    if (!fits_with(scoria::ResourceView(p.info.init_resreq, dims_), ni, {})) return false;
    uint32_t reason = 0;
    return api().session_predicate(ssn_, p.task, node, &reason) == SCORIA_OK;
  }

  scoria_session* ssn_;
  const Config& config_;
  const size_t dims_;
  std::vector<JobWork> jobs_;
  std::vector<QueueWork> queues_;
};

scoria_code on_execute(void* instance, scoria_session* ssn) {
  // An exception undoes the open statements and never reaches the host.
  return scoria::guarded([&] { Preempt(ssn, *static_cast<const Config*>(instance)).run(); });
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "preempt",
    .kind = SCORIA_KIND_ACTION,
    .flags = SCORIA_FLAG_DECLARES_ARGS,
    .version = "1.0.0",
    .description = "Evicts lower-priority tasks of a queue so that its starving jobs can run",
    .on_create = scoria::create_instance<Config>,
    .on_destroy = scoria::destroy_instance<Config>,
    .on_session_open = nullptr,
    .on_session_close = nullptr,
    .on_execute = on_execute,
    .args = kArgs,
    .arg_count = std::size(kArgs),
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
