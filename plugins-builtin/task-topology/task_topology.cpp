// The task-topology plugin (Volcano's task-topology): a job names, in its
// PodGroup's annotations, which task roles (volcano.sh/task-spec) should
// share nodes (volcano.sh/task-topology-affinity: "ps,worker;chief"), which
// should not (volcano.sh/task-topology-anti-affinity) and which go first
// (volcano.sh/task-topology-task-order: "ps,worker"). Groups are separated
// by ';', roles within a group by ','; a group of one role is about tasks of
// that role with each other.
//
// At session open each such job with pending tasks has its tasks sorted into
// buckets (job_topology.h): tasks that should land together. Then
//   task order  tasks in a bucket go before tasks in none, larger buckets
//               first, older buckets first, and within a bucket by the task
//               order annotation, then the kind of topology of the role;
//   node order  a node scores the bucket's tasks already on it plus those
//               still to place that would fit it with the task, less the
//               tasks this session placed there that the task's role avoids,
//               times task-topology.weight, scaled to 0-100 by the largest
//               bucket;
//   allocate / deallocate events keep the buckets current.
// A job without the annotations is not looked at again; with no such job in
// the session the plugin registers nothing. Malformed annotations (a role no
// task has, a role twice in one group) are logged once on the PodGroup and
// the job is scheduled as if it had none, as Volcano does.
#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include "annotations.h"
#include "job_topology.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace {

using scoria::api;
using scoria::log_line;
namespace tt = scoria_task_topology;

constexpr std::string_view kTaskSpecKey = "volcano.sh/task-spec";
constexpr double kMaxNodeScore = 100;

constexpr scoria_arg_spec kArgs[] = {
    scoria::with_min(scoria::declare_arg(SCORIA_ARG_INT, "task-topology.weight", "1",
                                         "weight of the task-topology node score (0-100 before "
                                         "it); 0 turns the node score off"),
                     0),
};

struct TaskRef {
  uint32_t job = 0;   // position in Instance::jobs
  uint32_t slot = 0;  // the task's slot in that job
};

struct Instance {
  explicit Instance(const scoria_args* args) {
    if (args != nullptr) weight = scoria::arg_int(args, "task-topology.weight", 1);
  }

  const TaskRef* find(const scoria_task* task) const {
    const auto it = tasks.find(scoria::info(task).index);
    return it == tasks.end() ? nullptr : &it->second;
  }

  int64_t weight = 1;
  // Per session.
  const scoria_session* ssn = nullptr;
  size_t dims = 0;
  std::vector<tt::JobTopology> jobs;
  std::unordered_map<uint32_t, TaskRef> tasks;  // task index -> its job's topology
  // Malformed annotations already logged, so each is logged once, not every
  // session. Bounded: cleared when it grows large.
  std::set<std::string> reported;
};

std::optional<std::string_view> job_annotation(const scoria_job* job, std::string_view key) {
  scoria_str value{};
  if (api().job_annotation(job, scoria::str(key), &value) != SCORIA_OK) return std::nullopt;
  return scoria::view(value);
}

void report_once(Instance& self, std::string_view uid, const std::string& error) {
  if (self.reported.size() > 10000) self.reported.clear();
  if (self.reported.insert(std::string(uid) + "\n" + error).second)
    log_line(SCORIA_LOG_WARNING, "PodGroup ", uid, ": ", error,
             "; the job is scheduled without task topology");
}

