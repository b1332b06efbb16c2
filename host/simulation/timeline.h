// The time a simulated run is driven by (DESIGN.md section 4): when each
// object arrives, how long each pod runs once bound, and what happens to
// nodes along the way, read from the objects' annotations.
//
//   scoria.io/arrival   Pod, PodGroup, Node: seconds from the start of the
//                       run (else metadata.creationTimestamp for pods and
//                       PodGroups; a pod without either takes its
//                       PodGroup's arrival).
//   scoria.io/duration  Pod (else its PodGroup's): seconds it runs once
//                       bound, then it succeeds. Without it a pod runs on.
//   scoria.io/removal   Node: seconds; the node leaves the cluster.
//   scoria.io/cordon    Node: seconds; the node becomes unschedulable.
//   scoria.io/uncordon  Node: seconds; it becomes schedulable again.
//
// A cluster with none of these annotations is not timed, and `simulate`
// runs it as it always has.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/cluster_objects.h"
#include "model/objects.h"

namespace scoria::simulation {

inline constexpr std::string_view kArrival = "scoria.io/arrival";
inline constexpr std::string_view kDuration = "scoria.io/duration";
inline constexpr std::string_view kRemoval = "scoria.io/removal";
inline constexpr std::string_view kCordon = "scoria.io/cordon";
inline constexpr std::string_view kUncordon = "scoria.io/uncordon";

/// What happens to a node at a time.
enum class NodeEventType { Arrive, Remove, Cordon, Uncordon };

struct Timeline {
  /// The run's time zero, ms since the epoch.
  int64_t start_ms = 0;
  /// Everything present at time zero, complete (source::complete_objects).
  model::ClusterObjects initial;
  /// PodGroups and pods that arrive later, in the files' order.
  std::vector<model::PodGroup> later_groups;
  std::vector<model::Pod> later_pods;
  /// Their arrivals (ms from start), in arrival order (ties keep the files'
  /// order, PodGroups before pods): a small entry each, so that ordering
  /// them moves no object.
  struct Later {
    int64_t at_ms;
    bool is_pod;  // later_pods[index], else later_groups[index]
    uint32_t index;
  };
  std::vector<Later> later;
  struct NodeEvent {
    int64_t at_ms;
    NodeEventType type;
    std::string node;
    std::optional<model::Node> spec;  // Arrive only
  };
  /// In time order (ties: arrivals, removals, cordons, uncordons, by name).
  std::vector<NodeEvent> node_events;
  /// Pod key ("ns/name") → how long it runs once bound (ms); absent: on.
  std::unordered_map<std::string, int64_t> duration_ms;
  /// Pod key → its arrival (ms from start), for every pod, present or later.
  std::unordered_map<std::string, int64_t> arrival_ms;
};

/// True when any object carries a time annotation.
bool is_timed(const model::ClusterObjects& objects);

/// Splits `objects` (complete) by time. `now_ms` is --now; without it the
/// run starts at the earliest creationTimestamp of a pod or PodGroup, or,
/// when none has one, at the Unix epoch: never at the wall clock, so that
/// the output depends on the input alone. Throws InputError naming the object
/// and the annotation when a value is not a number of seconds, or is
/// negative.
Timeline make_timeline(model::ClusterObjects objects, std::optional<int64_t> now_ms);

/// Seconds as an annotation gives them ("90", "1.5"), in ms; nullopt when
/// the text is not a finite number. Negative values come back negative.
std::optional<int64_t> parse_seconds(std::string_view text);

}  // namespace scoria::simulation
