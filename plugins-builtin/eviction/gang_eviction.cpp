#include "gang_eviction.h"

#include <scoria/hypernodes.hpp>
#include <scoria/scoria.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bundles.h"
#include "domains.h"
#include "starving.h"

namespace eviction {

namespace {

using scoria::api;
using scoria::log_line;

// A node's live resource vectors (host-owned; they change as the session
// places and evicts).
struct NodeState {
  const scoria_node* node;
  const double* idle;
  const double* releasing;
  const double* pipelined;
};

// A running task that could be a victim, and the node it runs on.
struct OnNode {
  const scoria_task* task;
  uint32_t node;  // scoria_node_info.index
};

// One topology domain being searched: a HyperNode, or the whole cluster.
struct Domain {
  uint32_t hypernode = SCORIA_NO_HYPERNODE;  // none on a host without HyperNodes
  std::string_view name;                     // empty for the whole cluster
  std::vector<size_t> nodes;                 // positions in nodes_
  std::vector<uint8_t> holds;                // by node index; empty: every node
  bool has(uint32_t node) const { return holds.empty() || (node < holds.size() && holds[node]); }
};

// A job with tasks on nodes that could be victims, and what does not change
// about it during the session. Its tasks' statuses do change (an earlier
// job's evictions), so they are read again whenever it is considered.
struct VictimJob {
  const scoria_job* job;
  const scoria_queue* queue;
  std::string_view queue_name;
  int32_t priority;
  bool preemptable;  // gang_preemptable
  bool reclaimable;  // its queue exists and is reclaimable
  std::vector<OnNode> tasks;
};

// Volcano's IsJobPreemptableForGangEviction: a PodGroup that says nothing
// may lose tasks to the gang actions, one that says volcano.sh/preemptable
// may as it says. job_info.preemptable alone cannot tell "unset" from
// "false" (hosts since sla-cdp read unset as false, as Volcano's JobInfo
// does), so an annotation decides as the host parsed it, and without one the
// job may lose tasks. The ABI shows no PodGroup labels: a PodGroup that says
// "false" only in a label is taken as saying nothing.
bool gang_preemptable(const scoria_job* job, const scoria_job_info& ji) {
  scoria_str value{};
  if (api().job_annotation(job, scoria::str("volcano.sh/preemptable"), &value) == SCORIA_OK)
    return ji.preemptable != 0;
  return true;
}

class GangEviction {
 public:
  GangEviction(scoria_session* ssn, const GangOptions& options)
      : ssn_(ssn),
        options_(options),
        dims_(scoria::dims(ssn)),
        name_(options.kind == GangKind::kPreempt ? "gangpreempt" : "gangreclaim") {}

  void run() {
    std::vector<StarvingQueue> queues = collect_starving(ssn_, name_);
    if (queues.empty()) return;
    index_nodes();
    tree_ = scoria::HyperNodeTree(ssn_);
    while (!queues.empty()) {
      StarvingQueue sq = pop_first(queues, [this](const StarvingQueue& l, const StarvingQueue& r) {
        return api().session_queue_less(ssn_, l.queue, r.queue) != 0;
      });
      if (options_.kind == GangKind::kReclaim && api().session_overused(ssn_, sq.queue) != 0) {
        log_line(SCORIA_LOG_V3, "queue <", sq.name, "> is overused; it reclaims nothing");
        continue;
      }
      while (!sq.jobs.empty()) {
        const scoria_job* job =
            pop_first(sq.jobs, [this](const scoria_job* l, const scoria_job* r) {
              return api().session_job_less(ssn_, l, r) != 0;
            });
        scoria::Statement stmt(ssn_);
        if (!stmt) {
          log_line(SCORIA_LOG_ERROR, "cannot open a statement");
          return;
        }
        evict_for(sq, job, stmt);
        const std::string_view uid = scoria::view(scoria::info(job).uid);
        if (api().session_job_pipelined(ssn_, job) != 0) {
          if (const scoria_code rc = stmt.commit(); rc != SCORIA_OK)
            log_line(SCORIA_LOG_ERROR, "commit for job <", uid, "> failed: code ",
                     static_cast<int>(rc));
        } else if (stmt.size() > 0) {
          log_line(SCORIA_LOG_V3, "job <", uid, "> is not pipelined; its evictions undone");
        }
      }
    }
  }

