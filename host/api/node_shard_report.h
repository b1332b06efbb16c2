// What a session's end reports of this instance's NodeShard, whichever
// source writes it: its status once it changed (Volcano's scheduler writes
// nodesInUse, nodesToAdd and nodesToRemove, and nothing while they hold),
// and a line when the shard goes missing or comes back.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "model/node_shard.h"

namespace scoria::api {

class NodeShardReport {
 public:
  /// The status fields to write now, or nullopt. `exists`: whether the
  /// instance's NodeShard does; `due`: ClusterCache::shard_status_due().
  /// A status is written once, not again while the same one is due (the
  /// write may still be on its way back through the watch); once the shard
  /// shows it, a later difference is written again.
  std::optional<nlohmann::json> after_session(const model::Sharding& sharding, bool exists,
                                              const std::optional<model::NodeShardStatus>& due);

 private:
  std::optional<bool> existed_;
  std::optional<model::NodeShardStatus> written_;
};

}  // namespace scoria::api