// Reads one job's topology and builds its buckets; false when it has none.
bool add_job(Instance& self, const scoria_job* job) {
  const scoria_job_info ji = scoria::info(job);
  // As Volcano: only a job with pending tasks needs buckets.
  if (ji.status_count[0] == 0) return false;
  const tt::Annotations annotations{job_annotation(job, tt::kAffinityKey),
                                    job_annotation(job, tt::kAntiAffinityKey),
                                    job_annotation(job, tt::kTaskOrderKey)};
  if (!annotations.affinity && !annotations.anti_affinity && !annotations.task_order) return false;

  const size_t count = api().job_task_count(job);
  std::vector<const scoria_task*> handles(count);
  std::vector<scoria_task_info> infos(count);
  std::vector<std::string_view> roles(count);
  for (size_t i = 0; i < count; ++i) {
    handles[i] = api().job_task_at(job, i);
    infos[i] = scoria::info(handles[i]);
    roles[i] = scoria::view(infos[i].role);  // annotation, else label, as Volcano's TaskRole
  }
  tt::ReadResult read = tt::read_topology(annotations, roles);
  if (!read.error.empty()) {
    report_once(self, scoria::view(ji.uid), read.error);
    return false;
  }

  std::vector<tt::TaskEntry> entries(count);
  for (size_t i = 0; i < count; ++i) {
    const scoria_task_info& ti = infos[i];
    tt::TaskEntry& e = entries[i];
    e.name = scoria::view(ti.name);
    // Volcano's buckets read the annotation alone (getTaskName), unlike the
    // role the annotation check uses.
    scoria_str spec{};
    if (api().task_annotation(handles[i], scoria::str(kTaskSpecKey), &spec) == SCORIA_OK)
      e.task_spec = scoria::view(spec);
    e.node_name = scoria::view(ti.node_name);
    if (!e.node_name.empty())
      if (const scoria_node* node = api().node_find(self.ssn, ti.node_name))
        e.node = scoria::info(node).index;
    if (ti.resreq != nullptr) e.resreq = std::span<const double>(ti.resreq, self.dims);
  }
  tt::JobTopology topology(*read.topology, self.dims);
  topology.build(entries);
  const auto at = static_cast<uint32_t>(self.jobs.size());
  for (size_t i = 0; i < count; ++i)
    self.tasks[infos[i].index] = TaskRef{at, static_cast<uint32_t>(i)};
  self.jobs.push_back(std::move(topology));
  log_line(SCORIA_LOG_V4, "job <", scoria::view(ji.uid), "> has a task topology; largest bucket ",
           self.jobs.back().bucket_max_size(), " tasks");
  return true;
}

// Volcano's TaskOrderFn (see the file comment); 0 when either task's job has
// no topology.
int on_task_order(void* user_data, const scoria_task* l, const scoria_task* r) {
  const auto& self = *static_cast<const Instance*>(user_data);
  const TaskRef* lt = self.find(l);
  const TaskRef* rt = self.find(r);
  if (lt == nullptr || rt == nullptr) return 0;
  const tt::JobTopology& lj = self.jobs[lt->job];
  const tt::JobTopology& rj = self.jobs[rt->job];
  const int lb = lj.bucket_of(lt->slot), rb = rj.bucket_of(rt->slot);
  const bool lin = lb != tt::JobTopology::kOutOfBucket, rin = rb != tt::JobTopology::kOutOfBucket;
  if (lin != rin) return lin ? -1 : 1;
  // Ordering jobs is not this plugin's business, nor tasks out of buckets.
  if (lt->job != rt->job || !lin) return 0;
  const size_t ln = lj.pending_in(lb), rn = lj.pending_in(rb);
  if (ln != rn) return ln > rn ? -1 : 1;
  if (lb == rb) return -lj.affinity_order(lt->slot, rt->slot);
  return lb < rb ? -1 : 1;
}