 private:
  // --- setup -------------------------------------------------------------------

  // Every node's vectors, and every Bound or Running preemptable task on a
  // node grouped by its job: the candidates of every job's attempt.
  void index_nodes() {
    const size_t node_count = api().node_count(ssn_);
    std::vector<int64_t> slot_of(api().job_count(ssn_), -1);  // job index -> victim_jobs_
    nodes_.reserve(node_count);
    for (size_t n = 0; n < node_count; ++n) {
      const scoria_node* node = api().node_at(ssn_, n);
      const scoria_node_info ni = scoria::info(node);
      if (ni.idle == nullptr || ni.releasing == nullptr || ni.pipelined == nullptr) continue;
      if (ni.index >= position_.size()) position_.resize(ni.index + 1, kNoPosition);
      position_[ni.index] = nodes_.size();
      nodes_.push_back(NodeState{node, ni.idle, ni.releasing, ni.pipelined});
      const size_t task_count = api().node_task_count(node);
      for (size_t k = 0; k < task_count; ++k) {
        const scoria_task* task = api().node_task_at(node, k);
        if (task == nullptr) continue;
        const scoria_task_info ti = scoria::info(task);
        if ((ti.status & (SCORIA_TASK_BOUND | SCORIA_TASK_RUNNING)) == 0) continue;
        if (ti.preemptable == 0 || ti.job == nullptr || ti.resreq == nullptr) continue;
        const scoria_job_info ji = scoria::info(ti.job);
        if (ji.index >= slot_of.size()) continue;
        if (slot_of[ji.index] < 0) {
          slot_of[ji.index] = static_cast<int64_t>(victim_jobs_.size());
          const bool reclaimable = ji.queue != nullptr && scoria::info(ji.queue).reclaimable != 0;
          victim_jobs_.push_back(VictimJob{.job = ti.job,
                                           .queue = ji.queue,
                                           .queue_name = scoria::view(ji.queue_name),
                                           .priority = ji.priority,
                                           .preemptable = gang_preemptable(ti.job, ji),
                                           .reclaimable = reclaimable,
                                           .tasks = {}});
        }
        victim_jobs_[static_cast<size_t>(slot_of[ji.index])].tasks.push_back(
            OnNode{task, ni.index});
      }
    }
  }

  // --- one job -----------------------------------------------------------------

  // Tries to make room for every Pending task of `job` at once; what it does
  // goes into `stmt`.
  void evict_for(const StarvingQueue& sq, const scoria_job* job, scoria::Statement& stmt) {
    const scoria_job_info ji = scoria::info(job);
    const std::string_view uid = scoria::view(ji.uid);
    const std::vector<const scoria_task*> pending =
        pending_in_order(ssn_, job, Pending::kNeedsResources);
    if (pending.empty()) return;
    if (options_.kind == GangKind::kReclaim && !may_reclaim(sq.queue, pending)) {
      log_line(SCORIA_LOG_V3, "queue <", sq.name, "> cannot reclaim for job <", uid, ">");
      return;
    }
    std::vector<double> need(dims_, 0.0);
    for (const scoria_task* task : pending) {
      const scoria_task_info ti = scoria::info(task);
      if (ti.init_resreq == nullptr) return;
      for (size_t d = 0; d < dims_; ++d) need[d] += ti.init_resreq[d];
    }
    const bool hard = hard_topology(job);
    const std::vector<uint32_t> domains = candidate_domains(job, hard);
    if (domains.empty()) {
      log_line(SCORIA_LOG_V3, "job <", uid,
               "> has a hard network topology and no HyperNode to evict in");
      return;
    }
    for (const uint32_t h : domains) {
      const Domain domain = domain_of(h);
      if (domain.nodes.empty()) continue;
      if (evict_in(sq.queue, job, ji, pending, need, domain, hard, stmt)) return;
    }
    log_line(SCORIA_LOG_V3, "no set of victims makes room for job <", uid, "> in any of ",
             domains.size(), " domains");
  }

