// Loading the cache (a full replace or a batch of changes), its resource
// dimensions and what a session decided. (The snapshot a session reads is
// cache_snapshot.cpp's.)
#include "cache/cluster_cache.h"

#include <algorithm>
#include <functional>
#include <future>
#include <iterator>
#include <limits>
#include <random>
#include <set>
#include <type_traits>
#include <utility>
#include <variant>

namespace scoria::cache {

namespace {

// kubelet's default --max-pods, for nodes that do not state a pod capacity.
constexpr double kDefaultMaxPods = 110;

bool base_dim(const std::string& name) {
  return name == "cpu" || name == "memory" || name == "pods";
}

// The order objects are loaded in on a full replace: what others name first,
// so nothing waits on a reference and no implicit group is renamed.
// Storage and devices go before pods, which name claims, which name classes,
// volumes and templates.
constexpr Kind kLoadOrder[] = {Kind::Namespace,
                               Kind::PodDisruptionBudget,
                               Kind::ResourceQuota,
                               Kind::PriorityClass,
                               Kind::Queue,
                               Kind::Node,
                               Kind::StorageClass,
                               Kind::CSIDriver,
                               Kind::CSINode,
                               Kind::CSIStorageCapacity,
                               Kind::PersistentVolume,
                               Kind::PersistentVolumeClaim,
                               Kind::DeviceClass,
                               Kind::ResourceSlice,
                               Kind::ResourceClaimTemplate,
                               Kind::ResourceClaim,
                               Kind::PodGroup,
                               Kind::Pod,
                               Kind::Numatopology,
                               Kind::HyperNode,
                               Kind::NodeShard};
static_assert(std::size(kLoadOrder) == std::variant_size_v<Object>, "every kind is loaded");

}  // namespace

ClusterCache::ClusterCache() {
  std::random_device seed;
  kept_.writer = (uint64_t{seed()} << 32 | seed()) | 1;  // never 0: 0 is "no writer"
  clear();
}

void ClusterCache::clear() {
  kept_.valid = false;
  nodes_.clear();
  queues_.clear();
  classes_.clear();
  groups_.clear();
  pods_.clear();
  groups_by_queue_.clear();
  groups_by_class_.clear();
  pods_by_class_.clear();
  pods_by_node_.clear();
  global_defaults_.clear();
  namespaces_.clear();
  disruption_budgets_.clear();
  resource_quotas_.clear();
  numa_topologies_.clear();
  hyper_nodes_.clear();
  node_shards_.clear();
  persistent_volumes_.clear();
  unbound_volumes_.clear();
  claim_pods_.clear();
  volume_claims_.clear();
  storage_classes_.clear();
  csi_nodes_.clear();
  csi_drivers_.clear();
  storage_capacities_.clear();
  device_classes_.clear();
  resource_slices_.clear();
  resource_claims_.clear();
  claim_templates_.clear();
  equivalence_ids_.clear();
  to_name_.clear();
  extended_.clear();
  dims_ = {"cpu", "memory", "pods"};
  dim_index_ = {{"cpu", 0}, {"memory", 1}, {"pods", 2}};
  pod_vectors_.reset(2 * dims_.size());
  group_vectors_.reset(dims_.size());
  dims_dirty_ = false;
  ++header_version_;
  ++storage_version_;
  ++devices_version_;
  // Queue "default" exists unless defined: a placeholder entry holds its
  // slot, so groups in it never re-resolve when it is defined or deleted.
  const uint32_t q = queues_.insert(std::string(kDefaultQueue));
  QueueEntry& e = queues_.at(q);
  e.queue.name = std::string(kDefaultQueue);
  e.implicit = true;
  vectorize_queue(e);
}

namespace {

/// Calls f(std::type_identity<T>{}) with the model type of `kind`.
template <class F>
void with_type(Kind kind, F&& f) {
  [&]<size_t... I>(std::index_sequence<I...>) {
    (void)((static_cast<size_t>(kind) == I
                ? (f(std::type_identity<std::variant_alternative_t<I, Object>>{}), true)
                : false) ||
           ...);
  }
  (std::make_index_sequence<std::variant_size_v<Object>>{});
}

/// reset()'s objects, a list per kind. Each is filed through a change of its
/// own: a list of changes for them all would be another copy of the cluster,
/// in memory touched for the first time.
class ObjectLists {
 public:
  explicit ObjectLists(model::ClusterObjects& objects) : objects_(objects) {}
  template <class T, class F>
  void each(F&& f) const {
    for (const T& o : model::list_of<T>(objects_)) f(o);
  }
  template <class T>
  size_t count() const {
    return model::list_of<T>(objects_).size();
  }
  /// Calls file(change) with each object of `kind`, moved into the change.
  template <class F>
  void file(Kind kind, F&& file) {
    with_type(kind, [&]<class T>(std::type_identity<T>) {
      for (T& o : model::list_of<T>(objects_)) {
        ObjectChange c = ObjectChange::upsert(std::move(o));
        file(c);
      }
    });
  }

