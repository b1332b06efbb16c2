// This instance's node shard: its working set, which nodes of a snapshot
// are in it, and the status its NodeShard should show (Volcano's
// shard_coordinator.go).
#include <algorithm>
#include <iterator>

#include "cache/cluster_cache.h"

namespace scoria::cache {

void ClusterCache::set_sharding(model::Sharding sharding) {
  if (sharding == sharding_) return;
  sharding_ = std::move(sharding);
  ++header_version_;
}

const model::NodeShard* ClusterCache::own_shard() const {
  if (sharding_.mode == model::ShardingMode::None) return nullptr;
  const auto it = node_shards_.find(sharding_.name);
  return it == node_shards_.end() ? nullptr : &it->second;
}

const std::vector<std::string>& ClusterCache::shard_working_set() const {
  if (working_set_version_ == header_version_) return working_set_;
  working_set_version_ = header_version_;
  working_set_.clear();
  const model::NodeShard* own = own_shard();
  if (own == nullptr) return working_set_;
  std::vector<std::string> taken;
  for (const auto& [name, shard] : node_shards_)
    if (name != own->name)
      taken.insert(taken.end(), shard.status.nodes_in_use.begin(), shard.status.nodes_in_use.end());
  std::sort(taken.begin(), taken.end());
  std::set_difference(own->nodes_desired.begin(), own->nodes_desired.end(), taken.begin(),
                      taken.end(), std::back_inserter(working_set_));
  return working_set_;
}

void ClusterCache::shard_header(cycle::Snapshot& s) const {
  s.sharding = sharding_.mode;
  s.in_shard.clear();
  if (sharding_.mode == model::ShardingMode::None) return;
  const std::vector<std::string>& working = shard_working_set();
  s.in_shard.reserve(s.nodes.size());
  for (const cycle::Snapshot::NodeIn& n : s.nodes)
    s.in_shard.push_back(std::binary_search(working.begin(), working.end(), n.spec->name) ? 1 : 0);
}

std::optional<model::NodeShardStatus> ClusterCache::shard_status_due() const {
  const model::NodeShard* own = own_shard();
  if (own == nullptr) return std::nullopt;
  model::NodeShardStatus due;
  due.nodes_in_use = shard_working_set();
  const auto& desired = own->nodes_desired;
  const auto& in_use = due.nodes_in_use;
  std::set_difference(in_use.begin(), in_use.end(), desired.begin(), desired.end(),
                      std::back_inserter(due.nodes_to_remove));
  std::set_difference(desired.begin(), desired.end(), in_use.begin(), in_use.end(),
                      std::back_inserter(due.nodes_to_add));
  if (due == own->status) return std::nullopt;
  return due;
}

}  // namespace scoria::cache