  // Tries the victims of one domain, bundle by bundle; true when the job is
  // pipelined there.
  bool evict_in(const scoria_queue* queue, const scoria_job* job, const scoria_job_info& ji,
                const std::vector<const scoria_task*>& pending, std::span<const double> need,
                const Domain& domain, bool hard, scoria::Statement& stmt) {
    const std::string_view uid = scoria::view(ji.uid);
    const std::vector<Bundle> bundles = select_bundles(job, ji, pending, need, domain);
    if (bundles.empty()) {
      log_line(SCORIA_LOG_V3, "no victim bundles for job <", uid, "> in ", label(domain));
      return false;
    }
    // What the domain has idle or being released, plus the victims so far.
    std::vector<double> room(dims_, 0.0);
    for (const size_t at : domain.nodes) {
      const NodeState& ns = nodes_[at];
      for (size_t d = 0; d < dims_; ++d) room[d] += ns.idle[d] + ns.releasing[d];
    }
    std::vector<const scoria_task*> victims;
    for (const Bundle& b : bundles) {
      for (const Victim& v : b.tasks) victims.push_back(v.task);
      for (size_t d = 0; d < dims_; ++d) room[d] += b.local[d];
      if (!scoria::less_equal(need, room)) continue;
      if (attempt(queue, job, pending, victims, domain, hard, stmt)) {
        log_line(SCORIA_LOG_V3, "job <", uid, "> is pipelined in ", label(domain),
                 " after evicting ", victims.size(), " tasks");
        return true;
      }
    }
    return false;
  }

  // --- domains -----------------------------------------------------------------

  // Volcano's ContainsHardTopology (soft topologies arrive as hard ones
  // reaching the cluster top, ABI 1.6).
  static bool hard_topology(const scoria_job* job) {
    const scoria_network_topology topo = scoria::network_topology(job);
    return topo.mode == SCORIA_TOPOLOGY_HARD && topo.has_highest_tier_allowed != 0;
  }

  // Volcano's GetCandidateDomains: the HyperNodes the plugins' gradients
  // give for the job with the evict purpose from the cluster top, in order;
  // with none, the cluster top, unless the job's topology is hard. On a host
  // without HyperNodes, the whole cluster.
  std::vector<uint32_t> candidate_domains(const scoria_job* job, bool hard) {
    if (tree_.empty()) return {SCORIA_NO_HYPERNODE};
    const size_t count = gradient_under(job, tree_.top());
    const std::span<const uint32_t> offered(gradient_nodes_.data(), count);
    return pick_domains(offered, options_.max_domains, hard ? kNoDomain : tree_.top());
  }

  // The job's gradients under `root` for eviction, flattened into
  // gradient_nodes_; returns how many.
  size_t gradient_under(const scoria_job* job, uint32_t root) {
    gradient_nodes_.resize(tree_.size());
    gradient_ids_.resize(tree_.size());
    return api().session_hypernode_gradient(ssn_, job, root, SCORIA_SEARCH_EVICT,
                                            gradient_nodes_.data(), gradient_ids_.data(),
                                            tree_.size());
  }

  // The nodes of HyperNode `h` (every node for the cluster top, or on a
  // host without HyperNodes).
  Domain domain_of(uint32_t h) const {
    Domain domain;
    domain.hypernode = h;
    if (h == SCORIA_NO_HYPERNODE || h == tree_.top()) {
      domain.nodes.resize(nodes_.size());
      for (size_t i = 0; i < nodes_.size(); ++i) domain.nodes[i] = i;
      return domain;
    }
    domain.name = tree_.name(h);
    domain.holds.assign(position_.size(), 0);
    for (const uint32_t n : tree_.nodes(h)) {
      if (n >= position_.size() || position_[n] == kNoPosition) continue;
      domain.holds[n] = 1;
      domain.nodes.push_back(position_[n]);
    }
    return domain;
  }