 private:
  model::ClusterObjects& objects_;
};

/// replace()'s objects: the Upserts of a list of changes.
class ChangeList {
 public:
  explicit ChangeList(std::vector<ObjectChange>& changes) : changes_(changes) {}
  template <class T, class F>
  void each(F&& f) const {
    for (const ObjectChange& c : changes_)
      if (c.type == ObjectChange::Type::Upsert)
        if (const T* o = std::get_if<T>(&c.object)) f(*o);
  }
  template <class T>
  size_t count() const {
    return std::count_if(changes_.begin(), changes_.end(),
                         [](const ObjectChange& c) { return std::holds_alternative<T>(c.object); });
  }
  template <class F>
  void file(Kind kind, F&& file) {
    for (ObjectChange& c : changes_)
      if (c.kind == kind && c.type == ObjectChange::Type::Upsert) file(c);
  }

 private:
  std::vector<ObjectChange>& changes_;
};

}  // namespace

void ClusterCache::reset(model::ClusterObjects objects) {
  ObjectLists in(objects);
  load(in);
}

void ClusterCache::replace(std::vector<ObjectChange> objects) {
  ChangeList in(objects);
  load(in);
}

template <class In>
void ClusterCache::load(In& in) {
  clear();
  // Filing a storage object touches only the storage maps and their
  // version, which nothing else filed here reads: they are filed on a
  // second core, beside the rest. The pods of each claim are counted
  // there too, before this thread moves the pods into place.
  std::promise<void> claims_read;
  std::future<void> claims_counted = claims_read.get_future();
  claim_pods_apart_ = true;
  struct Rejoin {  // on return or throw, after the thread below is joined
    bool& apart;
    ~Rejoin() { apart = false; }
  } rejoin{claim_pods_apart_};
  const auto apply = [this](ObjectChange& c) { apply_change(c); };
  std::future<void> storage = std::async(std::launch::async, [&] {
    try {
      count_claim_pods(in);
    } catch (...) {
      claims_read.set_exception(std::current_exception());
      throw;
    }
    claims_read.set_value();
    for (Kind kind : kLoadOrder)
      if (is_storage_kind(kind)) in.file(kind, apply);
  });
  // Dimensions first, so each entry is vectorized once.
  std::set<std::string> extended;
  auto collect = [&](const model::ResourceList& list) {
    for (const auto& [name, value] : list)
      if (!base_dim(name)) extended.insert(name);
  };
  in.template each<model::Node>([&](const model::Node& n) { collect(n.allocatable); });
  in.template each<model::Pod>(
      [&](const model::Pod& p) { collect(p.requests), collect(p.init_requests); });
  in.template each<model::PodGroup>([&](const model::PodGroup& g) { collect(g.min_resources); });
  in.template each<model::Queue>([&](const model::Queue& q) {
    collect(q.capability), collect(q.deserved), collect(q.guarantee);
  });
  dims_.insert(dims_.end(), extended.begin(), extended.end());
  for (size_t i = 0; i < dims_.size(); ++i) dim_index_[dims_[i]] = i;
  vectorize_queue(queues_.at(queues_.find(std::string(kDefaultQueue))));
  const size_t pods = in.template count<model::Pod>();
  pods_.reserve(pods);
  pod_vectors_.reset(2 * dims_.size());
  // A pod without a PodGroup gets one of its own.
  groups_.reserve(in.template count<model::PodGroup>() + pods);
  group_vectors_.reset(dims_.size());
  nodes_.reserve(in.template count<model::Node>());

  for (Kind kind : kLoadOrder) {
    if (is_storage_kind(kind)) continue;
    if (kind == Kind::Pod) claims_counted.get();
    in.file(kind, apply);
  }
  storage.get();
  dims_dirty_ = true;  // checked against what was counted; rebuilt only if it differs
  finish_batch();
}

template <class In>
void ClusterCache::count_claim_pods(const In& in) {
  size_t claims = 0;
  in.template each<model::Pod>([&](const model::Pod& p) { claims += p.claims.size(); });
  claim_pods_.reserve(claims);
  in.template each<model::Pod>([&](const model::Pod& p) {
    for (const model::PodClaim& claim : p.claims)
      ++claim_pods_[claim_key(p.namespace_, claim.name)];
  });
}

void ClusterCache::apply_changes(std::span<ObjectChange> changes) {
  for (ObjectChange& c : changes) apply_change(c);
  finish_batch();
}

void ClusterCache::finish_batch() {
  name_implicit_groups();
  if (dims_dirty_) rebuild_dims();
  ++generation_;
}

// ---------------------------------------------------------------------------
// Dimensions: cpu, memory, pods, then every extended resource by name, so the
// same cluster gives the same ids whatever the order it arrived in.

void ClusterCache::count_resources(const model::ResourceList& list, int delta) {
  for (const auto& [name, value] : list) {
    if (base_dim(name)) continue;
    uint32_t& n = extended_[name];
    if (delta > 0) {
      dims_dirty_ |= n == 0 && !dim_index_.contains(name);
      ++n;
    } else if (n > 0 && --n == 0) {
      extended_.erase(name);
      dims_dirty_ = true;
    }
  }
}

void ClusterCache::rebuild_dims() {
  dims_dirty_ = false;
  std::vector<std::string> dims = {"cpu", "memory", "pods"};
  for (const auto& [name, count] : extended_) dims.push_back(name);
  if (dims == dims_) return;
  // A resource came or went: every vector is rebuilt from the objects
  // already decoded (nothing is parsed again).
  dims_ = std::move(dims);
  ++header_version_;
  vectors_changed_ = true;
  dim_index_.clear();
  for (size_t i = 0; i < dims_.size(); ++i) dim_index_[dims_[i]] = i;
  nodes_.each([&](uint32_t, NodeEntry& e) { vectorize_node(e); });
  queues_.each([&](uint32_t, QueueEntry& e) { vectorize_queue(e); });
  group_vectors_.reset(dims_.size());
  groups_.each([&](uint32_t slot, GroupEntry&) { vectorize_group(slot); });
  pod_vectors_.reset(2 * dims_.size());
  pods_.each([&](uint32_t slot, PodEntry&) { vectorize_pod(slot); });
}

void ClusterCache::vectorize_into(const model::ResourceList& list, double absent,
                                  std::span<double> v) const {
  std::fill(v.begin(), v.end(), absent);
  // A name not known yet is counted in extended_: rebuild_dims() at the end
  // of the batch gives it a dimension and vectorizes again.
  for (const auto& [name, value] : list)
    if (const auto it = dim_index_.find(name); it != dim_index_.end()) v[it->second] = value;
}

std::vector<double> ClusterCache::vectorize(const model::ResourceList& list, double absent) const {
  std::vector<double> v(dims_.size());
  vectorize_into(list, absent, v);
  return v;
}

void ClusterCache::vectorize_node(NodeEntry& e) const {
  e.allocatable = vectorize(e.node.allocatable, 0);
  const bool has_pods = std::any_of(e.node.allocatable.begin(), e.node.allocatable.end(),
                                    [](const auto& r) { return r.first == "pods"; });
  if (!has_pods) e.allocatable[SCORIA_DIM_PODS] = kDefaultMaxPods;
}

std::span<const double> ClusterCache::resreq_of(uint32_t slot) const {
  return pod_vectors_.at(slot).first(dims_.size());
}

std::span<const double> ClusterCache::init_resreq_of(uint32_t slot) const {
  return pod_vectors_.at(slot).last(dims_.size());
}

void ClusterCache::vectorize_pod(uint32_t slot, bool existing) {
  const model::Pod& pod = pods_.at(slot).pod;
  const size_t d = dims_.size();
  const std::span<double> both = pod_vectors_.at(slot);
  if (existing) vector_before_.assign(both.begin(), both.end());
  const std::span<double> resreq = both.first(d);
  const std::span<double> init = both.last(d);
  vectorize_into(pod.requests, 0, resreq);
  vectorize_into(pod.init_requests, 0, init);
  for (size_t k = 0; k < d; ++k) init[k] = std::max(init[k], resreq[k]);
  resreq[SCORIA_DIM_PODS] = init[SCORIA_DIM_PODS] = 1;
  if (existing) note_vector_change(vector_before_, both);
}

void ClusterCache::note_vector_change(std::span<const double> before, std::span<const double> v) {
  if (!std::equal(before.begin(), before.end(), v.begin(), v.end())) vectors_changed_ = true;
}

void ClusterCache::vectorize_queue(QueueEntry& e) const {
  e.capability = vectorize(e.queue.capability, std::numeric_limits<double>::infinity());
  e.deserved = vectorize(e.queue.deserved, 0);
  e.guarantee = vectorize(e.queue.guarantee, 0);
}

std::span<const double> ClusterCache::min_resources_of(uint32_t slot) const {
  return std::as_const(group_vectors_).at(slot);
}

void ClusterCache::group_changed(uint32_t slot) {
  vectorize_group(slot);
  const GroupEntry& g = groups_.at(slot);
  GroupHot& h = groups_.hot(slot);
  h.fields = cycle::GroupFields::of(g.group);
  h.owner = g.owner;
  h.placeholder = g.placeholder;
}

void ClusterCache::vectorize_group(uint32_t slot) {
  const std::span<double> v = group_vectors_.at(slot);
  // Only a job the kept snapshot holds can have been summed by a session.
  const bool kept = slot < kept_.job_at.size() && kept_.job_at[slot] != kNone;
  if (kept) vector_before_.assign(v.begin(), v.end());
  vectorize_into(groups_.at(slot).group.min_resources, 0, v);
  if (kept) note_vector_change(vector_before_, v);
}

// ---------------------------------------------------------------------------
// What a session decided

void ClusterCache::apply(const cycle::Outcome& outcome) {
  ++generation_;
  for (const auto& b : outcome.binds) {
    const uint32_t p = pods_.find(b.pod);
    const uint32_t n = nodes_.find(b.node);
    if (p == kNone || n == kNone) continue;
    PodEntry& e = pods_.at(p);
    index_pod(p, false);
    e.pod.node_name = b.node;
    e.pod.scheduled_ms = outcome.now_ms;  // PodScheduled=True, as the bind sets it
    // The binding writes them on the pod; the next session reads them there.
    for (const auto& [key, value] : b.annotations) e.pod.annotations[key] = value;
    index_pod(p, true);
    PodHot& h = pods_.hot(p);
    h.node = n;
    h.status = SCORIA_TASK_BOUND;
    h.listed = true;
  }
  // An evicted pod keeps its node, releasing it, until its source deletes
  // it: what a session pipelined there is bound only once it has gone, and
  // an eviction the server refuses leaves the pod where it runs.
  for (const auto& key : outcome.evictions)
    if (const uint32_t p = pods_.find(key); p != kNone) pods_.hot(p).status = SCORIA_TASK_RELEASING;
  // Written only where it changed: a write marks the job for the next
  // refresh_snapshot(), and most keep their phase.
  for (const auto& st : outcome.pod_groups)
    if (const uint32_t g = group_slot(st.source, st.source_seq, st.key);
        g != kNone && std::as_const(groups_).hot(g).phase != st.phase)
      groups_.hot(g).phase = st.phase;
}

void ClusterCache::remove_evicted(const cycle::Outcome& outcome) {
  if (outcome.evictions.empty()) return;
  std::vector<ObjectChange> gone;
  gone.reserve(outcome.evictions.size());
  for (const auto& pod : outcome.evictions) gone.push_back(ObjectChange::remove(Kind::Pod, pod));
  apply_changes(gone);
}

std::string ClusterCache::uid_of(Kind kind, const std::string& key) const {
  if (kind == Kind::Pod) {
    const uint32_t p = pods_.find(key);
    return p == kNone ? std::string() : pods_.at(p).pod.uid;
  }
  if (kind == Kind::PodGroup) {
    const uint32_t g = groups_.find(key);
    return g == kNone ? std::string() : groups_.at(g).group.uid;
  }
  return {};
}

uint32_t ClusterCache::group_slot(uint32_t source, uint64_t seq, const std::string& key) const {
  // The snapshot's id holds while the slot still carries the entry it had
  // under the same key (its identity says so without comparing keys) or,
  // after a change that freed, reused or renamed it, while it carries the
  // key; else the key decides.
  if (groups_.live(source) && seq != 0 && groups_.identity(source) == seq) return source;
  if (groups_.live(source) && groups_.key(source) == key) return source;
  return groups_.find(key);
}

std::optional<model::PodGroupPhase> ClusterCache::group_phase(const std::string& key,
                                                              uint32_t source) const {
  const uint32_t g = group_slot(source, 0, key);
  if (g == kNone) return std::nullopt;
  return groups_.hot(g).phase;
}

const model::PodGroup* ClusterCache::pod_group(const std::string& key) const {
  const uint32_t g = group_slot(kNone, 0, key);
  return g == kNone ? nullptr : &groups_.at(g).group;
}

std::vector<const model::Pod*> ClusterCache::group_pods(const std::string& key) const {
  std::vector<const model::Pod*> out;
  const uint32_t g = group_slot(kNone, 0, key);
  if (g == kNone) return out;
  for (const uint32_t p : groups_.at(g).pods) out.push_back(&pods_.at(p).pod);
  return out;
}

void ClusterCache::forget_bind(const std::string& pod) {
  const uint32_t p = pods_.find(pod);
  if (p == kNone) return;
  PodEntry& e = pods_.at(p);
  // Only a bind apply() made: a pod the source reported on a node stays.
  PodHot& h = pods_.hot(p);
  if (h.status != SCORIA_TASK_BOUND || e.pod.node_name.empty()) return;
  ++generation_;
  index_pod(p, false);
  e.pod.node_name.clear();
  index_pod(p, true);
  h.node = kNone;
  h.status = SCORIA_TASK_PENDING;
  h.listed = ours(e.pod);
}

}  // namespace scoria::cache
