#include "kube/kube_cluster.h"

#include <algorithm>
#include <random>

#include "api/builtin_queues.h"
#include "api/object_meta.h"
#include "log/log.h"
#include "model/quantity.h"

namespace scoria::kube {

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// A bind the server acknowledged but whose result the watch has not shown
// for this long is let go (kube-scheduler's assumed-pod expiry).
constexpr auto kAssumeTtl = std::chrono::seconds(30);

std::string join(const std::vector<std::string>& names, const char* sep) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : sep) + n;
  return out;
}

}  // namespace

bool KubeCluster::watches(const api::Resource& r) const {
  // NodeShards only with sharding on, as Volcano's informer.
  return r.scheduled && (r.kind != "NodeShard" || options_.node_shards);
}

KubeCluster::KubeCluster(KubeSourceOptions options)
    : options_(std::move(options)),
      client_(options_.client, options_.qps, options_.burst),
      reports_(options_.scheduler_names.empty() ? "volcano" : options_.scheduler_names[0]) {
  for (const api::Resource& r : api::resources())
    if (watches(r))
      reflectors_.push_back(
          std::make_unique<Reflector>(client_, r, queue_, options_.reflector, &absences_));
  if (options_.leader_elect) {
    if (options_.election.lease_name.empty())
      options_.election.lease_name = join(options_.scheduler_names, "-");
    elector_ = std::make_unique<LeaderElector>(client_, options_.election);
  }
  writer_ = std::make_unique<Writer>(client_, queue_, elector_ ? elector_->leading() : always_,
                                     options_.write_workers);
}

KubeCluster::~KubeCluster() { stop(); }

void KubeCluster::start() {
  started_ = Clock::now();
  log::write(log::kInfo, kKubernetesLog,
             "watching " + options_.client.origin + " for pods of scheduler " +
                 join(options_.scheduler_names, ", "));
  for (auto& r : reflectors_) r->start();
  writer_->start();
  if (elector_) elector_->start();
}

void KubeCluster::stop() {
  // The election last: writes under way end (or are cancelled) while this
  // process still holds the Lease.
  for (auto& r : reflectors_) r->stop();
  if (writer_) writer_->stop();
  if (elector_) elector_->stop();
}

bool KubeCluster::may_schedule() const { return !elector_ || elector_->leading(); }

KubeSourceStatus KubeCluster::status() const {
  KubeSourceStatus s;
  s.synced = synced_;
  s.leading = may_schedule();
  if (elector_) {
    s.identity = elector_->identity();
    s.holder = elector_->holder();
  }
  s.write_backlog = writer_->backlog();
  s.writes = writer_->stats();
  return s;
}

void KubeCluster::settle_binds(cache::ClusterCache& cache) {
  for (const BindSettled& s : writer_->take_settled()) {
    const auto it = assumed_.find(s.pod);
    if (it == assumed_.end()) continue;
    if (s.bound) {
      it->second.written = true;  // until the watch shows it
      continue;
    }
    // Pending again for a later session; the writer has also asked the
    // server for the pod as it is now, which follows through the queue.
    assumed_.erase(it);
    cache.forget_bind(s.pod);
  }
  const Clock::time_point now = Clock::now();
  std::erase_if(assumed_, [&](const auto& a) {
    return a.second.written && now - a.second.since > kAssumeTtl;
  });
}

void KubeCluster::note_changes(std::vector<cache::ObjectChange>& changes) {
  const Clock::time_point now = Clock::now();
  for (cache::ObjectChange& c : changes) {
    if (c.kind == cache::Kind::PodGroup) {
      if (c.type == cache::ObjectChange::Type::Delete) {
        reports_.forget_pod_group(c.key);
      } else if (const auto* group = std::get_if<model::PodGroup>(&c.object)) {
        reports_.observe_pod_group(c.key, group->phase, group->unschedulable);
      }
    }
    if (c.kind == cache::Kind::Queue && c.type == cache::ObjectChange::Type::Delete)
      reports_.forget_queue(c.key);
    if (c.kind != cache::Kind::Pod) continue;
    if (c.type == cache::ObjectChange::Type::Delete) {
      assumed_.erase(c.key);
      seen_at_.erase(c.key);
      reports_.forget_pod(c.key);
      continue;
    }
    auto& pod = std::get<model::Pod>(c.object);
    if (const auto it = assumed_.find(c.key); it != assumed_.end()) {
      // The server's copy decides once it names a node (ours, or another
      // scheduler's if it won the race); until then the bind stands.
      if (pod.node_name.empty() && pod.phase == model::PodPhase::Pending)
        pod.node_name = it->second.node;
      else
        assumed_.erase(it);
    } else if (pod.node_name.empty()) {
      seen_at_.try_emplace(c.key, now);
    }
  }
}