  static std::string label(const Domain& domain) {
    if (domain.name.empty()) return "the cluster";
    return "HyperNode <" + std::string(domain.name) + ">";
  }

  // Volcano's Preemptive over the job's Pending tasks together.
  bool may_reclaim(const scoria_queue* queue, const std::vector<const scoria_task*>& pending) {
    if (SCORIA_HOST_HAS(&api(), session_preemptive_tasks))
      return api().session_preemptive_tasks(ssn_, queue, pending.data(), pending.size()) != 0;
    for (const scoria_task* task : pending)
      if (api().session_preemptive(ssn_, queue, task) == 0) return false;
    return true;
  }

  // The job's victim bundles that the plugins permit, in the order to spend
  // them.
  std::vector<Bundle> select_bundles(const scoria_job* job, const scoria_job_info& ji,
                                     const std::vector<const scoria_task*>& pending,
                                     std::span<const double> need, const Domain& domain) {
    const std::string_view own_queue = scoria::view(ji.queue_name);
    std::vector<Bundle> bundles;
    for (const VictimJob& vj : victim_jobs_) {
      if (vj.job == job || !vj.preemptable) continue;
      if (options_.kind == GangKind::kPreempt) {
        if (vj.queue_name != own_queue || vj.priority >= ji.priority) continue;
      } else if (vj.queue_name == own_queue || !vj.reclaimable) {
        continue;
      }
      // gangpreempt may evict Bound tasks too; gangreclaim only Running ones.
      const uint32_t statuses = options_.kind == GangKind::kPreempt
                                    ? (SCORIA_TASK_BOUND | SCORIA_TASK_RUNNING)
                                    : SCORIA_TASK_RUNNING;
      std::vector<Victim> candidates;
      for (const auto& [task, node] : vj.tasks) {
        if (!domain.has(node)) continue;
        const scoria_task_info ti = scoria::info(task);
        if ((ti.status & statuses) == 0) continue;
        candidates.push_back(Victim{task, scoria::view(ti.uid), ti.priority, ti.resreq});
      }
      for (Bundle& b : job_bundles(vj.job, std::move(candidates), dims_))
        bundles.push_back(std::move(b));
    }
    if (bundles.empty()) return bundles;
    rank(bundles, pending.front());
    sort_bundles(bundles, need);

    const std::vector<const scoria_task*> tasks = flatten(bundles);
    std::vector<uint8_t> selected(tasks.size(), 0);
    if (SCORIA_HOST_HAS(&api(), session_evictable)) {
      scoria_eviction_context ctx{};
      ctx.struct_size = sizeof ctx;
      ctx.kind = options_.kind == GangKind::kPreempt ? SCORIA_EVICTION_GANG_PREEMPT
                                                     : SCORIA_EVICTION_GANG_RECLAIM;
      ctx.job = job;
      ctx.domain = scoria::str(domain.name);
      api().session_evictable(ssn_, &ctx, tasks.data(), tasks.size(), selected.data());
    }
    std::vector<Bundle> valid = keep_permitted(std::move(bundles), selected, dims_);
    sort_bundles(valid, need);
    if (!options_.allow_whole_bundle) {
      std::erase_if(valid, [](const Bundle& b) { return b.type == BundleType::kWhole; });
    }
    return valid;
  }

