#include "cli/flag_values.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <utility>

#include "model/error.h"
#include "model/go_duration.h"

namespace scoria::cli {

using model::parse_go_duration;

namespace {

// The leading digits of `value` and what follows them; false if none.
bool split_number(std::string_view value, uint64_t& number, std::string_view& unit) {
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (ec != std::errc() || end == value.data()) return false;
  unit = value.substr(static_cast<size_t>(end - value.data()));
  return true;
}

}  // namespace

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
