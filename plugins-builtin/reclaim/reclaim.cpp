// The reclaim action (Volcano's reclaim): a queue that has not used its share
// takes resources back from other queues, evicting their running tasks.
//
// Queues are served in queue order; an overused queue reclaims nothing. In
// each queue, every starving job, in job order, places its Pending tasks one
// by one: a task goes to the first node (session order) where its predicates
// fail at most for reasons eviction can fix, and where evicting Running,
// preemptable tasks of other, reclaimable queues — those the plugins permit
// (session_reclaimable: gang, proportion, capacity, conformance, ...),
// in victim order and only as many as needed — makes room for it. The task is
// pipelined there and bound in a later session, once its victims are gone.
// A job's evictions are kept only if the job ends up pipelined, so a gang that
// cannot be met evicts nothing. A queue's plugins may refuse to reclaim for a
// task at all (session_preemptive: the queue would exceed its share).
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "starving.h"

namespace {

using scoria::api;
using scoria::log_line;

// The action's `arguments` (Volcano's per-action configurations): the one
// Volcano's reclaim reads, accepted so that Volcano configs load.
constexpr scoria_arg_spec kArgs[] = {
    scoria::declare_arg(SCORIA_ARG_BOOL, "predicateErrorCacheEnable", "true",
                        "accepted for Volcano configs; Scoria's reclaim keeps no predicate error "
                        "cache: no effect"),
};

// A running task of another queue that could make room.
struct Victim {
  const scoria_task* task;
  const scoria_job* job;
  const scoria_queue* queue;
  const double* resreq;
  std::string_view uid;
};

// A starving job and its Pending tasks in task order.
struct JobWork {
  const scoria_job* job;
  std::string_view uid;
  std::vector<const scoria_task*> tasks;
};

// A queue seen among the jobs; `jobs` are its starving ones (positions in
// jobs_).
struct QueueWork {
  const scoria_queue* queue;
  std::string_view name;
  std::vector<size_t> jobs;
};

class Reclaim {
 public:
  explicit Reclaim(scoria_session* ssn) : ssn_(ssn), dims_(scoria::dims(ssn)) {}

  void run() {
    collect();
    order_nodes();
    // Each queue is served once, chosen by the queue order as it stands when
    // its turn comes (reclaiming changes the shares).
    while (!queues_.empty()) {
      const QueueWork qw =
          eviction::pop_first(queues_, [this](const QueueWork& l, const QueueWork& r) {
            return api().session_queue_less(ssn_, l.queue, r.queue) != 0;
          });
      if (api().session_overused(ssn_, qw.queue) != 0) {
        log_line(SCORIA_LOG_V3, "queue <", qw.name, "> is overused; it reclaims nothing");
        continue;
      }
      serve(qw);
    }
  }

 private:
  // Every starving job (eviction::collect_starving), with its Pending tasks in
  // task order, grouped by queue: the reclaimers.
  void collect() {
    for (eviction::StarvingQueue& sq : eviction::collect_starving(ssn_, "reclaim")) {
      QueueWork qw{sq.queue, sq.name, {}};
      for (const scoria_job* job : sq.jobs) {
        qw.jobs.push_back(jobs_.size());
        jobs_.push_back(JobWork{job, scoria::view(scoria::info(job).uid),
                                eviction::pending_in_order(ssn_, job, eviction::Pending::kAll)});
      }
      queues_.push_back(std::move(qw));
    }
  }

