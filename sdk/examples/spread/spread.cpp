// spread: an action. Places each pending task on the fitting node with the
// most of `resource` idle, job by job, gang by gang: a job's placements go
// into one statement, committed when the job is ready (gang's minMember met)
// and discarded otherwise, so a job never runs short of its gang.
#include <scoria/scoria.hpp>

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <string>
#include <vector>

namespace {

using scoria::api;

constexpr const char* kResources[] = {"cpu", "memory", "pods", nullptr};

constexpr scoria_arg_spec kArgs[] = {
    scoria::with_allowed(scoria::declare_arg(SCORIA_ARG_STRING, "resource", "cpu",
                                             "the resource whose idle amount decides"),
                         kResources),
};

// cpu, memory and pods are dimensions 0, 1 and 2 of every session.
struct Spread {
  explicit Spread(const scoria_args* args) {
    const std::string resource = scoria::arg_string(args, "resource").value_or("cpu");
    if (resource == "memory") dim = SCORIA_DIM_MEMORY;
    if (resource == "pods") dim = SCORIA_DIM_PODS;
  }
  size_t dim = SCORIA_DIM_CPU;
};

// Sorts by the session's order (every plugin's, tier by tier). A heap sort:
// bounded even if a plugin's order is inconsistent, which std::sort is not.
template <class T, class Less>
void sort_by(std::vector<T>& v, Less less) {
  std::make_heap(v.begin(), v.end(), less);
  std::sort_heap(v.begin(), v.end(), less);
}

// The fitting node (every predicate passes, the task fits in what is idle)
// with the most of dimension `dim` idle; nullptr if none fits.
const scoria_node* pick(scoria_session* ssn, const scoria_task* task, size_t dim,
                        std::vector<const scoria_node*>& fit) {
  const size_t n = api().session_predicate_nodes(ssn, task, nullptr, 0, 1, fit.data());
  const scoria::ResourceView need(scoria::info(task).init_resreq, scoria::dims(ssn));
  const scoria_node* best = nullptr;
  double most = -1;
  for (size_t i = 0; i < n; ++i) {
    const scoria_node_info node = scoria::info(fit[i]);
    if (!scoria::less_equal(need, scoria::ResourceView(node.idle, need.size()))) continue;
    if (node.idle[dim] > most) {
      best = fit[i];
      most = node.idle[dim];
    }
  }
  return best;
}

void place(scoria_session* ssn, const scoria_job* job, size_t dim,
           std::vector<const scoria_node*>& fit) {
  std::vector<const scoria_task*> tasks;
  for (size_t i = 0; i < api().job_task_count(job); ++i) {
    const scoria_task* task = api().job_task_at(job, i);
    const scoria_task_info info = scoria::info(task);
    if (info.status == SCORIA_TASK_PENDING && !info.scheduling_gated) tasks.push_back(task);
  }
  sort_by(tasks, [ssn](auto* l, auto* r) { return api().session_task_less(ssn, l, r) != 0; });
  scoria::Statement stmt(ssn);
  if (!stmt) return;
  for (const scoria_task* task : tasks) {
    const scoria_node* node = pick(ssn, task, dim, fit);
    if (node == nullptr || api().statement_allocate(stmt.get(), task, node) != SCORIA_OK) break;
  }
  if (api().session_job_ready(ssn, job) != 0) stmt.commit();  // else ~Statement discards
}

scoria_code on_execute(void* self, scoria_session* ssn) {
  return scoria::guarded([&] {
    const size_t dim = static_cast<const Spread*>(self)->dim;
    std::vector<const scoria_job*> jobs;
    for (size_t i = 0; i < api().job_count(ssn); ++i) jobs.push_back(api().job_at(ssn, i));
    sort_by(jobs, [ssn](auto* l, auto* r) { return api().session_job_less(ssn, l, r) != 0; });
    std::vector<const scoria_node*> fit(api().node_count(ssn));
    for (const scoria_job* job : jobs) {
      const scoria_job_info info = scoria::info(job);
      scoria_str why{};
      if (info.phase == SCORIA_PHASE_PENDING) continue;  // enqueue has not admitted it
      if (api().session_job_valid(ssn, job, &why) == 0) continue;
      if (info.queue != nullptr && api().session_overused(ssn, info.queue) != 0) continue;
      place(ssn, job, dim, fit);
    }
  });
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "spread",
    .kind = SCORIA_KIND_ACTION,
    .flags = SCORIA_FLAG_DECLARES_ARGS,
    .version = "1.0.0",
    .description = "Places pending tasks on the node with the most idle, gang by gang",
    .on_create = scoria::create_instance<Spread>,
    .on_destroy = scoria::destroy_instance<Spread>,
    .on_session_open = nullptr,
    .on_session_close = nullptr,
    .on_execute = on_execute,
    .args = kArgs,
    .arg_count = std::size(kArgs),
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
