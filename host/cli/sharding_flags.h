// The node-shard flags serve and simulate share: Volcano's
// --scheduler-sharding-mode and --scheduler-sharding-name, and Scoria's
// --shard-name, which alone means hard mode (a shard named is a shard kept
// to). Volcano's name alone changes nothing, as in Volcano.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "model/node_shard.h"

namespace scoria::cli {

class ShardingFlags {
 public:
  /// Takes `flag` if it is one of these, reading its value through
  /// `value`; false if it is not. Throws InputError on a bad mode.
  bool take(std::string_view flag, const std::function<std::string()>& value);
  /// What the flags given say.
  model::Sharding sharding() const;

 private:
  std::optional<model::ShardingMode> mode_;
  std::optional<std::string> name_;
  bool shard_name_ = false;  // given as --shard-name
};

}  // namespace scoria::cli
