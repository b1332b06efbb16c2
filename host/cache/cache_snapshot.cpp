// The input of a session: written whole (snapshot()), or kept by the cache
// and brought up to date for what changed since the last session
// (refresh_snapshot()). Both write the same jobs in the same order; the
// cache-changes test holds them to it after every kind of change.
#include <algorithm>
#include <utility>

#include "cache/cluster_cache.h"

namespace scoria::cache {

namespace {

// Where the snapshot's order puts a job: defined PodGroups in arrival order,
// then implicit ones in their pods' order, then those only named, by key.
enum Place : uint8_t { kDefined = 0, kImplicit = 1, kNamed = 2 };

}  // namespace

void ClusterCache::snapshot_header(cycle::Snapshot& s, SnapshotPlaces& places) const {
  s.dims = dims_;
  s.exact_vectors = true;  // every vector below holds dims_ values
  s.namespaces.clear();
  s.objects.clear();
  s.hyper_nodes.clear();
  s.nodes.clear();
  s.queues.clear();
  s.now_ms = 0;
  s.namespaces.reserve(namespaces_.size());
  for (const auto& [name, ns] : namespaces_) s.namespaces.push_back(&ns);
  const auto add_kind = [&s](std::string_view kind, const auto& objects) {
    cycle::Snapshot::KindObjects& k = s.objects.emplace_back();
    k.kind = kind;
    k.json.reserve(objects.size());
    for (const auto& [name, object] : objects) k.json.emplace_back(object.json);
  };
  add_kind(kind_name(Kind::PodDisruptionBudget), disruption_budgets_);
  add_kind(kind_name(Kind::ResourceQuota), resource_quotas_);
  add_kind(kind_name(Kind::Numatopology), numa_topologies_);  // by node name
  s.hyper_nodes.reserve(hyper_nodes_.size());
  for (const auto& [name, h] : hyper_nodes_) s.hyper_nodes.push_back(&h);
  s.storage = storage_view();
  s.devices = devices_view();

  // Sessions index nodes and queues by position; entries by slot.
  places.node_at.assign(nodes_.slots(), -1);
  s.nodes.reserve(nodes_.size());
  nodes_.each([&](uint32_t slot, const NodeEntry& n) {
    places.node_at[slot] = static_cast<int32_t>(s.nodes.size());
    s.nodes.push_back({&n.node, n.allocatable});
  });
  shard_header(s);
  places.queue_at.assign(queues_.slots(), -1);
  s.queues.reserve(queues_.size());
  auto add_queue = [&](uint32_t slot, const QueueEntry& q) {
    places.queue_at[slot] = static_cast<int32_t>(s.queues.size());
    s.queues.push_back({&q.queue, q.capability, q.deserved, q.guarantee});
  };
  // The implicit "default" comes after every defined queue, as completion
  // appends it.
  uint32_t implicit_default = kNone;
  queues_.each([&](uint32_t slot, const QueueEntry& q) {
    if (q.implicit)
      implicit_default = slot;
    else
      add_queue(slot, q);
  });
  if (implicit_default != kNone) add_queue(implicit_default, queues_.at(implicit_default));
}

template <class Emit>
void ClusterCache::each_job_slot(Emit&& emit) const {
  // The walks read the groups' hot fields only, in the order of their
  // slots mostly: the entries are large and would each miss the cache.
  std::vector<uint32_t> named;
  size_t implicit = 0;
  groups_.each_slot([&](uint32_t slot) {
    const GroupHot& h = groups_.hot(slot);
    if (h.placeholder)
      named.push_back(slot);
    else if (h.owner == kNone)
      emit(slot);
    else
      ++implicit;
  });
  if (implicit > 0)
    pods_.each_slot([&](uint32_t slot) {
      const uint32_t g = pods_.hot(slot).group;
      if (g != kNone && groups_.hot(g).owner == slot) emit(g);
    });
  std::sort(named.begin(), named.end(),
            [this](uint32_t a, uint32_t b) { return groups_.key(a) < groups_.key(b); });
  for (uint32_t slot : named) emit(slot);
}

uint8_t ClusterCache::place_of(uint32_t slot) const {
  const GroupHot& h = groups_.hot(slot);
  return h.placeholder ? kNamed : h.owner != kNone ? kImplicit : kDefined;
}

cycle::Snapshot::JobIn ClusterCache::job_in(uint32_t slot, const SnapshotPlaces& places) const {
  const GroupEntry& g = groups_.at(slot);
  const std::string& reason = job_reason(g);
  const int32_t queue = !reason.empty() || g.queue == kNone ? -1 : places.queue_at[g.queue];
  cycle::Snapshot::JobIn j{
      &g.group, queue,  g.priority, groups_.hot(slot).phase, min_resources_of(slot),
      {},       reason, slot};
  j.key = groups_.key(slot);
  j.source_seq = groups_.identity(slot);
  j.fields = groups_.hot(slot).fields;
  return j;
}

size_t ClusterCache::task_count(uint32_t slot) const {
  size_t n = 0;
  for (uint32_t i : groups_.at(slot).pods) n += pods_.hot(i).listed ? 1 : 0;
  return n;
}

cycle::Snapshot::TaskIn ClusterCache::task_in(uint32_t slot, const SnapshotPlaces& places) const {
  const PodHot& p = pods_.hot(slot);
  // A pod bound to a node the cache does not know is on no node of the
  // session but still its job's, as in Volcano (whose cache gives it a node
  // of its own that no session lists): it counts toward the gang and the
  // queue, and is no victim.
  const int32_t node = p.node == kNone ? -1 : places.node_at[p.node];
  const PodEntry& e = pods_.at(slot);
  return {&e.pod,     &e.views,   p.status,        node,
          p.priority, p.features, resreq_of(slot), init_resreq_of(slot)};
}

void ClusterCache::add_job(cycle::Snapshot& s, uint32_t slot, const SnapshotPlaces& places) const {
  cycle::Snapshot::JobIn j = job_in(slot, places);
  const size_t first = s.tasks.size();
  for (uint32_t i : groups_.at(slot).pods)
    if (pods_.hot(i).listed) s.tasks.push_back(task_in(i, places));
  j.tasks = std::span(s.tasks).subspan(first);
  s.jobs.push_back(std::move(j));
}

cycle::Snapshot ClusterCache::snapshot() const {
  cycle::Snapshot s;
  SnapshotPlaces places;
  snapshot_header(s, places);
  s.jobs.reserve(groups_.size());
  // Never grown past this, so the jobs' spans into it hold.
  s.tasks.reserve(pods_.size());
  each_job_slot([&](uint32_t slot) { add_job(s, slot, places); });
  return s;
}

cycle::Devices ClusterCache::devices_view() const {
  return {&device_classes_, &resource_slices_, &resource_claims_, &claim_templates_};
}

const cycle::Storage& ClusterCache::storage_view() const {
  return storage_index_.view({&persistent_volumes_, &volume_claims_, &storage_classes_, &csi_nodes_,
                              &csi_drivers_, &storage_capacities_, &claim_pods_, &unbound_volumes_},
                             storage_version_);
}

// ---------------------------------------------------------------------------
// The kept snapshot

const cycle::Snapshot& ClusterCache::refresh_snapshot(int64_t now_ms, bool incremental) {
  KeptSnapshot& k = kept_;
  // The header is written again only when something it shows changed.
  bool same_places = k.valid && k.header_version == header_version_;
  if (!same_places) {
    SnapshotPlaces places;
    snapshot_header(k.snapshot, places);
    same_places = k.valid && places == k.places;
    k.places = std::move(places);
    k.header_version = header_version_;
  }
  k.snapshot.storage = storage_view();
  k.snapshot.devices = devices_view();
  k.snapshot.now_ms = now_ms;
  // What the kept jobs point at and index into must be where it was.
  const bool holds = incremental && k.valid && same_places && k.dims == dims_.size() &&
                     k.pod_vectors == pod_vectors_.generation() &&
                     k.group_vectors == group_vectors_.generation();
  cycle::Snapshot::Changes& told = k.snapshot.changes;
  told.writer = k.writer;
  told.version = ++k.version;
  told.jobs.clear();
  told.nodes.clear();
  told.removed.clear();
  told.vectors_changed = std::exchange(vectors_changed_, false);
  bool moved = !holds;
  if (!holds) {
    k.job_at.clear();  // nothing to copy: every job is written
    copy_kept();
  } else if (const std::vector<uint32_t> changed = changed_jobs(); !changed.empty()) {
    if (!patch_kept(changed, told)) {
      told.jobs.clear();
      told.removed.clear();
      copy_kept();
      moved = true;
    }
    for (uint32_t slot : changed) k.changed[slot] = 0;
  }
  if (moved) {
    told.layout = ++k.layout;
  } else {
    std::sort(told.jobs.begin(), told.jobs.end());
    for (uint32_t slot : std::as_const(nodes_).changed())
      if (nodes_.live(slot)) told.nodes.push_back(static_cast<uint32_t>(k.places.node_at[slot]));
    std::sort(told.nodes.begin(), told.nodes.end());
  }
  k.dims = dims_.size();
  k.pod_vectors = pod_vectors_.generation();
  k.group_vectors = group_vectors_.generation();
  k.groups_moves = groups_.move_version();
  k.pods_moves = pods_.move_version();
  note_last_job();
  k.valid = true;
  groups_.forget_changes();
  pods_.forget_changes();
  nodes_.forget_changes();
  queues_.forget_changes();
  classes_.forget_changes();
  return k.snapshot;
}

std::vector<uint32_t> ClusterCache::changed_jobs() {
  std::vector<uint8_t>& seen = kept_.changed;
  if (seen.size() < groups_.slots()) seen.resize(groups_.slots(), 0);
  std::vector<uint32_t> out;
  const auto note = [&](uint32_t g) {
    if (g == kNone || seen[g] != 0) return;
    seen[g] = 1;
    out.push_back(g);
  };
  for (uint32_t g : groups_.changed()) note(g);
  // A pod's change is its job's (one that left a job changed that job's
  // entry too, so it is listed above).
  const auto& pods = std::as_const(pods_);
  for (uint32_t p : pods.changed())
    if (pods.live(p)) note(pods.hot(p).group);
  return out;
}

bool ClusterCache::patch_kept(const std::vector<uint32_t>& changed,
                              cycle::Snapshot::Changes& told) {
  KeptSnapshot& k = kept_;
  cycle::Snapshot& s = k.snapshot;
  const auto& groups = std::as_const(groups_);
  const auto& pods = std::as_const(pods_);
  // Nothing moved in the order since: the jobs kept stand as they stood,
  // those that left taken out.
  if (groups.move_version() != k.groups_moves || pods.move_version() != k.pods_moves) return false;
  std::vector<uint32_t> arrived, gone;
  size_t arriving_tasks = 0, gone_tasks = 0;
  for (uint32_t g : changed) {
    const bool kept = g < k.job_at.size() && k.job_at[g] != kNone;
    // A slot holding another entry than the kept job's (its PodGroup left,
    // another came) is one job gone and one arrived.
    const bool same = kept && groups.live(g) && groups.seq(g) == k.seq[g];
    if (kept && !same) {
      gone.push_back(k.job_at[g]);
      gone_tasks += s.jobs[k.job_at[g]].tasks.size();
    }
    if (!groups.live(g)) continue;
    if (!same) {
      arrived.push_back(g);
      arriving_tasks += task_count(g);
    } else if (k.place[g] != place_of(g) || task_count(g) != s.jobs[k.job_at[g]].tasks.size()) {
      return false;
    }
  }
  // Arrivals go last, in the order a whole write puts them: PodGroups
  // defined in arrival order, then implicit ones in their pods' (never one
  // only named: those go by key). Their tasks must fit where the kept ones'
  // spans into `tasks` hold. (Measured against the last job before any
  // left: stricter than needed, never wrong.)
  const auto owner_seq = [&](uint32_t g) { return pods.seq(groups.hot(g).owner); };
  std::sort(arrived.begin(), arrived.end(), [&](uint32_t a, uint32_t b) {
    const uint8_t pa = place_of(a), pb = place_of(b);
    if (pa != pb) return pa < pb;
    if (pa == kImplicit) return owner_seq(a) < owner_seq(b);
    return groups.seq(a) < groups.seq(b);  // (named ones are refused below)
  });
  if (!arrived.empty()) {
    const uint8_t first = place_of(arrived.front());
    if (place_of(arrived.back()) == kNamed || (!s.jobs.empty() && first < k.last_place) ||
        (!s.jobs.empty() && first == kImplicit && k.last_place == kImplicit &&
         owner_seq(arrived.front()) < k.last_owner_seq) ||
        s.tasks.size() - gone_tasks + arriving_tasks > s.tasks.capacity())
      return false;
  }
  // Nothing fails from here on.
  if (!gone.empty()) {
    std::sort(gone.begin(), gone.end());
    take_out_kept(gone);
    told.removed = std::move(gone);
  }
  for (uint32_t g : changed) {
    if (g >= k.job_at.size() || k.job_at[g] == kNone) continue;
    told.jobs.push_back(k.job_at[g]);
    cycle::Snapshot::JobIn& j = s.jobs[k.job_at[g]];
    const size_t first = static_cast<size_t>(j.tasks.data() - s.tasks.data());
    j = job_in(g, k.places);
    cycle::Snapshot::TaskIn* out = s.tasks.data() + first;
    size_t n = 0;
    for (uint32_t i : groups.at(g).pods)
      if (pods.hot(i).listed) out[n++] = task_in(i, k.places);
    j.tasks = std::span(s.tasks).subspan(first, n);
  }
  if (k.job_at.size() < groups.slots()) {
    k.job_at.resize(groups.slots(), kNone);
    k.place.resize(groups.slots(), kDefined);
    k.seq.resize(groups.slots(), 0);
  }
  for (uint32_t g : arrived) {
    k.job_at[g] = static_cast<uint32_t>(s.jobs.size());
    k.place[g] = place_of(g);
    k.seq[g] = groups.seq(g);
    add_job(s, g, k.places);
  }
  return true;
}

void ClusterCache::take_out_kept(const std::vector<uint32_t>& gone) {
  KeptSnapshot& k = kept_;
  cycle::Snapshot& s = k.snapshot;
  // Tasks lie job after job: each kept job's move down by those of the jobs
  // gone before it (the storage never reallocates: spans hold).
  size_t from = 0, to = 0, next = 0, out = 0;
  for (size_t j = 0; j < s.jobs.size(); ++j) {
    cycle::Snapshot::JobIn& job = s.jobs[j];
    const size_t n = job.tasks.size();
    if (next < gone.size() && gone[next] == j) {
      ++next;
      if (job.source < k.job_at.size() && k.job_at[job.source] == j) k.job_at[job.source] = kNone;
      from += n;
      continue;
    }
    if (to != from)
      std::copy_n(s.tasks.begin() + static_cast<std::ptrdiff_t>(from), n,
                  s.tasks.begin() + static_cast<std::ptrdiff_t>(to));
    job.tasks = std::span(s.tasks).subspan(to, n);
    if (out != j) s.jobs[out] = job;
    k.job_at[s.jobs[out].source] = static_cast<uint32_t>(out);
    ++out;
    from += n;
    to += n;
  }
  s.jobs.resize(out);
  s.tasks.resize(to);
}

void ClusterCache::note_last_job() {
  KeptSnapshot& k = kept_;
  k.last_place = kDefined;
  k.last_owner_seq = 0;
  if (k.snapshot.jobs.empty()) return;
  const uint32_t g = k.snapshot.jobs.back().source;
  k.last_place = place_of(g);
  if (k.last_place == kImplicit) k.last_owner_seq = pods_.seq(groups_.hot(g).owner);
}

void ClusterCache::copy_kept() {
  KeptSnapshot& k = kept_;
  cycle::Snapshot& s = k.snapshot;
  std::swap(s.jobs, k.spare_jobs);
  std::swap(s.tasks, k.spare_tasks);
  const std::vector<cycle::Snapshot::JobIn>& was = k.spare_jobs;  // spans into spare_tasks
  s.jobs.clear();
  s.tasks.clear();
  s.jobs.reserve(groups_.size());
  // Never grown past, so that the spans hold; with room for jobs that
  // arrive later to be appended (patch_kept).
  s.tasks.reserve(pods_.size() + pods_.size() / 8 + 64);
  const std::vector<uint32_t> was_at = std::exchange(k.job_at, {});
  k.job_at.assign(groups_.slots(), kNone);
  k.place.assign(groups_.slots(), kDefined);
  k.seq.assign(groups_.slots(), 0);
  each_job_slot([&](uint32_t slot) {
    k.job_at[slot] = static_cast<uint32_t>(s.jobs.size());
    k.place[slot] = place_of(slot);
    k.seq[slot] = groups_.seq(slot);
    const uint32_t at = slot < was_at.size() ? was_at[slot] : kNone;
    if (at == kNone || k.changed[slot] != 0) {
      add_job(s, slot, k.places);
      return;
    }
    cycle::Snapshot::JobIn j = was[at];
    const size_t first = s.tasks.size();
    s.tasks.insert(s.tasks.end(), j.tasks.begin(), j.tasks.end());
    j.tasks = std::span(s.tasks).subspan(first);
    s.jobs.push_back(j);
  });
}

}  // namespace scoria::cache
