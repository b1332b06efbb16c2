#include "cli/sharding_flags.h"

#include "decode/object_names.h"
#include "model/error.h"

namespace scoria::cli {

bool ShardingFlags::take(std::string_view flag, const std::function<std::string()>& value) {
  if (flag == "--scheduler-sharding-mode") {
    const std::string v = value();
    if (v == "none")
      mode_ = model::ShardingMode::None;
    else if (v == "hard")
      mode_ = model::ShardingMode::Hard;
    else if (v == "soft")
      mode_ = model::ShardingMode::Soft;
    else
      throw InputError("--scheduler-sharding-mode " + v +
                       ": use none (every node), hard (only the nodes of this instance's "
                       "NodeShard) or soft (its nodes first)");
    return true;
  }
  if (flag == "--scheduler-sharding-name" || flag == "--shard-name") {
    std::string v = value();
    if (auto why = decode::subdomain_error(v)) throw InputError(std::string(flag) + ": " + *why);
    name_ = std::move(v);
    shard_name_ = shard_name_ || flag == "--shard-name";
    return true;
  }
  return false;
}

model::Sharding ShardingFlags::sharding() const {
  model::Sharding out;
  if (name_) out.name = *name_;
  out.mode = mode_.value_or(shard_name_ ? model::ShardingMode::Hard : model::ShardingMode::None);
  return out;
}

}  // namespace scoria::cli
