// An explanation of one task's placement (cycle/explanation.h) as JSON and
// as a table, the same for `scoria simulate --explain` and the service.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "cycle/explanation.h"

namespace scoria::scheduler {

nlohmann::ordered_json explanation_json(const cycle::Explanation& x);

/// Lines a person reads: the task, what examined it and how it ended, then
/// one row per node with its predicate failures, each plugin's score, the
/// total and why it won or lost.
/// Rendered from the JSON, so that a client (`scoria ctl explain`) shows
/// the service's answer the way `scoria simulate --explain` does.
std::string explanation_table(const nlohmann::ordered_json& x);

}  // namespace scoria::scheduler
