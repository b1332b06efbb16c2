// The actions and plugins Volcano's scheduler registers (HEAD:
// pkg/scheduler/actions/factory.go and plugins/factory.go), so that a config
// naming one Scoria does not have is told so, not merely "unknown".
#pragma once

#include <algorithm>
#include <array>
#include <string_view>

namespace scoria::scheduler {

inline constexpr std::array<std::string_view, 8> kVolcanoActions = {
    "allocate",    "backfill", "enqueue", "gangpreempt",
    "gangreclaim", "preempt",  "reclaim", "shuffle"};

inline constexpr std::array<std::string_view, 24> kVolcanoPlugins = {"binpack",
                                                                     "capacity",
                                                                     "cdp",
                                                                     "conformance",
                                                                     "deviceshare",
                                                                     "drf",
                                                                     "extender",
                                                                     "gang",
                                                                     "network-topology-aware",
                                                                     "nodegroup",
                                                                     "nodeorder",
                                                                     "numa-aware",
                                                                     "overcommit",
                                                                     "pdb",
                                                                     "predicates",
                                                                     "priority",
                                                                     "proportion",
                                                                     "rescheduling",
                                                                     "resource-strategy-fit",
                                                                     "resourcequota",
                                                                     "sla",
                                                                     "task-topology",
                                                                     "tdm",
                                                                     "usage"};

inline bool is_volcano_action(std::string_view name) {
  return std::find(kVolcanoActions.begin(), kVolcanoActions.end(), name) != kVolcanoActions.end();
}
inline bool is_volcano_plugin(std::string_view name) {
  return std::find(kVolcanoPlugins.begin(), kVolcanoPlugins.end(), name) != kVolcanoPlugins.end();
}

}  // namespace scoria::scheduler
