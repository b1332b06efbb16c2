// The cache as a JSON document (SIGUSR2), as Volcano's cache dumper writes
// it: nodes with allocatable, used and idle resources; jobs with their
// queue, phase and task count per status; queues with what they hold and
// deserve after the last session.
#pragma once

#include <nlohmann/json.hpp>

#include "cycle/outcome.h"
#include "cycle/snapshot.h"

namespace scoria::serve {

nlohmann::json dump_cache(const cycle::Snapshot& snapshot, const cycle::Outcome& last);

/// Resource amounts by dimension name, as Kubernetes quantities' numbers
/// (millicores for cpu, bytes for memory).
nlohmann::json amounts(const std::vector<std::string>& dims, std::span<const double> values);

}  // namespace scoria::serve
