// Two configs over the same input, side by side (simulate --config A
// --config B): each metric of the runs' summaries, and which config did
// better on it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace scoria::simulation {

/// {"configs": [...], "runs": [...], "comparison": [{"metric", "better",
/// "values": [a, b], "winner": config or null}]}. Timed runs compare their
/// metrics' summaries; frozen ones their decisions (pods bound, pipelined,
/// evicted; PodGroups left unschedulable).
nlohmann::ordered_json compare_runs(const std::vector<std::string>& configs,
                                    std::vector<nlohmann::ordered_json> runs);

/// The comparison as a table: one row per metric, a column per config and
/// which is better.
std::string comparison_table(const nlohmann::ordered_json& compared);

/// A timed run's metrics summary as a table, and its queues' waits.
std::string metrics_table(const nlohmann::ordered_json& metrics);

}  // namespace scoria::simulation
