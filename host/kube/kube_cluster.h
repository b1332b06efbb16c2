// The `kubernetes` cluster source: a real cluster's Nodes, Pods, PodGroups,
// Queues, PriorityClasses and every other kind api/resources.h marks
// scheduled (policy, topology, storage, devices) through informers (one
// reflector each), fed to the cache as changes, never a rebuild; what
// sessions decide is written back asynchronously (kube/writer.h); with
// leader election, only the leader schedules and writes. A group the server
// does not serve (Volcano's optional CRDs, resource.k8s.io/v1 before
// Kubernetes 1.34) is said once and taken as holding no objects.
//
// Binds are assumed, as kube-scheduler assumes pods: from the session that
// binds a pod until the server's copy shows it bound (or the bind fails),
// the cache keeps it on its node even if an older copy of the pod arrives
// from the watch meanwhile, so that no later session places it twice.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/decision_reports.h"
#include "api/node_shard_report.h"
#include "cache/cluster_source.h"
#include "kube/api_client.h"
#include "kube/change_queue.h"
#include "kube/leader_elector.h"
#include "kube/reflector.h"
#include "kube/writer.h"

namespace scoria::kube {

struct KubeSourceOptions {
  ClientConfig client;
  double qps = 2000;  // Volcano's --kube-api-qps and --kube-api-burst defaults
  double burst = 2000;
  std::vector<std::string> scheduler_names{"volcano"};
  bool leader_elect = false;
  LeaderElectionOptions election;
  size_t write_workers = 16;
  ReflectorOptions reflector;
  // Watches shard.volcano.sh NodeShards (an instance with a shard).
  bool node_shards = false;
};

struct KubeSourceStatus {
  bool synced = false;
  bool leading = false;
  std::string identity, holder;
  size_t write_backlog = 0;
  WriterStats writes;
};

class KubeCluster : public cache::ClusterSource {
 public:
  /// Throws InputError when the client config cannot be used (its
  /// certificates do not load).
  explicit KubeCluster(KubeSourceOptions options);
  ~KubeCluster() override;

  /// Starts the informers, the writers and the election.
  void start();
  void stop();

  std::optional<std::string> refresh(cache::ClusterCache& cache) override;
  /// Whether `r` is listed and watched: a kind the scheduler reads, and
  /// NodeShards only with `node_shards`.
  bool watches(const api::Resource& r) const;
  std::vector<double> record(const cycle::Outcome& outcome, cache::ClusterCache& cache) override;
  bool may_schedule() const override;
  const std::string* unschedulable_reason(std::string_view podgroup) const override;

  const std::vector<std::string>& scheduler_names() const { return options_.scheduler_names; }
  KubeSourceStatus status() const;
  /// The PreBind and Bind times of the binds written since the last call.
  BindStageTimes take_bind_stage_times() { return writer_->take_stage_times(); }
  /// The Lease leader election holds ("" without election).
  std::string lease_name() const {
    return elector_ ? options_.election.lease_namespace + "/" + options_.election.lease_name : "";
  }

 private:
  struct Assumed {
    std::string node;
    std::chrono::steady_clock::time_point since;
    bool written = false;  // the server acknowledged the bind
  };
  void settle_binds(cache::ClusterCache& cache);
  void note_changes(std::vector<cache::ObjectChange>& changes);

  KubeSourceOptions options_;
  ApiClient client_;
  ChangeQueue queue_;
  Absences absences_;  // the reflectors', said once per group
  std::vector<std::unique_ptr<Reflector>> reflectors_;
  std::unique_ptr<LeaderElector> elector_;
  std::atomic<bool> always_{true};  // "leading" without election
  std::unique_ptr<Writer> writer_;
  bool synced_ = false;
  bool queues_made_ = false;                  // root and default asked for (see record())
  std::vector<cache::ObjectChange> initial_;  // waiting for the first lists
  size_t ingested_ = 0;                       // objects the cache took before it synced
  std::chrono::steady_clock::time_point started_;
  std::unordered_map<std::string, Assumed> assumed_;
  // When each pending pod of ours was first seen, by key.
  std::unordered_map<std::string, std::chrono::steady_clock::time_point> seen_at_;
  // Events, conditions and statuses to write, reported when they change.
  api::DecisionReports reports_;
  api::NodeShardReport shard_report_;
};

}  // namespace scoria::kube
