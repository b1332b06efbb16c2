// Durations in Go's spelling, as Kubernetes' and Volcano's flags and plugin
// arguments write them.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace scoria::model {

/// A duration in Go's spelling (time.ParseDuration: "500ms", "1.5s",
/// "1h30m"), nullopt if it is not one. Negative durations parse.
std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view text);

}  // namespace scoria::model
