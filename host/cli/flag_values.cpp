#include "cli/flag_values.h"

#include <charconv>

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

std::chrono::milliseconds parse_duration(std::string_view flag, const std::string& value) {
  uint64_t n = 0;
  std::string_view unit;
  uint64_t scale = 0;
  if (split_number(value, n, unit)) {
    if (unit == "ms") scale = 1;
    if (unit == "s" || unit.empty()) scale = 1000;
    if (unit == "m") scale = 60'000;
  }
  // A day at most: past that a timeout is a mistake, and no product overflows.
  if (scale == 0 || n == 0 || n > 86'400'000 / scale)
    throw InputError(std::string(flag) + " " + value +
                     ": give a duration above zero such as 500ms, 10s or 2m (at most a day)");
  return std::chrono::milliseconds(static_cast<int64_t>(n * scale));
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
