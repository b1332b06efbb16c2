// One upsert and one delete per kind: each touches its own entry, its
// counts of extended resources and the reverse indexes that name it, then
// re-resolves only the objects that refer to it.
#include <algorithm>

#include "cache/cluster_cache.h"
#include "cache/equivalence_key.h"

namespace scoria::cache {

namespace {

/// "ns/name" as (ns, name); a namespace never holds a '/'.
std::pair<std::string, std::string> split_key(const std::string& key) {
  const size_t slash = key.find('/');
  if (slash == std::string::npos) return {std::string(), key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

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

/// Stores `object` in `map` under its key ("ns/name" or the name).
template <class T>
void store_by_key(std::map<std::string, T>& map, T object) {
  std::string key = object.key();
  map.insert_or_assign(std::move(key), std::move(object));
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

void ClusterCache::set_scheduler_names(std::vector<std::string> names) {
  scheduler_names_ = std::move(names);
}

bool ClusterCache::ours(const model::Pod& pod) const {
  if (pod.scheduler_name.empty()) return true;
  return std::find(scheduler_names_.begin(), scheduler_names_.end(), pod.scheduler_name) !=
         scheduler_names_.end();
}

void ClusterCache::apply_change(ObjectChange& c) {
  // What the snapshot's header shows (nodes, queues, namespaces, the kinds
  // plugins read whole) changes with any object but a pod or a PodGroup.
  const bool job_kind = c.type == ObjectChange::Type::Delete
                            ? c.kind == Kind::Pod || c.kind == Kind::PodGroup
                            : std::holds_alternative<model::Pod>(c.object) ||
                                  std::holds_alternative<model::PodGroup>(c.object);
  // The storage kinds are the sessions' through storage_view(), and the
  // device kinds through the snapshot's views of their maps, not the
  // header's.
  const Kind kind = c.type == ObjectChange::Type::Delete ? c.kind : object_kind(c.object);
  if (is_storage_kind(kind))
    ++storage_version_;
  else if (is_device_kind(kind))
    ++devices_version_;
  else if (!job_kind)
    ++header_version_;
  if (c.type == ObjectChange::Type::Delete) {
    switch (c.kind) {
      case Kind::Node:
        return remove_node(c.key);
      case Kind::Pod:
        return remove_pod(c.key);
      case Kind::PodGroup:
        return remove_group(c.key);
      case Kind::Queue:
        return remove_queue(c.key);
      case Kind::PriorityClass:
        return remove_class(c.key);
      case Kind::Namespace:
        namespaces_.erase(c.key);
        return;
      case Kind::PodDisruptionBudget:
        disruption_budgets_.erase(split_key(c.key));
        return;
      case Kind::ResourceQuota:
        resource_quotas_.erase(split_key(c.key));
        return;
      case Kind::Numatopology:
        numa_topologies_.erase(c.key);
        return;
      case Kind::HyperNode:
        hyper_nodes_.erase(c.key);
        return;
      case Kind::PersistentVolume:
        persistent_volumes_.erase(c.key);
        unbound_volumes_.erase(c.key);
        return;
      case Kind::PersistentVolumeClaim:
        volume_claims_.erase(c.key);
        return;
      case Kind::StorageClass:
        storage_classes_.erase(c.key);
        return;
      case Kind::CSINode:
        csi_nodes_.erase(c.key);
        return;
      case Kind::CSIDriver:
        csi_drivers_.erase(c.key);
        return;
      case Kind::CSIStorageCapacity:
        storage_capacities_.erase(c.key);
        return;
      case Kind::DeviceClass:
        device_classes_.erase(c.key);
        return;
      case Kind::ResourceSlice:
        resource_slices_.erase(c.key);
        return;
      case Kind::ResourceClaim:
        resource_claims_.erase(c.key);
        return;
      case Kind::ResourceClaimTemplate:
        claim_templates_.erase(c.key);
        return;
      case Kind::NodeShard:
        node_shards_.erase(c.key);
        return;
    }
    return;
  }
  // The object says what it is; `kind` and `key` only matter for a Delete.
  std::visit(
      [&](auto& object) {
        using T = std::decay_t<decltype(object)>;
        if constexpr (std::is_same_v<T, model::Node>) upsert_node(std::move(object));
        if constexpr (std::is_same_v<T, model::Pod>) upsert_pod(std::move(object));
        if constexpr (std::is_same_v<T, model::PodGroup>) upsert_group(std::move(object));
        if constexpr (std::is_same_v<T, model::Queue>) upsert_queue(std::move(object));
        if constexpr (std::is_same_v<T, model::PriorityClass>)
          upsert_class(std::move(object), c.never_preempt);
        if constexpr (std::is_same_v<T, model::Namespace>) {
          std::string name = object.name;
          namespaces_.insert_or_assign(std::move(name), std::move(object));
        }
        if constexpr (std::is_same_v<T, model::PodDisruptionBudget>) {
          NamespacedName name{object.namespace_, object.name};
          disruption_budgets_.insert_or_assign(std::move(name), std::move(object));
        }
        if constexpr (std::is_same_v<T, model::ResourceQuota>) {
          NamespacedName name{object.namespace_, object.name};
          resource_quotas_.insert_or_assign(std::move(name), std::move(object));
        }
        if constexpr (std::is_same_v<T, model::Numatopology>) {
          std::string name = object.name;
          numa_topologies_.insert_or_assign(std::move(name), std::move(object));
        }
        if constexpr (std::is_same_v<T, model::HyperNode>) {
          std::string name = object.name;
          hyper_nodes_.insert_or_assign(std::move(name), std::move(object));
        }
        if constexpr (std::is_same_v<T, model::PersistentVolume>) {
          if (object.phase == model::VolumePhase::Available ||
              object.phase == model::VolumePhase::Pending)
            unbound_volumes_.insert(object.key());
          else
            unbound_volumes_.erase(object.key());
          store_by_key(persistent_volumes_, std::move(object));
        }
        if constexpr (std::is_same_v<T, model::PersistentVolumeClaim>)
          store_by_key(volume_claims_, std::move(object));
        if constexpr (std::is_same_v<T, model::StorageClass>)
          store_by_key(storage_classes_, std::move(object));
        if constexpr (std::is_same_v<T, model::CSINode>)
          store_by_key(csi_nodes_, std::move(object));
        if constexpr (std::is_same_v<T, model::CSIDriver>)
          store_by_key(csi_drivers_, std::move(object));
        if constexpr (std::is_same_v<T, model::CSIStorageCapacity>)
          store_by_key(storage_capacities_, std::move(object));
        if constexpr (std::is_same_v<T, model::DeviceClass>)
          store_by_key(device_classes_, std::move(object));
        if constexpr (std::is_same_v<T, model::ResourceSlice>)
          store_by_key(resource_slices_, std::move(object));
        if constexpr (std::is_same_v<T, model::ResourceClaim>)
          store_by_key(resource_claims_, std::move(object));
        if constexpr (std::is_same_v<T, model::ResourceClaimTemplate>)
          store_by_key(claim_templates_, std::move(object));
        if constexpr (std::is_same_v<T, model::NodeShard>)
          store_by_key(node_shards_, std::move(object));
      },
      c.object);
}

// --- Nodes -------------------------------------------------------------------

void ClusterCache::upsert_node(model::Node node) {
  uint32_t slot = nodes_.find(node.name);
  const bool fresh = slot == kNone;
  if (fresh)
    slot = nodes_.insert(node.name);
  else
    count_resources(nodes_.at(slot).node.allocatable, -1);
  NodeEntry& e = nodes_.at(slot);
  count_resources(node.allocatable, 1);
  e.node = std::move(node);
  vectorize_node(e);
  if (!fresh) return;
  // Pods already bound to it can now be accounted.
  if (const auto it = pods_by_node_.find(e.node.name); it != pods_by_node_.end())
    for (uint32_t p : it->second) pods_.hot(p).node = slot;
}

void ClusterCache::remove_node(const std::string& key) {
  const uint32_t slot = nodes_.find(key);
  if (slot == kNone) return;
  count_resources(nodes_.at(slot).node.allocatable, -1);
  if (const auto it = pods_by_node_.find(key); it != pods_by_node_.end())
    for (uint32_t p : it->second) pods_.hot(p).node = kNone;
  nodes_.erase(slot);
}

// --- Queues ------------------------------------------------------------------

void ClusterCache::upsert_queue(model::Queue queue) {
  uint32_t slot = queues_.find(queue.name);
  const bool fresh = slot == kNone;
  if (fresh) {
    slot = queues_.insert(queue.name);
  } else {
    QueueEntry& old = queues_.at(slot);
    for (const auto* list : {&old.queue.capability, &old.queue.deserved, &old.queue.guarantee})
      count_resources(*list, -1);
    // "default" defined at last: it keeps its slot (its groups keep their
    // queue) and takes its place among the defined queues.
    if (old.implicit) queues_.move_last(slot);
    old.implicit = false;
  }
  QueueEntry& e = queues_.at(slot);
  for (const auto* list : {&queue.capability, &queue.deserved, &queue.guarantee})
    count_resources(*list, 1);
  e.queue = std::move(queue);
  vectorize_queue(e);
  if (!fresh) return;
  if (const auto it = groups_by_queue_.find(e.queue.name); it != groups_by_queue_.end())
    for (uint32_t g : it->second) resolve_group(g);
}

void ClusterCache::remove_queue(const std::string& key) {
  const uint32_t slot = queues_.find(key);
  if (slot == kNone || queues_.at(slot).implicit) return;
  QueueEntry& e = queues_.at(slot);
  for (const auto* list : {&e.queue.capability, &e.queue.deserved, &e.queue.guarantee})
    count_resources(*list, -1);
  if (key == kDefaultQueue) {
    // Back to the queue that exists unless defined.
    e = QueueEntry{};
    e.queue.name = key;
    e.implicit = true;
    vectorize_queue(e);
    return;
  }
  queues_.erase(slot);
  if (const auto it = groups_by_queue_.find(key); it != groups_by_queue_.end())
    for (uint32_t g : it->second) resolve_group(g);
}

// --- PriorityClasses -----------------------------------------------------------

void ClusterCache::upsert_class(model::PriorityClass pc, bool never_preempt) {
  const DefaultClass before = default_class();
  uint32_t slot = classes_.find(pc.name);
  if (slot == kNone) slot = classes_.insert(pc.name);
  ClassEntry& e = classes_.at(slot);
  if (pc.global_default)
    global_defaults_.insert(pc.name);
  else
    global_defaults_.erase(pc.name);
  e.pc = std::move(pc);
  e.never_preempt = never_preempt;
  classes_changed(e.pc.name, before);
}

void ClusterCache::remove_class(const std::string& key) {
  const uint32_t slot = classes_.find(key);
  if (slot == kNone) return;
  const DefaultClass before = default_class();
  global_defaults_.erase(key);
  classes_.erase(slot);
  classes_changed(key, before);
}

// --- PodGroups -------------------------------------------------------------------

void ClusterCache::upsert_group(model::PodGroup group) {
  const std::string key = group.key();
  uint32_t slot = groups_.find(key);
  if (slot != kNone && groups_.at(slot).owner != kNone) {
    // The name was an implicit group's: the defined one takes it, and the
    // implicit one is named again, as completion would have named it.
    evict_implicit(slot);
    slot = kNone;
  }
  // Its pods are judged again where the kind they name may differ now.
  bool judge_pods = slot != kNone;
  if (slot == kNone) {
    slot = groups_.insert(key);
  } else if (GroupEntry& old = groups_.at(slot); old.placeholder) {
    // Pods named it before it was defined: they are its members now.
    old.placeholder = false;
    old.invalid.clear();
    groups_.move_last(slot);
  } else {
    judge_pods = old.group.native != group.native;
    count_resources(old.group.min_resources, -1);
    index_group(slot, false);
  }
  GroupEntry& e = groups_.at(slot);
  count_resources(group.min_resources, 1);
  e.group = std::move(group);
  group_changed(slot);
  groups_.hot(slot).phase = e.group.phase;
  index_group(slot, true);
  resolve_group(slot);
  if (judge_pods)
    for (uint32_t p : std::vector<uint32_t>(e.pods)) resolve_pod(p);
}

void ClusterCache::remove_group(const std::string& key) {
  const uint32_t slot = groups_.find(key);
  if (slot == kNone) return;
  GroupEntry& e = groups_.at(slot);
  if (e.owner != kNone || e.placeholder) return;  // no such object at the source
  count_resources(e.group.min_resources, -1);
  index_group(slot, false);
  if (e.pods.empty()) {
    groups_.erase(slot);
    wake_names(key);
    return;
  }
  // Its pods stay, waiting for it: the job is kept but not scheduled.
  std::vector<uint32_t> pods = std::move(e.pods);
  const uint32_t invalid_pods = e.invalid_pods;
  groups_.erase(slot);
  const uint32_t p = placeholder(key);
  GroupEntry& ph = groups_.at(p);
  ph.pods = std::move(pods);
  ph.invalid_pods = invalid_pods;
  for (uint32_t pod : ph.pods) pods_.hot(pod).group = p;
}

// --- Pods ------------------------------------------------------------------------

void ClusterCache::upsert_pod(model::Pod pod) {
  const std::string key = pod.key();
  uint32_t slot = pods_.find(key);
  const bool existing = slot != kNone;
  if (slot == kNone) {
    slot = pods_.insert(key);
  } else {
    PodEntry& old = pods_.at(slot);
    count_resources(old.pod.requests, -1);
    count_resources(old.pod.init_requests, -1);
    index_pod(slot, false);
    if (old.group_annotation != pod.group_name) leave_group(slot);
  }
  PodEntry& e = pods_.at(slot);
  PodHot& h = pods_.hot(slot);
  count_resources(pod.requests, 1);
  count_resources(pod.init_requests, 1);
  e.spec_priority = pod.priority;
  e.spec_preempt_never = pod.preempt_never;
  e.group_annotation = pod.group_name;
  const bool implicit = h.group != kNone && groups_.at(h.group).owner == slot;
  // An implicit group keeps its name while the pod changes.
  if (implicit) pod.group_name = groups_.at(h.group).group.name;
  e.pod = std::move(pod);
  h.features = e.pod.features;
  e.views.uid = key;
  e.views.required = value_views(e.pod.required_affinity);
  e.views.preferred = value_views(e.pod.preferred_affinity);
  e.views.equivalence = 0;
  e.views.alike_but_claims = 0;
  // Only pods still to place are asked about node by node.
  if (e.pod.node_name.empty()) {
    const auto number = [this](std::string klass) -> uint32_t {
      if (klass.empty()) return 0;
      return equivalence_ids_
          .try_emplace(std::move(klass), static_cast<uint32_t>(equivalence_ids_.size() + 1))
          .first->second;
    };
    e.views.equivalence = number(equivalence_key(e.pod));
    if (!e.pod.claims.empty())
      e.views.alike_but_claims = number(equivalence_key_without_claim_names(e.pod));
  }
  vectorize_pod(slot, existing);
  h.status = task_status(e.pod);
  // Pods for another scheduler that are still pending are not ours to
  // place; once on a node they occupy it all the same.
  h.listed = ours(e.pod) || !e.pod.node_name.empty();
  h.node = e.pod.node_name.empty() ? kNone : nodes_.find(e.pod.node_name);
  index_pod(slot, true);
  if (h.group == kNone)
    join_group(slot);
  else if (implicit)
    refresh_implicit_group(slot);
  resolve_pod(slot);
}

void ClusterCache::remove_pod(const std::string& key) {
  const uint32_t slot = pods_.find(key);
  if (slot == kNone) return;
  PodEntry& e = pods_.at(slot);
  count_resources(e.pod.requests, -1);
  count_resources(e.pod.init_requests, -1);
  index_pod(slot, false);
  leave_group(slot);
  pods_.erase(slot);
}

}  // namespace scoria::cache
