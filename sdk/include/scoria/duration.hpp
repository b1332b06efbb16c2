// duration.hpp — Go's duration spelling, for plugins and the host alike.
//
// Volcano's arguments and annotations write durations as Go's
// time.ParseDuration reads them ("500ms", "1.5s", "1h30m"): the host checks
// a declared SCORIA_ARG_DURATION argument with this function, and a plugin
// reading a duration from an annotation (sla-waiting-time, cooldown-time)
// parses it with the same one, so both sides agree on every spelling.
//
// Header-only, C++20, no plugin state: include it alone or through
// scoria.hpp.
#ifndef SCORIA_DURATION_HPP
#define SCORIA_DURATION_HPP

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

namespace scoria {

/// A duration in Go's spelling: a sequence of decimal numbers, each with an
/// optional fraction and a unit (ns, us, µs, ms, s, m, h), as "1h30m" or
/// "1.5s"; a leading sign; "0" alone. nullopt if `text` is not one or does
/// not fit int64 nanoseconds. Negative durations parse: a caller that wants
/// a positive one says so itself.
inline std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view text) {
  static constexpr std::pair<std::string_view, double> kUnits[] = {
      {"ns", 1.0}, {"us", 1e3}, {"\u00b5s", 1e3}, {"\u03bcs", 1e3},
      {"ms", 1e6}, {"s", 1e9},  {"m", 60e9},      {"h", 3600e9}};
  std::string_view rest = text;
  bool negative = false;
  if (!rest.empty() && (rest.front() == '-' || rest.front() == '+')) {
    negative = rest.front() == '-';
    rest.remove_prefix(1);
  }
  if (rest == "0") return std::chrono::nanoseconds(0);
  if (rest.empty()) return std::nullopt;
  double total = 0;
  while (!rest.empty()) {
    size_t digits = 0;
    while (digits < rest.size() &&
           ((rest[digits] >= '0' && rest[digits] <= '9') || rest[digits] == '.'))
      ++digits;
    const std::string_view number = rest.substr(0, digits);
    if (number.empty() || number == "." || std::count(number.begin(), number.end(), '.') > 1)
      return std::nullopt;
    double value = 0, scale = 1;
    bool fraction = false;
    for (const char c : number) {
      if (c == '.') {
        fraction = true;
        continue;
      }
      if (fraction) scale /= 10;
      value = fraction ? value + (c - '0') * scale : value * 10 + (c - '0');
    }
    rest.remove_prefix(digits);
    double unit = 0;
    size_t unit_size = 0;
    for (const auto& [name, factor] : kUnits)
      if (rest.starts_with(name) && name.size() > unit_size) {
        unit = factor;
        unit_size = name.size();
      }
    if (unit_size == 0) return std::nullopt;  // Go requires a unit after every number
    rest.remove_prefix(unit_size);
    total += value * unit;
    if (total > 9.2e18) return std::nullopt;
  }
  return std::chrono::nanoseconds(static_cast<int64_t>(negative ? -total : total));
}

}  // namespace scoria

#endif  // SCORIA_DURATION_HPP
