// The scheduler cache: the cluster's objects as the cluster source last
// reported them, with everything a session needs resolved once at ingest
// (resource vectors, dimension ids, priorities, ABI string views). A session
// snapshot points into it instead of copying it.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/objects.h"
#include "session/session.h"

namespace scoria::cache {

class ClusterCache {
 public:
  /// Replaces the whole cluster with `objects` (the file and simulate
  /// sources). Objects must be complete (source::complete_objects).
  void reset(model::ClusterObjects objects);

  /// The input of the next session. Valid until the cache changes.
  session::Snapshot snapshot() const;

  /// Applies what a session decided: binds place pods on their nodes,
  /// evictions remove pods, PodGroups take their new phase.
  void apply(const session::Outcome& outcome);

  const std::vector<std::string>& dims() const { return dims_; }
  uint64_t generation() const { return generation_; }
  size_t node_count() const { return nodes_.size(); }
  size_t pod_count() const { return pods_.size(); }

 private:
  struct PodEntry {
    model::Pod pod;
    session::TaskViews views;
    std::vector<double> resreq, init_resreq;
    uint32_t status = 0;
    int32_t node = -1;
    bool gone = false;
  };
  struct GroupEntry {
    model::PodGroup group;
    model::PodGroupPhase phase = model::PodGroupPhase::Pending;
    std::vector<double> min_resources;
    std::vector<size_t> pods;
    int32_t queue = -1;
    int32_t priority = 0;
  };
  struct NodeEntry {
    model::Node node;
    std::vector<double> allocatable;
  };
  struct QueueEntry {
    model::Queue queue;
    std::vector<double> capability, deserved, guarantee;
  };

  std::vector<double> vectorize(const model::ResourceList& list, double absent) const;

  std::vector<std::string> dims_;
  std::unordered_map<std::string, size_t> dim_index_;
  // Deques: entries never move, so sessions may point at them.
  std::deque<NodeEntry> nodes_;
  std::deque<QueueEntry> queues_;
  std::deque<GroupEntry> groups_;
  std::deque<PodEntry> pods_;
  std::unordered_map<std::string, size_t> node_index_, pod_index_, group_index_;
  uint64_t generation_ = 0;
};

}  // namespace scoria::cache