  // Each bundle's rank: gangpreempt spends the jobs that come last in job
  // order first; gangreclaim the queues that come first in victim-queue order
  // (asked on behalf of the first Pending task, whose queue reclaims). Ranked
  // once, by a heap sort, so that the bundle order is total whatever the
  // plugins answer.
  void rank(std::vector<Bundle>& bundles, const scoria_task* preemptor) {
    const bool by_job = options_.kind == GangKind::kPreempt;
    const auto key = [by_job](const Bundle& b) -> const void* {
      return by_job ? static_cast<const void*>(b.job) : static_cast<const void*>(b.queue);
    };
    std::vector<const void*> keys;
    for (const Bundle& b : bundles)
      if (std::find(keys.begin(), keys.end(), key(b)) == keys.end()) keys.push_back(key(b));
    const auto first = [&](const void* l, const void* r) {
      if (by_job) {
        return api().session_job_less(ssn_, static_cast<const scoria_job*>(r),
                                      static_cast<const scoria_job*>(l)) != 0;
      }
      if (l == nullptr || r == nullptr) return l != nullptr;
      return api().session_victim_queue_less(ssn_, static_cast<const scoria_queue*>(l),
                                             static_cast<const scoria_queue*>(r), preemptor) != 0;
    };
    std::make_heap(keys.begin(), keys.end(), first);
    std::sort_heap(keys.begin(), keys.end(), first);
    for (Bundle& b : bundles)
      b.rank = static_cast<size_t>(std::find(keys.begin(), keys.end(), key(b)) - keys.begin());
  }

  // --- the trial -----------------------------------------------------------------

  // Evicts `victims` and pipelines every Pending task on the domain's
  // nodes; kept (merged into `stmt`) only if every task found a node and the
  // job is pipelined. A job with a hard topology goes to the first
  // HyperNode under the domain, in its gradients' order, that holds it
  // (Volcano's BuildNominationPlanInDomain for its sub-job); the victims are
  // evicted once, before the first of those HyperNodes is tried.
  bool attempt(const scoria_queue* queue, const scoria_job* job,
               const std::vector<const scoria_task*>& pending,
               const std::vector<const scoria_task*>& victims, const Domain& domain, bool hard,
               scoria::Statement& stmt) {
    scoria::Statement trial(ssn_);
    if (!trial) return false;
    for (const scoria_task* victim : victims) {
      if (const scoria_code rc = api().statement_evict(trial.get(), victim, scoria::str(name_));
          rc != SCORIA_OK) {
        log_line(SCORIA_LOG_ERROR, "evicting <", scoria::view(scoria::info(victim).uid),
                 "> failed: code ", static_cast<int>(rc));
      }
    }
    if (!hard || domain.hypernode == SCORIA_NO_HYPERNODE) {
      if (!place(queue, job, pending, domain.nodes, victims.size(), trial)) return false;
      return trial.merge_into(stmt) == SCORIA_OK;
    }
    // A copy: the gradient scratch is not to be trusted across the trials.
    const size_t count = gradient_under(job, domain.hypernode);
    const std::vector<uint32_t> within(
        gradient_nodes_.begin(), gradient_nodes_.begin() + static_cast<std::ptrdiff_t>(count));
    for (const uint32_t h : within) {
      if (h == SCORIA_NO_HYPERNODE) continue;
      const Domain sub = domain_of(h);
      if (sub.nodes.empty()) continue;
      scoria::Statement placement(ssn_);
      if (!placement) return false;
      if (!place(queue, job, pending, sub.nodes, victims.size(), placement)) continue;
      log_line(SCORIA_LOG_V4, "job <", scoria::view(scoria::info(job).uid), "> fits ", label(sub));
      if (placement.merge_into(trial) != SCORIA_OK) return false;
      return trial.merge_into(stmt) == SCORIA_OK;
    }
    return false;
  }

  // Pipelines every Pending task, in task order, onto the best of `nodes`
  // (positions in nodes_) it fits; true if each found one and the job is
  // pipelined. What it did stays in `into` either way.
  bool place(const scoria_queue* queue, const scoria_job* job,
             const std::vector<const scoria_task*>& pending, std::span<const size_t> nodes,
             size_t victim_count, scoria::Statement& into) {
    for (const scoria_task* task : pending) {
      const scoria_task_info ti = scoria::info(task);
      if (api().session_allocatable(ssn_, queue, task) == 0) {
        log_line(SCORIA_LOG_V4, "queue may not take <", scoria::view(ti.uid), ">");
        return false;
      }
      const scoria_node* node = choose_node(task, ti, nodes);
      if (node == nullptr) {
        log_line(SCORIA_LOG_V4, "<", scoria::view(ti.uid), "> fits no node with ", victim_count,
                 " victims");
        return false;
      }
      if (const scoria_code rc = api().statement_pipeline(into.get(), task, node);
          rc != SCORIA_OK) {
        log_line(SCORIA_LOG_ERROR, "pipelining <", scoria::view(ti.uid), "> failed: code ",
                 static_cast<int>(rc));
        return false;
      }
    }
    return api().session_job_pipelined(ssn_, job) != 0;
  }

