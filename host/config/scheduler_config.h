// The scheduler configuration: which actions run, in which order, and which
// plugins sit in which tier with which enable flags and arguments. Read from
// TOML (native) or from Volcano's YAML scheduler config, unchanged.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/node_shard.h"

namespace scoria::config {

/// A plugin's or action's `arguments`: flat keys ("binpack.weight") mapped
/// to their text as written ("10", "true", "0.5", "nvidia.com/gpu").
using Arguments = std::map<std::string, std::string, std::less<>>;

/// Where each argument was written, by its flat key, for messages about it:
/// "conf.yaml: line 10, column 30: tiers[1].plugins[1].arguments[binpack.weight]".
using ArgumentPlaces = std::map<std::string, std::string, std::less<>>;

/// Volcano's per-plugin enable flags. A flag left out means enabled, except
/// Hierarchy and ClusterOrder (see PluginOption::enabled).
enum class Flag : uint32_t {
  JobOrder,
  QueueOrder,
  TaskOrder,
  ClusterOrder,
  Predicate,
  BestNode,
  NodeOrder,
  JobReady,
  JobPipelined,
  JobEnqueued,
  JobStarving,
  Preemptable,
  Reclaimable,
  Preemptive,
  Overused,
  Allocatable,
  Victim,
  Hierarchy,
  TargetJob,
  ReservedNodes,
  HyperNodeOrder,
  SubJobReady,
  SubJobPipelined,
  SubJobOrder,
  HyperNodeGradient,
  Count
};
inline constexpr size_t kFlagCount = static_cast<size_t>(Flag::Count);

/// The config key of a flag without prefix, e.g. "JobOrder"; both the
/// "enable" and "enabled" spellings are accepted in front of it.
std::string_view flag_name(Flag f);

struct PluginOption {
  std::string name;
  /// Explicit settings; std::nullopt where the config left the flag out.
  std::array<std::optional<bool>, kFlagCount> flags{};
  Arguments arguments;
  /// Where the plugin and each of its arguments were written (messages).
  std::string place;
  ArgumentPlaces argument_places;

  /// Whether hook `f` is on: as set, else Volcano's default — on, except
  /// hierarchy and cluster order, which must be asked for.
  bool enabled(Flag f) const {
    auto v = flags[static_cast<size_t>(f)];
    if (v.has_value()) return *v;
    return f != Flag::Hierarchy && f != Flag::ClusterOrder;
  }
};

struct Tier {
  std::vector<PluginOption> plugins;
};

struct SchedulerConfig {
  std::vector<std::string> actions;
  std::vector<Tier> tiers;
  /// Per-action arguments (Volcano's `configurations`), by action name.
  std::map<std::string, Arguments, std::less<>> action_arguments;
  /// Where each action was named (parallel to `actions`) and where each
  /// action's arguments were written, for messages.
  std::vector<std::string> action_places;
  std::map<std::string, ArgumentPlaces, std::less<>> action_argument_places;
  /// Extra plugin directories named in the config (searched before the
  /// built-in directory).
  std::vector<std::filesystem::path> plugin_dirs;
  /// Session period in milliseconds (`schedule_period`, default 1000).
  int64_t schedule_period_ms = 1000;

  /// How many feasible nodes a predicate search looks for before it stops
  /// (Volcano's --minimum-feasible-nodes, --minimum-percentage-nodes-to-find
  /// and --percentage-nodes-to-find). Percentage 0 means adaptive:
  /// 50% minus 1% per 125 nodes, never below the minimum percentage.
  int32_t min_nodes_to_find = 100;
  int32_t min_percentage_of_nodes_to_find = 5;
  int32_t percentage_of_nodes_to_find = 0;

  /// `equivalence_cache`: tasks of one equivalence class share the answers
  /// of the predicates and scores their plugins declare cacheable (ABI 1.7
  /// on_cache_policy), each node's asked again only once it changed. The
  /// decisions are the same either way; false runs every task through every
  /// hook and writes each session's snapshot whole instead of bringing the
  /// cache's kept one up to date (the plain path, for comparing).
  bool equivalence_cache = true;

  /// Node shards (model/node_shard.h): Volcano's --scheduler-sharding-mode
  /// and --scheduler-sharding-name, set by the command line, not the file.
  model::Sharding sharding;

  /// Volcano's SchedulingGatesQueueAdmission feature gate (--feature-gates):
  /// pods opting in with the scheduling.volcano.sh/queue-allocation-gate
  /// annotation wait behind that scheduling gate until their queue has room.
  /// Set by the command line, not the file.
  bool queue_admission_gates = false;
};

/// Volcano's CalculateNumOfFeasibleNodesToFind for `nodes` nodes.
size_t feasible_nodes_to_find(const SchedulerConfig& config, size_t nodes);

/// Parses a config from text. `file_name` is used in messages; the format
/// is chosen by extension (.toml, .yaml/.yml/.json) and, failing that, by
/// content. Throws InputError naming the file, the place and the fix.
SchedulerConfig parse_config(std::string_view text, const std::string& file_name);

/// Reads and parses a config file. Throws InputError.
SchedulerConfig load_config(const std::filesystem::path& file);

}  // namespace scoria::config
