#include "cli/flag_values.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <utility>

#include "model/error.h"

namespace scoria::cli {

namespace {

// The leading digits of `value` and what follows them; false if none.
bool split_number(std::string_view value, uint64_t& number, std::string_view& unit) {
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (ec != std::errc() || end == value.data()) return false;
  unit = value.substr(static_cast<size_t>(end - value.data()));
  return true;
}

}  // namespace

std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view text) {
  // Go's time.ParseDuration: a sequence of decimal numbers, each with an
  // optional fraction and a unit (ns, us, µs, ms, s, m, h), as "1h30m" or
  // "1.5s"; a leading sign; "0" alone. Bounded by int64 nanoseconds.
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
           (std::isdigit(static_cast<unsigned char>(rest[digits])) || rest[digits] == '.'))
      ++digits;
    const std::string_view number = rest.substr(0, digits);
    if (number.empty() || number == "." || std::count(number.begin(), number.end(), '.') > 1)
      return std::nullopt;
    double value = 0, scale = 1;
    bool fraction = false;
    for (char c : number) {
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

std::chrono::milliseconds parse_duration(std::string_view flag, const std::string& value) {
  // A bare number is seconds (as before Go's spelling was taken).
  std::optional<std::chrono::nanoseconds> d;
  if (uint64_t n = 0;
      !value.empty() && value.find_first_not_of("0123456789") == std::string::npos &&
      std::from_chars(value.data(), value.data() + value.size(), n).ec == std::errc() &&
      n <= 86'400)
    d = std::chrono::seconds(n);
  else
    d = parse_go_duration(value);
  // A day at most: past that a timeout is a mistake, and no product overflows.
  const auto ms =
      d ? std::chrono::ceil<std::chrono::milliseconds>(*d) : std::chrono::milliseconds(0);
  if (!d || *d <= std::chrono::nanoseconds(0) || ms > std::chrono::hours(24))
    throw InputError(std::string(flag) + " " + value +
                     ": give a duration above zero in Go's spelling, such as 500ms, 10s, 2m or "
                     "1h30m (at most a day)");
  return ms;
}

uint64_t parse_count(std::string_view flag, const std::string& value, uint64_t min, uint64_t max,
                     bool sizes) {
  uint64_t n = 0;
  std::string_view unit;
  uint64_t scale = 0;
  if (split_number(value, n, unit)) {
    if (unit.empty()) scale = 1;
    if (sizes && unit == "Ki") scale = uint64_t{1} << 10;
    if (sizes && unit == "Mi") scale = uint64_t{1} << 20;
    if (sizes && unit == "Gi") scale = uint64_t{1} << 30;
  }
  if (scale == 0 || n > max / scale || n * scale < min || n * scale > max)
    throw InputError(std::string(flag) + " " + value + ": give a number from " +
                     std::to_string(min) + " to " + std::to_string(max) +
                     (sizes ? " (bytes; Ki, Mi and Gi suffixes work)" : ""));
  return n * scale;
}

}  // namespace scoria::cli
