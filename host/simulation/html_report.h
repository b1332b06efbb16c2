// simulate --report FILE.html: one self-contained page (inline SVG and CSS;
// no script, no font or file from the network) with a run's charts:
// utilisation per resource over time, each queue's allocated share against
// its deserved one, wait-time CDFs per queue, a node × time occupancy heat
// map, and the summary. With two configs the charts overlay them (the
// first solid, the second dashed) and the summary compares them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace scoria::simulation {

/// The page for `runs` (simulate's output per config; timed runs carry
/// "metrics"), made under the names `configs`.
std::string html_report(const std::vector<std::string>& configs,
                        const std::vector<nlohmann::ordered_json>& runs);

/// Writes html_report() to `path`; throws InputError naming the file when
/// it cannot be written.
void write_report(const std::string& path, const std::vector<std::string>& configs,
                  const std::vector<nlohmann::ordered_json>& runs);

}  // namespace scoria::simulation
