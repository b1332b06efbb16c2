#include "request_bodies.h"

#include <scoria/scoria.hpp>

#include <ctime>
#include <set>

namespace scoria_extender {

namespace {

using scoria::api;
using scoria::str;
using scoria::view;

constexpr std::string_view kRevocableZone = "volcano.sh/revocable-zone";

// metav1.Time: RFC 3339 in UTC to the second; null when unknown.
void timestamp(JsonWriter& w, int64_t ms) {
  if (ms <= 0) {
    w.null();
    return;
  }
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  w.string(std::string_view(buf, n));
}

// A quantity as Kubernetes writes it: whole units, else milli-units.
void quantity(JsonWriter& w, double milli_units) {
  const auto m = static_cast<int64_t>(std::llround(milli_units));
  w.string(m % 1000 == 0 ? std::to_string(m / 1000) : std::to_string(m) + "m");
}

std::string_view phase_name(uint32_t phase) {
  switch (phase) {
    case SCORIA_PHASE_PENDING:
      return "Pending";
    case SCORIA_PHASE_INQUEUE:
      return "Inqueue";
    case SCORIA_PHASE_RUNNING:
      return "Running";
    case SCORIA_PHASE_COMPLETED:
      return "Completed";
    default:
      return "Unknown";
  }
}

std::string_view effect_name(uint32_t effect) {
  switch (effect) {
    case SCORIA_TAINT_NO_SCHEDULE:
      return "NoSchedule";
    case SCORIA_TAINT_PREFER_NO_SCHEDULE:
      return "PreferNoSchedule";
    default:
      return "NoExecute";
  }
}

std::string_view node_label(const scoria_node* n, std::string_view key) {
  scoria_str v{};
  return api().node_label(n, str(key), &v) == SCORIA_OK ? view(v) : std::string_view{};
}

// A pod's revocable zone: its annotation, else its label (Volcano's
// GetPodRevocableZone).
std::string_view task_revocable_zone(const scoria_task* t) {
  scoria_str v{};
  if (api().task_annotation(t, str(kRevocableZone), &v) == SCORIA_OK) return view(v);
  if (api().task_label(t, str(kRevocableZone), &v) == SCORIA_OK) return view(v);
  return {};
}

}  // namespace

RequestBodies::RequestBodies(const scoria_session* ssn) : ssn_(ssn) {
  const size_t n = api().resource_dim_count(ssn);
  dims_.reserve(n);
  for (size_t i = 0; i < n; ++i) dims_.emplace_back(view(api().resource_dim_name(ssn, i)));
}

void RequestBodies::resource(JsonWriter& w, const double* v, bool count_pods) const {
  w.begin_object();
  w.key("MilliCPU").number(v != nullptr ? v[SCORIA_DIM_CPU] : 0);
  w.key("Memory").number(v != nullptr ? v[SCORIA_DIM_MEMORY] : 0);
  w.key("ScalarResources");
  bool any = false;
  for (size_t i = SCORIA_DIM_PODS + 1; v != nullptr && i < dims_.size(); ++i) {
    if (v[i] == 0) continue;
    if (!any) w.begin_object();
    any = true;
    w.key(dims_[i]).number(v[i]);
  }
  any ? w.end_object() : w.null();
  // Volcano counts pods only where a ResourceList names them (a node's
  // allocatable), never in what a pod requests.
  w.key("MaxTaskNum").integer(count_pods && v != nullptr ? std::llround(v[SCORIA_DIM_PODS]) : 0);
  w.end_object();
}

void RequestBodies::resource_list(JsonWriter& w, const double* v) const {
  w.begin_object();
  for (size_t i = 0; v != nullptr && i < dims_.size(); ++i) {
    if (v[i] == 0 && i != SCORIA_DIM_CPU && i != SCORIA_DIM_MEMORY) continue;
    w.key(dims_[i]);
    if (i == SCORIA_DIM_CPU)
      quantity(w, v[i]);
    else if (i == SCORIA_DIM_MEMORY || i == SCORIA_DIM_PODS)
      w.string(std::to_string(std::llround(v[i])));
    else
      quantity(w, v[i]);
  }
  w.end_object();
}

void RequestBodies::task(JsonWriter& w, const scoria_task* t) const {
  const scoria_task_info ti = scoria::info(t);
  w.begin_object();
  w.key("UID").string(view(ti.uid));
  w.key("Job").string(ti.job != nullptr ? view(scoria::info(ti.job).uid) : std::string_view{});
  w.key("Name").string(view(ti.name));
  w.key("Namespace").string(view(ti.namespace_));
  w.key("TaskRole").string(view(ti.role));
  w.key("Resreq");
  resource(w, ti.resreq, false);
  w.key("InitResreq");
  resource(w, ti.init_resreq, false);
  // TransactionContext, embedded in Go and so flattened here.
  w.key("NodeName").string(view(ti.node_name));
  w.key("EvictionOccurred").boolean(false);
  w.key("Status").integer(ti.status);  // Volcano's TaskStatus bits are the ABI's
  w.key("Priority").integer(ti.priority);
  w.key("Preemptable").boolean(ti.preemptable != 0);
  w.key("BestEffort").boolean(ti.best_effort != 0);
  w.key("SchGated").boolean(ti.scheduling_gated != 0);
  w.key("RevocableZone").string(task_revocable_zone(t));
  w.key("Pod").raw(view(api().task_object_json(t)));
  w.end_object();
}

void RequestBodies::node(JsonWriter& w, const scoria_node* n) const {
  const scoria_node_info ni = scoria::info(n);
  w.begin_object();
  w.key("Name").string(view(ni.name));
  w.key("Node").begin_object();
  w.key("apiVersion").string("v1");
  w.key("kind").string("Node");
  w.key("metadata").begin_object();
  w.key("name").string(view(ni.name));
  w.key("labels").begin_object();
  const size_t labels = api().node_label_count(n);
  for (size_t i = 0; i < labels; ++i) {
    scoria_str k{}, v{};
    api().node_label_at(n, i, &k, &v);
    w.key(view(k)).string(view(v));
  }
  w.end_object();
  w.end_object();  // metadata
  w.key("spec").begin_object();
  if (ni.unschedulable != 0) w.key("unschedulable").boolean(true);
  const size_t taints = api().node_taint_count(n);
  if (taints > 0) {
    w.key("taints").begin_array();
    for (size_t i = 0; i < taints; ++i) {
      scoria_taint taint{};
      taint.struct_size = sizeof taint;
      api().node_taint_at(n, i, &taint);
      w.begin_object();
      w.key("key").string(view(taint.key));
      if (taint.value.len > 0) w.key("value").string(view(taint.value));
      w.key("effect").string(effect_name(taint.effect));
      w.end_object();
    }
    w.end_array();
  }
  w.end_object();  // spec
  w.key("status").begin_object();
  w.key("allocatable");
  resource_list(w, ni.allocatable);
  w.key("capacity");
  resource_list(w, ni.allocatable);
  w.key("conditions").begin_array().begin_object();
  w.key("type").string("Ready");
  w.key("status").string(ni.ready != 0 ? "True" : "False");
  w.end_object().end_array();
  w.end_object();  // status
  w.end_object();  // Node
  // NodeState: Volcano's NodePhase Ready = 1, NotReady = 2.
  w.key("State").begin_object();
  w.key("Phase").integer(ni.ready != 0 && ni.unschedulable == 0 ? 1 : 2);
  w.key("Reason").string(ni.ready != 0 ? (ni.unschedulable != 0 ? "Unschedulable" : "")
                                       : "NotReady");
  w.end_object();
  w.key("Releasing");
  resource(w, ni.releasing, false);
  w.key("Pipelined");
  resource(w, ni.pipelined, false);
  w.key("Idle");
  resource(w, ni.idle, true);
  w.key("Used");
  resource(w, ni.used, false);
  w.key("Allocatable");
  resource(w, ni.allocatable, true);
  w.key("Capacity");
  resource(w, ni.allocatable, true);
  w.key("Tasks").begin_object();
  const size_t tasks = api().node_task_count(n);
  for (size_t i = 0; i < tasks; ++i) {
    const scoria_task* t = api().node_task_at(n, i);
    w.key(view(scoria::info(t).uid));
    task(w, t);
  }
  w.end_object();
  w.key("RevocableZone").string(node_label(n, kRevocableZone));
  w.end_object();
}

void RequestBodies::job(JsonWriter& w, const scoria_job* j) const {
  const scoria_job_info ji = scoria::info(j);
  w.begin_object();
  w.key("UID").string(view(ji.uid));
  w.key("Name").string(view(ji.name));
  w.key("Namespace").string(view(ji.namespace_));
  w.key("Queue").string(view(ji.queue_name));
  w.key("Priority").integer(ji.priority);
  w.key("MinAvailable").integer(ji.min_available);
  w.key("Tasks").begin_object();
  const size_t tasks = api().job_task_count(j);
  for (size_t i = 0; i < tasks; ++i) {
    const scoria_task* t = api().job_task_at(j, i);
    w.key(view(scoria::info(t).uid));
    task(w, t);
  }
  w.end_object();
  const std::vector<scoria::RoleMinimum> roles = scoria::min_task_members(j);
  int64_t role_total = 0;
  w.key("TaskMinAvailable").begin_object();
  for (const auto& r : roles) {
    w.key(r.role).integer(r.min);
    role_total += r.min;
  }
  w.end_object();
  w.key("TaskMinAvailableTotal").integer(role_total);
  w.key("Allocated");
  resource(w, ji.allocated, false);
  w.key("TotalRequest");
  resource(w, ji.total_request, false);
  w.key("CreationTimestamp");
  timestamp(w, ji.creation_ms);
  // api.PodGroup: the scheduling PodGroup (inlined) and its Version.
  w.key("PodGroup").begin_object();
  w.key("apiVersion").string("scheduling.volcano.sh/v1beta1");
  w.key("kind").string("PodGroup");
  w.key("metadata").begin_object();
  w.key("name").string(view(ji.name));
  w.key("namespace").string(view(ji.namespace_));
  w.key("creationTimestamp");
  timestamp(w, ji.creation_ms);
  w.end_object();
  w.key("spec").begin_object();
  w.key("minMember").integer(ji.min_available);
  w.key("queue").string(view(ji.queue_name));
  if (!roles.empty()) {
    w.key("minTaskMember").begin_object();
    for (const auto& r : roles) w.key(r.role).integer(r.min);
    w.end_object();
  }
  if (ji.has_min_resources != 0) {
    w.key("minResources");
    resource_list(w, ji.min_resources);
  }
  w.end_object();
  w.key("status").begin_object().key("phase").string(phase_name(ji.phase)).end_object();
  w.key("Version").string("v1beta1");
  w.end_object();
  w.key("Preemptable").boolean(ji.preemptable != 0);
  w.end_object();
}

void RequestBodies::queue(JsonWriter& w, const scoria_queue* q) const {
  const scoria_queue_info qi = scoria::info(q);
  const auto annotation = [&](std::string_view key) {
    scoria_str v{};
    if (!SCORIA_HOST_HAS(&api(), queue_annotation)) return std::string_view{};
    return api().queue_annotation(q, str(key), &v) == SCORIA_OK ? view(v) : std::string_view{};
  };
  w.begin_object();
  w.key("UID").string(view(qi.name));
  w.key("Name").string(view(qi.name));
  w.key("Weight").integer(qi.weight);
  w.key("Weights").string(annotation("volcano.sh/hierarchy-weights"));
  w.key("Hierarchy").string(annotation("volcano.sh/hierarchy"));
  w.key("Queue");
  const std::string_view object = SCORIA_HOST_HAS(&api(), queue_object_json)
                                      ? view(api().queue_object_json(q))
                                      : std::string_view{};
  if (!object.empty()) {
    w.raw(object);
  } else {
    // The default queue the host provides has no object: a minimal one.
    w.begin_object();
    w.key("apiVersion").string("scheduling.volcano.sh/v1beta1");
    w.key("kind").string("Queue");
    w.key("metadata").begin_object().key("name").string(view(qi.name)).end_object();
    w.key("spec").begin_object();
    w.key("weight").integer(qi.weight);
    w.key("reclaimable").boolean(qi.reclaimable != 0);
    w.end_object();
    w.key("status").begin_object().key("state").string(qi.open ? "Open" : "Closed").end_object();
    w.end_object();
  }
  w.end_object();
}

std::string RequestBodies::session_open() const {
  JsonWriter w;
  w.begin_object();
  std::set<std::string_view> namespaces;
  w.key("Jobs").begin_object();
  const size_t jobs = api().job_count(ssn_);
  for (size_t i = 0; i < jobs; ++i) {
    const scoria_job* j = api().job_at(ssn_, i);
    const scoria_job_info ji = scoria::info(j);
    namespaces.insert(view(ji.namespace_));
    w.key(view(ji.uid));
    job(w, j);
  }
  w.end_object();
  const size_t nodes = api().node_count(ssn_);
  std::vector<const scoria_node*> revocable;
  w.key("Nodes").begin_object();
  for (size_t i = 0; i < nodes; ++i) {
    const scoria_node* n = api().node_at(ssn_, i);
    w.key(view(scoria::info(n).name));
    node(w, n);
    if (!node_label(n, kRevocableZone).empty()) revocable.push_back(n);
  }
  w.end_object();
  w.key("Queues").begin_object();
  const size_t queues = api().queue_count(ssn_);
  for (size_t i = 0; i < queues; ++i) {
    const scoria_queue* q = api().queue_at(ssn_, i);
    w.key(view(scoria::info(q).name));
    queue(w, q);
  }
  w.end_object();
  w.key("NamespaceInfo").begin_object();
  for (const std::string_view ns : namespaces)
    w.key(ns).begin_object().key("Name").string(ns).end_object();
  w.end_object();
  w.key("RevocableNodes").begin_object();
  for (const scoria_node* n : revocable) {
    w.key(view(scoria::info(n).name));
    node(w, n);
  }
  w.end_object();
  w.key("NodeList").begin_array();
  for (size_t i = 0; i < nodes; ++i) w.string(view(scoria::info(api().node_at(ssn_, i)).name));
  w.end_array();
  w.end_object();
  return std::move(w.text());
}

std::string RequestBodies::predicate(const scoria_task* t, const scoria_node* n) const {
  JsonWriter w;
  w.begin_object().key("task");
  task(w, t);
  w.key("node");
  node(w, n);
  w.end_object();
  return std::move(w.text());
}

std::string RequestBodies::prioritize(const scoria_task* t,
                                      std::span<const scoria_node* const> nodes) const {
  JsonWriter w;
  w.begin_object().key("task");
  task(w, t);
  w.key("nodes").begin_array();
  for (const scoria_node* n : nodes) node(w, n);
  w.end_array().end_object();
  return std::move(w.text());
}

std::string RequestBodies::victims(const scoria_task* evictor,
                                   std::span<const scoria_task* const> evictees) const {
  JsonWriter w;
  w.begin_object().key("evictor");
  task(w, evictor);
  w.key("evictees").begin_array();
  for (const scoria_task* t : evictees) task(w, t);
  w.end_array().end_object();
  return std::move(w.text());
}

std::string RequestBodies::job_request(const scoria_job* j) const {
  JsonWriter w;
  w.begin_object().key("job");
  job(w, j);
  w.end_object();
  return std::move(w.text());
}

std::string RequestBodies::queue_request(const scoria_queue* q) const {
  JsonWriter w;
  w.begin_object().key("queue");
  queue(w, q);
  w.end_object();
  return std::move(w.text());
}

std::string RequestBodies::event(const scoria_task* t) const {
  JsonWriter w;
  w.begin_object().key("task");
  task(w, t);
  w.end_object();
  return std::move(w.text());
}

}  // namespace scoria_extender
