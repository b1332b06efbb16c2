// The drf plugin (Volcano's drf): dominant resource fairness between jobs.
// A job's share is the largest, over the cluster's resources, of what it
// holds divided by the cluster's total. The job with the lower share goes
// first; a preemptor may take a task from a job whose share, without that
// task, would still be at least the preemptor's share with its new task.
//
// With Volcano's enableHierarchy, queues are also ordered by hierarchical
// DRF over their volcano.sh/hierarchy annotations (see hierarchy.h), and a
// task may be reclaimed from a queue that would still be ahead of the
// reclaimer's after losing it.
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "hierarchy.h"

namespace {

using scoria::api;
using scoria::log_line;

// Volcano's tolerance when comparing shares for preemption.
constexpr double kShareDelta = 0.000001;

constexpr std::string_view kHierarchyAnnotation = "volcano.sh/hierarchy";
constexpr std::string_view kWeightsAnnotation = "volcano.sh/hierarchy-weights";

struct Drf {
  explicit Drf(const scoria_args* args)
      : hierarchical(args != nullptr && scoria::arg_bool(args, "enableHierarchy", false)) {}

  bool hierarchical;
  // Per session. What a job holds is, as Volcano's drf counts it, the
  // job's allocated resources (the host's sum) plus what its pipelined
  // tasks reserve: every allocate and deallocate event drf would add up
  // is one of those two. So no job is read at open: a share is worked out
  // the first time it is asked for, and forgotten when an event changes it
  // (arrays kept across sessions: opening allocates nothing per job).
  std::vector<double> total;
  size_t dims = 0;
  std::vector<double> shares;  // by job index; NaN: not worked out yet
  std::vector<double> scratch;
  std::optional<drf::HierarchyTree> tree;
  std::vector<std::string_view> queue_paths;  // by queue index

