// Values of command-line flags that are not plain strings: durations in
// Go's spelling (as Kubernetes and Volcano flags take them) and counts.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace scoria::cli {

/// A duration in Go's spelling, or a bare number of seconds; above zero, at
/// most a day, rounded up to milliseconds. Throws InputError naming `flag`.
std::chrono::milliseconds parse_duration(std::string_view flag, const std::string& value);

/// A whole number from `min` to `max`, optionally with a binary suffix
/// (Ki, Mi, Gi) when `sizes`. Throws InputError naming `flag`.
uint64_t parse_count(std::string_view flag, const std::string& value, uint64_t min, uint64_t max,
                     bool sizes = false);

}  // namespace scoria::cli