  // The queue's starving jobs, in job order; each keeps its reclaims only if
  // it ends up pipelined.
  void serve(const QueueWork& qw) {
    std::vector<size_t> remaining = qw.jobs;
    while (!remaining.empty()) {
      const JobWork& jw = jobs_[eviction::pop_first(remaining, [this](size_t l, size_t r) {
        return api().session_job_less(ssn_, jobs_[l].job, jobs_[r].job) != 0;
      })];

      scoria::Statement job_stmt(ssn_);
      if (!job_stmt) {
        log_line(SCORIA_LOG_ERROR, "cannot open a statement for job <", jw.uid, ">");
        continue;
      }
      for (const scoria_task* task : jw.tasks) {
        if (api().session_job_starving(ssn_, jw.job) == 0) break;
        const scoria_task_info ti = scoria::info(task);
        if (ti.status != SCORIA_TASK_PENDING) continue;
        if (ti.preempt_never != 0) {
          log_line(SCORIA_LOG_V3, "task <", scoria::view(ti.uid),
                   "> has preemptionPolicy Never; it does not reclaim");
          continue;
        }
        if (api().session_preemptive(ssn_, qw.queue, task) == 0) {
          log_line(SCORIA_LOG_V3, "queue <", qw.name, "> may not reclaim for task <",
                   scoria::view(ti.uid), ">");
          continue;
        }
        reclaim_for(task, ti, jw.job, job_stmt);
      }
      if (api().session_job_pipelined(ssn_, jw.job) != 0) {
        if (const scoria_code rc = job_stmt.commit(); rc != SCORIA_OK) {
          log_line(SCORIA_LOG_ERROR, "commit for job <", jw.uid, "> failed: code ",
                   static_cast<int>(rc));
        }
      } else if (job_stmt.size() > 0) {
        log_line(SCORIA_LOG_V3, "job <", jw.uid, "> is not pipelined; its reclaims undone");
      }
    }
  }

  // Places `task` on the first node where evictions make room; its evictions
  // and its pipelining go into `job_stmt`.
  void reclaim_for(const scoria_task* task, const scoria_task_info& ti, const scoria_job* job,
                   scoria::Statement& job_stmt) {
    const std::string_view uid = scoria::view(ti.uid);
    if (ti.init_resreq == nullptr) return;
    const scoria::ResourceView need(ti.init_resreq, dims_);
    const std::string_view queue_name = scoria::view(scoria::info(job).queue_name);
    for (const scoria_node* node : nodes_) {
      uint32_t reason = 0;
      const scoria_code code = api().session_predicate(ssn_, task, node, &reason);
      if (code != SCORIA_OK && code != SCORIA_UNSCHEDULABLE) continue;

      std::vector<Victim> victims = candidates_on(node, queue_name);
      if (victims.empty()) continue;
      // Ordered before the vote, so that a plugin that permits only some of
      // them (gang keeps minAvailable) spares the ones evicted last.
      scoria::sort_victims(ssn_, task, victims);
      victims = permitted(task, std::move(victims));
      const scoria_node_info ni = scoria::info(node);
      std::vector<double> room = future_idle(ni);
      if (victims.empty() || !fits(need, room, victims)) {
        log_line(SCORIA_LOG_V4, "victims on node <", scoria::view(ni.name),
                 "> would not make room for <", uid, ">");
        continue;
      }

      scoria::Statement node_stmt(ssn_);
      if (!node_stmt) return;
      for (const Victim& v : victims) {
        if (scoria::less_equal(need, room)) break;
        log_line(SCORIA_LOG_V3, "try to reclaim <", v.uid, "> for <", uid, "> on node <",
                 scoria::view(ni.name), ">");
        if (const scoria_code rc =
                api().statement_evict(node_stmt.get(), v.task, scoria::str("reclaim"));
            rc != SCORIA_OK) {
          log_line(SCORIA_LOG_ERROR, "evicting <", v.uid, "> failed: code ", static_cast<int>(rc));
          continue;
        }
        for (size_t d = 0; d < dims_; ++d) room[d] += v.resreq[d];
      }
      if (!scoria::less_equal(need, room)) continue;  // node_stmt undoes its evictions
      if (const scoria_code rc = api().statement_pipeline(node_stmt.get(), task, node);
          rc != SCORIA_OK) {
        log_line(SCORIA_LOG_ERROR, "pipelining <", uid, "> onto node <", scoria::view(ni.name),
                 "> failed: code ", static_cast<int>(rc));
        continue;
      }
      if (node_stmt.merge_into(job_stmt) != SCORIA_OK) {
        log_line(SCORIA_LOG_ERROR, "merging the reclaim on node <", scoria::view(ni.name),
                 "> failed");
        continue;
      }
      log_line(SCORIA_LOG_V3, "task <", uid, "> pipelined onto node <", scoria::view(ni.name),
               "> after reclaiming");
      return;
    }
  }