  // Nodes where the task fits the future idle (idle + releasing - pipelined)
  // and whose predicates fail at most for reasons eviction can fix; those
  // with the room idle now come first, and the best scored of the first
  // group with any wins.
  const scoria_node* choose_node(const scoria_task* task, const scoria_task_info& ti,
                                 std::span<const size_t> nodes) {
    const scoria::ResourceView req(ti.init_resreq, dims_);
    idle_nodes_.clear();
    future_nodes_.clear();
    for (const size_t at : nodes) {
      const NodeState& ns = nodes_[at];
      bool fits_future = true;
      for (size_t d = 0; d < dims_ && fits_future; ++d) {
        const double future = ns.idle[d] + ns.releasing[d] - ns.pipelined[d];
        fits_future = req[d] < future || std::fabs(req[d] - future) < SCORIA_RESOURCE_EPSILON;
      }
      if (!fits_future) continue;
      uint32_t reason = 0;
      const scoria_code code = api().session_predicate(ssn_, task, ns.node, &reason);
      if (code != SCORIA_OK && code != SCORIA_UNSCHEDULABLE) continue;
      if (scoria::less_equal(req, scoria::ResourceView(ns.idle, dims_))) {
        idle_nodes_.push_back(ns.node);
      } else {
        future_nodes_.push_back(ns.node);
      }
    }
    if (const scoria_node* node = best_of(task, idle_nodes_)) return node;
    return best_of(task, future_nodes_);
  }

  const scoria_node* best_of(const scoria_task* task,
                             const std::vector<const scoria_node*>& nodes) {
    if (nodes.empty()) return nullptr;
    if (nodes.size() == 1) return nodes.front();
    scores_.assign(nodes.size(), 0.0);
    if (api().session_node_scores(ssn_, task, nodes.data(), nodes.size(), scores_.data()) !=
        SCORIA_OK) {
      std::fill(scores_.begin(), scores_.end(), 0.0);  // let best_node or the first decide
    }
    const int64_t best =
        api().session_best_node(ssn_, task, nodes.data(), scores_.data(), nodes.size());
    if (best < 0 || static_cast<size_t>(best) >= nodes.size()) return nullptr;
    return nodes[static_cast<size_t>(best)];
  }

  scoria_session* ssn_;
  const GangOptions options_;
  const size_t dims_;
  const std::string_view name_;
  static constexpr size_t kNoPosition = static_cast<size_t>(-1);

  std::vector<NodeState> nodes_;
  std::vector<size_t> position_;  // node index -> position in nodes_, or kNoPosition
  std::vector<VictimJob> victim_jobs_;
  scoria::HyperNodeTree tree_;
  // Gradient scratch (session_hypernode_gradient's output).
  std::vector<uint32_t> gradient_nodes_;
  std::vector<uint32_t> gradient_ids_;
  // Per-task scratch.
  std::vector<const scoria_node*> idle_nodes_;
  std::vector<const scoria_node*> future_nodes_;
  std::vector<double> scores_;
};

}  // namespace

GangOptions gang_options(GangKind kind, const scoria_args* args) {
  GangOptions options;
  options.kind = kind;
  if (args == nullptr) return options;
  if (const int64_t domains = scoria::arg_int(args, "maxDomains", 8); domains <= 0) {
    log_line(SCORIA_LOG_WARNING, "invalid maxDomains ", domains, ", falling back to 8");
  } else {
    options.max_domains = domains;
  }
  options.allow_whole_bundle = scoria::arg_bool(args, "allowWholeBundle", true);
  return options;
}

void run_gang_eviction(scoria_session* ssn, const GangOptions& options) {
  GangEviction(ssn, options).run();
}

}  // namespace eviction
