#include "api/node_shard_report.h"

#include "log/log.h"

namespace scoria::api {

std::optional<nlohmann::json> NodeShardReport::after_session(
    const model::Sharding& sharding, bool exists,
    const std::optional<model::NodeShardStatus>& due) {
  if (sharding.mode == model::ShardingMode::None) return std::nullopt;
  if (existed_ != exists) {
    if (!exists)
      log::write(log::kWarning, "sharding",
                 "NodeShard " + sharding.name + " does not exist: no node is in this instance's " +
                     std::string(model::sharding_mode_name(sharding.mode)) +
                     " shard until it is created (kubectl get nodeshards)");
    else if (existed_)
      log::write(log::kInfo, "sharding", "NodeShard " + sharding.name + " exists again");
    existed_ = exists;
  }
  if (!due) {
    written_.reset();  // the shard shows it: a change by anyone else is put right
    return std::nullopt;
  }
  if (due == written_) return std::nullopt;
  written_ = due;
  return nlohmann::json{{"nodesInUse", due->nodes_in_use},
                        {"nodesToAdd", due->nodes_to_add},
                        {"nodesToRemove", due->nodes_to_remove}};
}

}  // namespace scoria::api