  // Running, preemptable tasks on `node` of jobs in other queues that are
  // reclaimable.
  std::vector<Victim> candidates_on(const scoria_node* node, std::string_view own_queue) const {
    std::vector<Victim> out;
    const size_t count = api().node_task_count(node);
    for (size_t k = 0; k < count; ++k) {
      const scoria_task* task = api().node_task_at(node, k);
      if (task == nullptr) continue;
      const scoria_task_info ti = scoria::info(task);
      if (ti.status != SCORIA_TASK_RUNNING || ti.preemptable == 0) continue;
      if (ti.job == nullptr || ti.resreq == nullptr) continue;
      const scoria_job_info vj = scoria::info(ti.job);
      if (vj.queue == nullptr || scoria::view(vj.queue_name) == own_queue) continue;
      if (scoria::info(vj.queue).reclaimable == 0) continue;
      out.push_back(Victim{task, ti.job, vj.queue, ti.resreq, scoria::view(ti.uid)});
    }
    return out;
  }

  // The candidates every deciding plugin lets `task` reclaim.
  std::vector<Victim> permitted(const scoria_task* task, std::vector<Victim> candidates) {
    if (candidates.empty()) return candidates;
    std::vector<const scoria_task*> tasks;
    tasks.reserve(candidates.size());
    for (const Victim& v : candidates) tasks.push_back(v.task);
    std::vector<uint8_t> selected(candidates.size(), 0);
    api().session_reclaimable(ssn_, task, tasks.data(), tasks.size(), selected.data());
    std::vector<Victim> out;
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (selected[i] != 0) out.push_back(candidates[i]);
    }
    return out;
  }

  // idle + releasing - pipelined: what the node will have once the tasks
  // leaving it are gone and the ones headed to it have arrived.
  std::vector<double> future_idle(const scoria_node_info& ni) const {
    std::vector<double> out(dims_, 0.0);
    if (ni.idle == nullptr || ni.releasing == nullptr || ni.pipelined == nullptr) return out;
    for (size_t d = 0; d < dims_; ++d) out[d] = ni.idle[d] + ni.releasing[d] - ni.pipelined[d];
    return out;
  }

  // need <= room + every victim's request (Volcano's ValidateVictims).
  bool fits(scoria::ResourceView need, std::span<const double> room,
            std::span<const Victim> victims) const {
    std::vector<double> total(room.begin(), room.end());
    for (const Victim& v : victims) {
      for (size_t d = 0; d < dims_; ++d) total[d] += v.resreq[d];
    }
    return scoria::less_equal(need, total);
  }

  // The session's nodes in the order reclaim tries them: a soft node
  // shard's first, then the others, each in session order (Volcano's
  // GetPredicatedNodeByShard, flattened).
  void order_nodes() {
    const size_t count = api().node_count(ssn_);
    nodes_.clear();
    nodes_.reserve(count);
    std::vector<const scoria_node*> outside;
    for (size_t n = 0; n < count; ++n) {
      const scoria_node* node = api().node_at(ssn_, n);
      (scoria::info(node).outside_soft_shard != 0 ? outside : nodes_).push_back(node);
    }
    nodes_.insert(nodes_.end(), outside.begin(), outside.end());
  }

  scoria_session* ssn_;
  const size_t dims_;
  std::vector<const scoria_node*> nodes_;
  std::vector<JobWork> jobs_;
  std::vector<QueueWork> queues_;
};

scoria_code on_execute(void* /*instance*/, scoria_session* ssn) {
  // An exception undoes the open statements on its way out to guarded.
  return scoria::guarded([ssn] { Reclaim(ssn).run(); });
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "reclaim",
    .kind = SCORIA_KIND_ACTION,
    .flags = SCORIA_FLAG_DECLARES_ARGS,
    .version = "1.0.0",
    .description = "Takes resources back for queues below their share from overused queues",
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