  double share_of(std::span<const double> held) const {
    double share = 0;
    for (size_t d = 0; d < total.size(); ++d) {
      if (d == SCORIA_DIM_PODS || total[d] <= 0) continue;
      share = std::max(share, held[d] / total[d]);
    }
    return share;
  }
  /// The job's index in the accounts; nullopt for a job this session
  /// does not know.
  std::optional<uint32_t> of(const scoria_job* job) const {
    if (job == nullptr) return std::nullopt;
    const uint32_t index = scoria::info(job).index;
    if (index >= shares.size()) return std::nullopt;
    return index;
  }
  /// What `job` holds now, into `out` (dims values).
  void held(const scoria_job* job, std::vector<double>& out) const {
    const scoria_job_info ji = scoria::info(job);
    out.assign(ji.allocated, ji.allocated + dims);
    if (ji.status_count[std::countr_zero(unsigned{SCORIA_TASK_PIPELINED})] == 0) return;
    const size_t tasks = api().job_task_count(job);
    for (size_t t = 0; t < tasks; ++t) {
      const scoria_task_info ti = scoria::info(api().job_task_at(job, t));
      if (ti.status != SCORIA_TASK_PIPELINED) continue;
      for (size_t d = 0; d < dims; ++d) out[d] += ti.resreq[d];
    }
  }
  double share(uint32_t index, const scoria_job* job) {
    double& s = shares[index];
    if (std::isnan(s)) {
      held(job, scratch);
      s = share_of(scratch);
    }
    return s;
  }
};

Drf& self_of(void* user_data) { return *static_cast<Drf*>(user_data); }

void build_tree(Drf& self, const scoria_session* ssn) {
  const size_t queues = api().queue_count(ssn);
  self.queue_paths.assign(queues, {});
  std::vector<std::string_view> weights(queues);
  for (size_t q = 0; q < queues; ++q) {
    const scoria_queue* queue = api().queue_at(ssn, q);
    scoria_str v{};
    if (api().queue_annotation(queue, scoria::str(kHierarchyAnnotation), &v) == SCORIA_OK)
      self.queue_paths[q] = scoria::view(v);
    if (api().queue_annotation(queue, scoria::str(kWeightsAnnotation), &v) == SCORIA_OK)
      weights[q] = scoria::view(v);
  }
  self.tree.emplace(self.total);
  const size_t dims = self.total.size();
  const size_t jobs = api().job_count(ssn);
  for (size_t j = 0; j < jobs; ++j) {
    const scoria_job_info ji = scoria::info(api().job_at(ssn, j));
    if (ji.queue == nullptr) continue;
    const uint32_t q = scoria::info(ji.queue).index;
    self.tree->add_job(ji.index, self.queue_paths[q], weights[q], {ji.allocated, dims},
                       {ji.total_request, dims});
  }
  self.tree->update();
}

int job_order(void* user_data, const scoria_job* l, const scoria_job* r) {
  Drf& self = self_of(user_data);
  const std::optional<uint32_t> lj = self.of(l);
  const std::optional<uint32_t> rj = self.of(r);
  if (!lj || !rj) return 0;
  const double ls = self.share(*lj, l);
  const double rs = self.share(*rj, r);
  if (ls == rs) return 0;
  return ls < rs ? -1 : 1;
}

scoria_vote preemptable(void* user_data, const scoria_task* preemptor,
                        const scoria_task* const* candidates, size_t count, uint8_t* selected) {
  Drf& self = self_of(user_data);
  const scoria_task_info pi = scoria::info(preemptor);
  const std::optional<uint32_t> mine = self.of(pi.job);
  if (!mine) return SCORIA_VOTE_PERMIT;
  std::vector<double> grown;
  self.held(pi.job, grown);
  for (size_t d = 0; d < grown.size(); ++d) grown[d] += pi.resreq[d];
  const double ls = self.share_of(grown);

  // Each victim job's holdings shrink as its tasks are chosen, in order.
  std::vector<std::pair<const scoria_job*, std::vector<double>>> left;
  for (size_t i = 0; i < count; ++i) {
    const scoria_task_info ti = scoria::info(candidates[i]);
    const std::optional<uint32_t> theirs = self.of(ti.job);
    if (!theirs) continue;
    auto it =
        std::find_if(left.begin(), left.end(), [&](const auto& l) { return l.first == ti.job; });
    if (it == left.end()) {
      it = left.insert(left.end(), {ti.job, {}});
      self.held(ti.job, it->second);
    }
    for (size_t d = 0; d < it->second.size(); ++d) it->second[d] -= ti.resreq[d];
    const double rs = self.share_of(it->second);
    if (ls < rs || std::fabs(ls - rs) <= kShareDelta) selected[i] = 1;
  }
  return SCORIA_VOTE_PERMIT;
}

void change(void* user_data, const scoria_task* task, double sign) {
  Drf& self = self_of(user_data);
  const scoria_task_info ti = scoria::info(task);
  const std::optional<uint32_t> job = self.of(ti.job);
  if (!job) return;
  self.shares[*job] = std::numeric_limits<double>::quiet_NaN();
  if (self.tree) self.tree->change(*job, {ti.resreq, self.total.size()}, sign);
}

std::string_view path_of(const Drf& self, const scoria_queue* queue) {
  if (queue == nullptr) return {};
  const uint32_t q = scoria::info(queue).index;
  return q < self.queue_paths.size() ? self.queue_paths[q] : std::string_view{};
}

int queue_order(void* user_data, const scoria_queue* l, const scoria_queue* r) {
  const Drf& self = self_of(user_data);
  const double c = self.tree->compare(path_of(self, l), path_of(self, r));
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

// A victim if, with the reclaimer's task placed and the victim's taken away,
// the reclaimer's queue still comes first.
scoria_vote reclaimable(void* user_data, const scoria_task* reclaimer,
                        const scoria_task* const* candidates, size_t count, uint8_t* selected) {
  const Drf& self = self_of(user_data);
  const scoria_task_info li = scoria::info(reclaimer);
  if (li.job == nullptr) return SCORIA_VOTE_PERMIT;
  const scoria_job_info lj = scoria::info(li.job);
  drf::HierarchyTree with_reclaimer = *self.tree;
  with_reclaimer.change(lj.index, {li.resreq, self.total.size()}, 1);
  for (size_t i = 0; i < count; ++i) {
    const scoria_task_info ri = scoria::info(candidates[i]);
    if (ri.job == nullptr) continue;
    const scoria_job_info rj = scoria::info(ri.job);
    drf::HierarchyTree trial = with_reclaimer;
    trial.change(rj.index, {ri.resreq, self.total.size()}, -1);
    if (trial.compare(path_of(self, lj.queue), path_of(self, rj.queue)) < 0) selected[i] = 1;
  }
  return SCORIA_VOTE_PERMIT;
}
void on_allocate(void* user_data, const scoria_task* task) { change(user_data, task, 1); }
void on_deallocate(void* user_data, const scoria_task* task) { change(user_data, task, -1); }

scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  return scoria::guarded([&] {
    Drf& self = *static_cast<Drf*>(instance);
    const size_t dims = scoria::dims(ssn);
    self.dims = dims;
    self.total = scoria::node_totals(ssn, true, false).allocatable;
    self.shares.assign(api().job_count(ssn), std::numeric_limits<double>::quiet_NaN());
    self.tree.reset();
    if (self.hierarchical) {
      if (SCORIA_HOST_HAS(&api(), queue_annotation)) {
        build_tree(self, ssn);
      } else {
        log_line(SCORIA_LOG_WARNING,
                 "enableHierarchy needs a host with queue annotations (ABI 1.1)");
      }
    }
    hooks->user_data = &self;
    hooks->on_job_order = job_order;
    if (self.tree) {
      hooks->on_queue_order = queue_order;
      hooks->on_reclaimable = reclaimable;
    }
    hooks->on_preemptable = preemptable;
    hooks->on_allocate = on_allocate;
    hooks->on_deallocate = on_deallocate;
  });
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "drf",
    .kind = SCORIA_KIND_PLUGIN,
    // Volcano's drf takes no arguments: enableHierarchy is a plugin option
    // beside them, which the host passes to on_create as an argument.
    .flags = SCORIA_FLAG_DECLARES_ARGS,
    .version = "1.0.0",
    .description = "Dominant resource fairness: job order by dominant share, preemptable",
    .on_create = scoria::create_instance<Drf>,
    .on_destroy = scoria::destroy_instance<Drf>,
    .on_session_open = on_session_open,
    .on_session_close = nullptr,
    .on_execute = nullptr,
    .args = nullptr,
    .arg_count = 0,
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
