// A job's task topology as its PodGroup's annotations give it (Volcano's
// task-topology readTopologyFromPgAnnotations): which task roles want to
// share nodes, which want to avoid each other, and which roles go first.
// Free of the SDK so that Volcano's parsing cases can be tested alone.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace scoria_task_topology {

inline constexpr std::string_view kAffinityKey = "volcano.sh/task-topology-affinity";
inline constexpr std::string_view kAntiAffinityKey = "volcano.sh/task-topology-anti-affinity";
inline constexpr std::string_view kTaskOrderKey = "volcano.sh/task-topology-task-order";

// The annotations as written: groups separated by ';', roles within a group
// by ','. Kept exactly as Volcano splits them (no trimming; an empty item
// stays, and is ignored where roles are used).
struct Topology {
  std::vector<std::vector<std::string>> affinity;
  std::vector<std::vector<std::string>> anti_affinity;
  std::vector<std::string> task_order;  // the first role goes first

  bool operator==(const Topology&) const = default;
};

// The three annotations of one PodGroup; nullopt where it has none.
struct Annotations {
  std::optional<std::string_view> affinity;
  std::optional<std::string_view> anti_affinity;
  std::optional<std::string_view> task_order;
};

// What reading the annotations gave: no topology (none of the annotations is
// set), a topology, or the reason they are malformed (`error` not empty).
struct ReadResult {
  std::optional<Topology> topology;
  std::string error;
};

// Reads the annotations of a job whose tasks have the roles `roles` (each
// task's volcano.sh/task-spec, annotation else label; any order, repeats
// allowed). As Volcano: every non-empty role named must be a role of the
// job and may appear once per group (once in the task order); the first
// problem, in the order affinity, anti-affinity, task order, is the error.
ReadResult read_topology(const Annotations& annotations, std::span<const std::string_view> roles);

}  // namespace scoria_task_topology