std::optional<std::string> KubeCluster::refresh(cache::ClusterCache& cache) {
  settle_binds(cache);
  // Read before the queue is taken: a kind marked listed has all its list
  // in what is taken.
  const std::set<std::string> listed = synced_ ? std::set<std::string>() : queue_.listed();
  std::vector<cache::ObjectChange> changes = queue_.take();
  note_changes(changes);
  if (synced_) {
    if (!changes.empty()) cache.apply_changes(changes);
    return std::nullopt;
  }
  for (cache::ObjectChange& c : changes) initial_.push_back(std::move(c));
  std::vector<std::string> missing;
  for (const api::Resource& r : api::resources())
    if (watches(r) && !listed.contains(std::string(r.plural))) missing.emplace_back(r.plural);
  const auto waiting = [&] {
    return "waiting for the first list of " + join(missing, ", ") + " from the API server";
  };
  // Pods wait for what they name; once the rest is in, they go to the cache
  // as their pages arrive, while later pages are still being read.
  if (!missing.empty() && !(missing.size() == 1 && missing[0] == "pods")) return waiting();
  if (ingested_ == 0) cache.set_scheduler_names(options_.scheduler_names);
  // The cache's load order (what is named before what names it), arrival
  // order kept within a kind.
  const auto rank = [](cache::Kind k) {
    switch (k) {
      case cache::Kind::Namespace:
      case cache::Kind::Node:
      case cache::Kind::PodDisruptionBudget:
      case cache::Kind::ResourceQuota:
      case cache::Kind::Numatopology:
      case cache::Kind::HyperNode:
      case cache::Kind::PersistentVolume:
      case cache::Kind::PersistentVolumeClaim:
      case cache::Kind::StorageClass:
      case cache::Kind::CSINode:
      case cache::Kind::CSIDriver:
      case cache::Kind::CSIStorageCapacity:
      case cache::Kind::DeviceClass:
      case cache::Kind::ResourceSlice:
      case cache::Kind::ResourceClaim:
      case cache::Kind::ResourceClaimTemplate:
      case cache::Kind::NodeShard:
        return 0;
      case cache::Kind::Queue:
        return 1;
      case cache::Kind::PriorityClass:
        return 2;
      case cache::Kind::PodGroup:
        return 3;
      case cache::Kind::Pod:
        return 4;
    }
    return 5;
  };
  std::stable_sort(initial_.begin(), initial_.end(),
                   [&](const auto& a, const auto& b) { return rank(a.kind) < rank(b.kind); });
  ingested_ += initial_.size();
  cache.apply_changes(initial_);
  initial_.clear();
  if (!missing.empty()) return waiting();
  synced_ = true;
  log::write(log::kInfo, kKubernetesLog,
             "cache synced: " + std::to_string(ingested_) + " objects in " +
                 std::to_string(
                     std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started_)
                         .count()) +
                 "ms");
  return std::nullopt;
}

std::vector<double> KubeCluster::record(const cycle::Outcome& outcome, cache::ClusterCache& cache) {
  std::vector<WriteOp> ops;
  // Volcano's scheduler makes the queues root and default when it starts
  // (newDefaultAndRootQueue); here with the first writes a leader sends.
  if (!queues_made_) {
    queues_made_ = true;
    for (json& queue : api::builtin_queues()) {
      std::string name = queue["metadata"]["name"];
      ops.push_back({WriteOp::Type::EnsureQueue, std::move(name), {}, std::move(queue)});
    }
  }
  std::vector<double> latencies;
  const Clock::time_point now = Clock::now();
  for (const auto& bind : outcome.binds) {
    assumed_[bind.pod] = Assumed{bind.node, now, false};
    if (const auto it = seen_at_.find(bind.pod); it != seen_at_.end()) {
      latencies.push_back(std::chrono::duration<double, std::milli>(now - it->second).count());
      seen_at_.erase(it);
    }
    ops.push_back({WriteOp::Type::Bind,
                   bind.pod,
                   bind.node,
                   {},
                   bind.annotations,
                   bind.volumes,
                   bind.claims,
                   bind.claims.empty() ? std::string() : cache.uid_of(cache::Kind::Pod, bind.pod)});
  }
  for (const auto& pod : outcome.evictions) ops.push_back({WriteOp::Type::Evict, pod, {}, {}});
  for (const auto& pod : outcome.ungated) ops.push_back({WriteOp::Type::LiftGate, pod, {}, {}});
  api::DecisionReport report = reports_.report(
      outcome, cache.dims(), std::chrono::system_clock::now(),
      [&cache](std::string_view kind, const std::string& key) {
        return cache.uid_of(kind == "Pod" ? cache::Kind::Pod : cache::Kind::PodGroup, key);
      });
  for (auto& [key, status] : report.pod_group_statuses) {
    const model::PodGroup* group = cache.pod_group(key);
    const bool native = group != nullptr && group->native;
    ops.push_back({native ? WriteOp::Type::NativeGroupStatus : WriteOp::Type::PodGroupStatus,
                   key,
                   {},
                   std::move(status)});
  }
  for (auto& [name, allocated] : report.queue_statuses)
    ops.push_back(
        {WriteOp::Type::QueueStatus, name, {}, json{{"allocated", std::move(allocated)}}});
  if (auto shard = shard_report_.after_session(cache.sharding(), cache.own_shard() != nullptr,
                                               cache.shard_status_due()))
    ops.push_back({WriteOp::Type::NodeShardStatus, cache.sharding().name, {}, std::move(*shard)});
  // What only reports waits behind what changes the cluster.
  std::vector<WriteOp> background;
  for (auto& [pod, condition] : report.pod_conditions)
    background.push_back({WriteOp::Type::PodCondition, pod, {}, std::move(condition)});
  for (json& event : report.events)
    background.push_back({WriteOp::Type::Event, {}, {}, std::move(event)});
  writer_->submit(std::move(ops));
  writer_->submit_background(std::move(background));
  cache.apply(outcome);
  return latencies;
}

const std::string* KubeCluster::unschedulable_reason(std::string_view podgroup) const {
  return reports_.unschedulable(std::string(podgroup));
}

}  // namespace scoria::kube
