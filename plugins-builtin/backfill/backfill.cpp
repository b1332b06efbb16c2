// The backfill action (Volcano's backfill): places best-effort tasks (pods
// that request no cpu, memory or extended resources) on any node that passes
// the predicates, after allocate has placed everything that asks for
// resources. Only the pod count can run out, so no resource ordering matters:
// the best scored node among those that pass wins.
//
// Tasks go in queue order, then job order, then task order, as Volcano
// flattens them before placing any. A job is bound once its gang is ready;
// until then its tasks are placed but not bound, and undone at the end.
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>
#include <vector>

namespace {

using scoria::api;
using scoria::log_line;

// The action's `arguments` (Volcano's per-action configurations): the one
// Volcano's backfill reads, accepted so that Volcano configs load.
constexpr scoria_arg_spec kArgs[] = {
    scoria::declare_arg(SCORIA_ARG_BOOL, "predicateErrorCacheEnable", "true",
                        "accepted for Volcano configs; Scoria's backfill keeps no predicate error "
                        "cache: no effect"),
};

// A job with best-effort tasks to place, in task order.
struct JobWork {
  const scoria_job* job;
  const scoria_queue* queue;
  std::string_view uid;
  std::vector<const scoria_task*> tasks;
};

class Backfill {
 public:
  explicit Backfill(scoria_session* ssn)
      : ssn_(ssn), fit_(api().node_count(ssn)), scores_(api().node_count(ssn)) {}

  void run() {
    collect();
    for (size_t j : ordered_jobs()) place_job(jobs_[j]);
  }

 private:
  // Jobs past Pending, valid, in a known queue, with Pending best-effort
  // tasks that no scheduling gate holds back.
  void collect() {
    for (const scoria_job* job : scoria::jobs_where(ssn_, SCORIA_JOBS_WITH_PENDING_TASKS)) {
      const scoria_job_info ji = scoria::info(job);
      if (ji.phase == SCORIA_PHASE_PENDING || ji.queue == nullptr) continue;
      if (ji.status_count[0] == 0) continue;  // no Pending task: nothing to place
      JobWork jw{job, ji.queue, scoria::view(ji.uid), best_effort_tasks(job)};
      if (jw.tasks.empty()) continue;
      scoria_str message{};
      if (api().session_job_valid(ssn_, job, &message) == 0) {
        log_line(SCORIA_LOG_V4, "job <", jw.uid, "> skips backfill: ", scoria::view(message));
        continue;
      }
      jobs_.push_back(std::move(jw));
    }
  }

  std::vector<const scoria_task*> best_effort_tasks(const scoria_job* job) const {
    std::vector<const scoria_task*> out;
    const size_t count = api().job_task_count(job);
    for (size_t k = 0; k < count; ++k) {
      const scoria_task* task = api().job_task_at(job, k);
      if (task == nullptr) continue;
      const scoria_task_info ti = scoria::info(task);
      if (ti.status != SCORIA_TASK_PENDING || ti.best_effort == 0) continue;
      if (ti.scheduling_gated != 0) continue;
      out.push_back(task);
    }
    // Heap sort: bounded even if a plugin's order is inconsistent.
    const auto less = [this](const scoria_task* l, const scoria_task* r) {
      return api().session_task_less(ssn_, l, r) != 0;
    };
    std::make_heap(out.begin(), out.end(), less);
    std::sort_heap(out.begin(), out.end(), less);
    return out;
  }

  // Positions in jobs_: by queue order, then job order within a queue.
  std::vector<size_t> ordered_jobs() const {
    std::vector<size_t> order(jobs_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    const auto first = [this](size_t a, size_t b) {
      const JobWork& l = jobs_[a];
      const JobWork& r = jobs_[b];
      if (l.queue != r.queue) {
        if (api().session_queue_less(ssn_, l.queue, r.queue) != 0) return true;
        if (api().session_queue_less(ssn_, r.queue, l.queue) != 0) return false;
        return scoria::info(l.queue).index < scoria::info(r.queue).index;
      }
      return api().session_job_less(ssn_, l.job, r.job) != 0;
    };
    std::make_heap(order.begin(), order.end(), first);
    std::sort_heap(order.begin(), order.end(), first);
    return order;
  }

  void place_job(const JobWork& jw) {
    scoria::Statement stmt(ssn_);
    if (!stmt) {
      log_line(SCORIA_LOG_ERROR, "cannot open a statement for job <", jw.uid, ">");
      return;
    }
    for (const scoria_task* task : jw.tasks) {
      const scoria_node* node = best_node(task);
      const std::string_view uid = scoria::view(scoria::info(task).uid);
      if (node == nullptr) {
        log_line(SCORIA_LOG_V3, "task <", uid, "> fits no node");
        continue;
      }
      if (const scoria_code rc = api().statement_allocate(stmt.get(), task, node);
          rc != SCORIA_OK) {
        log_line(SCORIA_LOG_ERROR, "allocating <", uid, "> failed: code ", static_cast<int>(rc));
        continue;
      }
      log_line(SCORIA_LOG_V3, "task <", uid, "> placed on node <",
               scoria::view(scoria::info(node).name), ">");
    }
    if (api().session_job_ready(ssn_, jw.job) != 0) {
      if (const scoria_code rc = stmt.commit(); rc != SCORIA_OK) {
        log_line(SCORIA_LOG_ERROR, "commit for job <", jw.uid, "> failed: code ",
                 static_cast<int>(rc));
      }
      return;
    }
    if (stmt.size() > 0) {
      log_line(SCORIA_LOG_V3, "job <", jw.uid, "> is not ready; placements undone");
    }
  }

  // The best scored node among those passing every predicate (the pod count
  // included), or NULL; the failures become the task's fit error.
  const scoria_node* best_node(const scoria_task* task) {
    size_t count = api().session_predicate_nodes(ssn_, task, nullptr, 0,
                                                 /*check_resources=*/1, fit_.data());
    count = std::min(count, fit_.size());
    if (count == 0) return nullptr;
    if (count == 1) return fit_[0];
    if (api().session_node_scores(ssn_, task, fit_.data(), count, scores_.data()) != SCORIA_OK) {
      std::fill(scores_.begin(), scores_.begin() + static_cast<std::ptrdiff_t>(count), 0.0);
    }
    const int64_t best = api().session_best_node(ssn_, task, fit_.data(), scores_.data(), count);
    if (best < 0 || static_cast<size_t>(best) >= count) return nullptr;
    return fit_[static_cast<size_t>(best)];
  }

  scoria_session* ssn_;
  std::vector<JobWork> jobs_;
  std::vector<const scoria_node*> fit_;  // sized to node_count, reused per task
  std::vector<double> scores_;
};

scoria_code on_execute(void* /*instance*/, scoria_session* ssn) {
  return scoria::guarded([ssn] { Backfill(ssn).run(); });
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "backfill",
    .kind = SCORIA_KIND_ACTION,
    .flags = SCORIA_FLAG_DECLARES_ARGS,
    .version = "1.0.0",
    .description = "Places best-effort tasks on any node that passes the predicates",
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
