// Node shards (Volcano 1.14): several scheduler instances split one
// cluster's nodes, each told the name of its shard.volcano.sh/v1alpha1
// NodeShard. An instance's working set is its shard's spec.nodesDesired
// less every node another shard reports in status.nodesInUse, so two
// instances never share a node while a shard moves; it reports that set
// back as its own nodesInUse. Pods are not split: every instance sees every
// pod, and a pod bound by one is bound for all.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace scoria::model {

struct NodeShardStatus {
  std::vector<std::string> nodes_in_use;
  std::vector<std::string> nodes_to_add;
  std::vector<std::string> nodes_to_remove;

  bool operator==(const NodeShardStatus&) const = default;
};

struct NodeShard {
  std::string name;
  std::vector<std::string> nodes_desired;  // spec.nodesDesired, sorted, unique
  NodeShardStatus status;                  // each list sorted, unique

  const std::string& key() const { return name; }
};

/// Volcano's --scheduler-sharding-mode.
enum class ShardingMode : uint8_t {
  None,  // every node (the default)
  Hard,  // only the working set; other nodes fail with kNotInShard
  Soft,  // the working set first, other nodes where it has no room
};

/// "none", "hard", "soft".
constexpr std::string_view sharding_mode_name(ShardingMode mode) {
  return mode == ShardingMode::Hard ? "hard" : mode == ShardingMode::Soft ? "soft" : "none";
}

/// How this instance shards (the serve and simulate flags).
struct Sharding {
  ShardingMode mode = ShardingMode::None;
  std::string name = "volcano";  // --scheduler-sharding-name

  bool operator==(const Sharding&) const = default;
};

/// Why a hard shard refuses a node outside it, in Volcano's words.
inline constexpr std::string_view kNotInShard = "node isn't in scheduler node shard";

}  // namespace scoria::model