scoria_code on_node_order_batch(void* user_data, const scoria_task* task,
                                const scoria_node* const* nodes, size_t count, double* scores) {
  const auto& self = *static_cast<const Instance*>(user_data);
  const scoria_task_info ti = scoria::info(task);
  const auto it = self.tasks.find(ti.index);
  if (it == self.tasks.end()) return SCORIA_SKIP;  // its job has no topology
  const tt::JobTopology& job = self.jobs[it->second.job];
  const std::span<const double> req = ti.resreq != nullptr
                                          ? std::span<const double>(ti.resreq, self.dims)
                                          : std::span<const double>{};
  const tt::JobTopology::Scorer scorer = job.scorer(it->second.slot, req);
  if (!scorer.in_bucket()) {
    std::fill_n(scores, count, 0.0);
    return SCORIA_OK;
  }
  const double scale = job.bucket_max_size() != 0 ? kMaxNodeScore / job.bucket_max_size() : 1.0;
  const double factor = static_cast<double>(self.weight) * scale;
  for (size_t i = 0; i < count; ++i) {
    const scoria_node_info ni = scoria::info(nodes[i]);
    const int score = scorer.score(ni.index, std::span<const double>(ni.idle, self.dims),
                                   std::span<const double>(ni.releasing, self.dims));
    scores[i] = score * factor;
  }
  return SCORIA_OK;
}

// The node a task was just placed on, as the session indexes it.
uint32_t node_of(const Instance& self, const scoria_task_info& ti) {
  if (ti.node_name.len == 0) return tt::Bucket::kNoNode;
  const scoria_node* node = api().node_find(self.ssn, ti.node_name);
  return node != nullptr ? scoria::info(node).index : tt::Bucket::kNoNode;
}

void on_allocate(void* user_data, const scoria_task* task) {
  auto& self = *static_cast<Instance*>(user_data);
  const scoria_task_info ti = scoria::info(task);
  const auto it = self.tasks.find(ti.index);
  if (it == self.tasks.end()) return;
  self.jobs[it->second.job].placed(it->second.slot, node_of(self, ti));
}

void on_deallocate(void* user_data, const scoria_task* task) {
  auto& self = *static_cast<Instance*>(user_data);
  const TaskRef* ref = self.find(task);
  if (ref != nullptr) self.jobs[ref->job].unplaced(ref->slot);
}

scoria_code on_session_open(void* instance, scoria_session* ssn, scoria_hooks* hooks) {
  if (hooks == nullptr || hooks->struct_size < sizeof(scoria_hooks)) return SCORIA_INVALID_ARGUMENT;
  auto& self = *static_cast<Instance*>(instance);
  return scoria::guarded([&] {
    self.jobs.clear();
    self.tasks.clear();
    self.ssn = ssn;
    self.dims = scoria::dims(ssn);
    const size_t n = api().job_count(ssn);
    for (size_t i = 0; i < n; ++i) add_job(self, api().job_at(ssn, i));
    // Nothing to decide without a job that has a topology.
    if (self.jobs.empty()) return;
    hooks->user_data = &self;
    hooks->on_task_order = on_task_order;
    if (self.weight != 0) hooks->on_node_order_batch = on_node_order_batch;
    hooks->on_allocate = on_allocate;
    hooks->on_deallocate = on_deallocate;
  });
}

void on_session_close(void* instance, scoria_session* /*ssn*/) {
  auto& self = *static_cast<Instance*>(instance);
  self.jobs.clear();
  self.tasks.clear();
  self.ssn = nullptr;
}

const scoria_descriptor kDescriptor = {
    .struct_size = sizeof(scoria_descriptor),
    .abi_major = SCORIA_ABI_VERSION_MAJOR,
    .abi_minor = SCORIA_ABI_VERSION_MINOR,
    .name = "task-topology",
    .kind = SCORIA_KIND_PLUGIN,
    .flags = SCORIA_FLAG_DECLARES_ARGS,
    .version = "1.0.0",
    .description =
        "Places a job's tasks by role affinity, anti-affinity and order from its "
        "PodGroup annotations",
    .on_create = scoria::create_instance<Instance>,
    .on_destroy = scoria::destroy_instance<Instance>,
    .on_session_open = on_session_open,
    .on_session_close = on_session_close,
    .on_execute = nullptr,
    .args = kArgs,
    .arg_count = std::size(kArgs),
};

}  // namespace

SCORIA_DEFINE_PLUGIN(kDescriptor)
