#include "cache/cluster_cache.h"

#include <algorithm>
#include <limits>
#include <set>

namespace scoria::cache {

namespace {

// kubelet's default --max-pods, for nodes that do not state a pod capacity.
constexpr double kDefaultMaxPods = 110;

uint32_t task_status(const model::Pod& pod) {
  if (pod.deleting) return SCORIA_TASK_RELEASING;
  switch (pod.phase) {
    case model::PodPhase::Succeeded:
      return SCORIA_TASK_SUCCEEDED;
    case model::PodPhase::Failed:
      return SCORIA_TASK_FAILED;
    case model::PodPhase::Running:
      return SCORIA_TASK_RUNNING;
    case model::PodPhase::Unknown:
      return SCORIA_TASK_UNKNOWN;
    case model::PodPhase::Pending:
      break;
  }
  return pod.node_name.empty() ? SCORIA_TASK_PENDING : SCORIA_TASK_BOUND;
}

// Pods for another scheduler that are still pending are not ours to place.
bool ours(const model::Pod& pod) {
  return pod.scheduler_name.empty() || pod.scheduler_name == "volcano" ||
         pod.scheduler_name == "scoria";
}

std::vector<std::vector<std::vector<scoria_str>>> value_views(
    const std::vector<model::NodeSelectorTerm>& terms) {
  std::vector<std::vector<std::vector<scoria_str>>> out(terms.size());
  for (size_t t = 0; t < terms.size(); ++t)
    for (const auto& req : terms[t].requirements) {
      auto& values = out[t].emplace_back();
      for (const auto& v : req.values) values.push_back({v.data(), v.size()});
    }
  return out;
}

}  // namespace

std::vector<double> ClusterCache::vectorize(const model::ResourceList& list, double absent) const {
  std::vector<double> v(dims_.size(), absent);
  for (const auto& [name, value] : list) v[dim_index_.at(name)] = value;
  return v;
}

void ClusterCache::reset(model::ClusterObjects objects) {
  ++generation_;
  nodes_.clear();
  queues_.clear();
  groups_.clear();
  pods_.clear();
  node_index_.clear();
  pod_index_.clear();
  group_index_.clear();

  // Dimensions: cpu, memory, pods, then every extended resource by name, so
  // the same cluster gives the same ids whatever the order of its files.
  std::set<std::string> extended;
  auto collect = [&](const model::ResourceList& list) {
    for (const auto& [name, value] : list)
      if (name != "cpu" && name != "memory" && name != "pods") extended.insert(name);
  };
  for (const auto& n : objects.nodes) collect(n.allocatable);
  for (const auto& p : objects.pods) collect(p.requests), collect(p.init_requests);
  for (const auto& g : objects.pod_groups) collect(g.min_resources);
  for (const auto& q : objects.queues)
    collect(q.capability), collect(q.deserved), collect(q.guarantee);
  dims_ = {"cpu", "memory", "pods"};
  dims_.insert(dims_.end(), extended.begin(), extended.end());
  dim_index_.clear();
  for (size_t i = 0; i < dims_.size(); ++i) dim_index_[dims_[i]] = i;

  std::unordered_map<std::string, int32_t> class_value;
  std::optional<int32_t> global_default;
  for (const auto& pc : objects.priority_classes) {
    class_value[pc.name] = pc.value;
    if (pc.global_default) global_default = pc.value;
  }

  std::unordered_map<std::string, int32_t> queue_index;
  for (auto& q : objects.queues) {
    QueueEntry e{std::move(q), {}, {}, {}};
    e.capability = vectorize(e.queue.capability, std::numeric_limits<double>::infinity());
    e.deserved = vectorize(e.queue.deserved, 0);
    e.guarantee = vectorize(e.queue.guarantee, 0);
    queue_index[e.queue.name] = static_cast<int32_t>(queues_.size());
    queues_.push_back(std::move(e));
  }
  for (auto& n : objects.nodes) {
    NodeEntry e{std::move(n), {}};
    e.allocatable = vectorize(e.node.allocatable, 0);
    bool has_pods = std::any_of(e.node.allocatable.begin(), e.node.allocatable.end(),
                                [](const auto& r) { return r.first == "pods"; });
    if (!has_pods) e.allocatable[SCORIA_DIM_PODS] = kDefaultMaxPods;
    node_index_[e.node.name] = nodes_.size();
    nodes_.push_back(std::move(e));
  }
  for (auto& g : objects.pod_groups) {
    GroupEntry e;
    e.group = std::move(g);
    e.phase = e.group.phase;
    e.min_resources = vectorize(e.group.min_resources, 0);
    auto q = queue_index.find(e.group.queue);
    e.queue = q == queue_index.end() ? -1 : q->second;
    if (auto c = class_value.find(e.group.priority_class_name); c != class_value.end())
      e.priority = c->second;
    else if (global_default)
      e.priority = *global_default;
    group_index_[e.group.key()] = groups_.size();
    groups_.push_back(std::move(e));
  }
  for (auto& p : objects.pods) {
    if (!ours(p) && p.node_name.empty()) continue;
    PodEntry e;
    e.pod = std::move(p);
    e.views.uid = e.pod.key();
    e.views.required = value_views(e.pod.required_affinity);
    e.views.preferred = value_views(e.pod.preferred_affinity);
    e.resreq = vectorize(e.pod.requests, 0);
    e.init_resreq = vectorize(e.pod.init_requests, 0);
    for (size_t k = 0; k < dims_.size(); ++k)
      e.init_resreq[k] = std::max(e.init_resreq[k], e.resreq[k]);
    e.resreq[SCORIA_DIM_PODS] = e.init_resreq[SCORIA_DIM_PODS] = 1;
    e.status = task_status(e.pod);
    if (!e.pod.node_name.empty()) {
      auto n = node_index_.find(e.pod.node_name);
      e.node = n == node_index_.end() ? -1 : static_cast<int32_t>(n->second);
    }
    auto g = group_index_.find(e.pod.namespace_ + "/" + e.pod.group_name);
    if (g == group_index_.end()) continue;  // complete_objects guarantees a group
    pod_index_[e.views.uid] = pods_.size();
    groups_[g->second].pods.push_back(pods_.size());
    pods_.push_back(std::move(e));
  }
}

session::Snapshot ClusterCache::snapshot() const {
  session::Snapshot s;
  s.dims = dims_;
  s.nodes.reserve(nodes_.size());
  for (const auto& n : nodes_) s.nodes.push_back({&n.node, n.allocatable});
  s.queues.reserve(queues_.size());
  for (const auto& q : queues_)
    s.queues.push_back({&q.queue, q.capability, q.deserved, q.guarantee});
  s.jobs.reserve(groups_.size());
  for (const auto& g : groups_) {
    session::Snapshot::JobIn j{&g.group, g.queue, g.priority, g.phase, g.min_resources, {}};
    j.tasks.reserve(g.pods.size());
    for (size_t i : g.pods) {
      const PodEntry& p = pods_[i];
      if (p.gone) continue;
      // A pod bound to a node the cache does not know stays out of the
      // session: it cannot be accounted anywhere.
      if (p.node < 0 && p.status != SCORIA_TASK_PENDING) continue;
      j.tasks.push_back({&p.pod, &p.views, p.status, p.node, p.pod.priority.value_or(0), p.resreq,
                         p.init_resreq});
    }
    s.jobs.push_back(std::move(j));
  }
  return s;
}

void ClusterCache::apply(const session::Outcome& outcome) {
  ++generation_;
  for (const auto& b : outcome.binds) {
    auto p = pod_index_.find(b.pod);
    auto n = node_index_.find(b.node);
    if (p == pod_index_.end() || n == node_index_.end()) continue;
    PodEntry& e = pods_[p->second];
    e.node = static_cast<int32_t>(n->second);
    e.pod.node_name = b.node;
    e.status = SCORIA_TASK_BOUND;
  }
  for (const auto& key : outcome.evictions)
    if (auto p = pod_index_.find(key); p != pod_index_.end()) pods_[p->second].gone = true;
  for (const auto& st : outcome.pod_groups)
    if (auto g = group_index_.find(st.key); g != group_index_.end())
      groups_[g->second].phase = st.phase;
}

}  // namespace scoria::cache
