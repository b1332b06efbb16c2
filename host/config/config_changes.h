// What a config reload changes, in words for the reload's log line:
// actions, plugins added, removed or moved between tiers, their enable flags
// and arguments, the actions' arguments and the session settings.
#pragma once

#include <string>

#include "config/scheduler_config.h"

namespace scoria::config {

/// "actions enqueue, allocate -> enqueue, allocate, backfill; plugin binpack
/// added (tier 2); binpack.weight 1 -> 10" and so on, "; "-separated, in
/// config order; "nothing changed" when the two mean the same.
std::string describe_changes(const SchedulerConfig& before, const SchedulerConfig& after);

}  // namespace scoria::config
