// rfc3339.hpp — Kubernetes' time spelling, for plugins and the host alike.
//
// Object timestamps (creationTimestamp, a PodDisruptionBudget's
// disruptedPods, a pod's startTime) and times an adapter writes in
// annotations are RFC 3339, as Go's time.RFC3339 reads them. The host
// decodes objects with this function and plugins read annotations with the
// same one, so both sides agree on every spelling.
//
// Header-only, C++20, no plugin state: include it alone or through
// scoria.hpp.
#ifndef SCORIA_RFC3339_HPP
#define SCORIA_RFC3339_HPP

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace scoria {

/// YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM) as milliseconds since
/// the Unix epoch (a fraction beyond milliseconds is cut off); nullopt if
/// `s` is not one or names no real date.
inline std::optional<int64_t> parse_rfc3339(std::string_view s) {
  const auto digits = [&](size_t pos, size_t n, int& out) {
    if (pos + n > s.size()) return false;
    out = 0;
    for (size_t i = pos; i < pos + n; ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
      out = out * 10 + (s[i] - '0');
    }
    return true;
  };
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  if (s.size() < 20 || !digits(0, 4, y) || s[4] != '-' || !digits(5, 2, mo) || s[7] != '-' ||
      !digits(8, 2, d) || (s[10] != 'T' && s[10] != 't') || !digits(11, 2, h) || s[13] != ':' ||
      !digits(14, 2, mi) || s[16] != ':' || !digits(17, 2, sec))
    return std::nullopt;
  size_t pos = 19;
  int64_t millis = 0;
  if (s[pos] == '.') {
    size_t n = 0;
    for (++pos; pos < s.size() && s[pos] >= '0' && s[pos] <= '9'; ++pos, ++n)
      if (n < 3) millis = millis * 10 + (s[pos] - '0');
    if (n == 0) return std::nullopt;
    for (; n < 3; ++n) millis *= 10;
  }
  int64_t offset_min = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh = 0, om = 0;
    if (!digits(pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
        !digits(pos + 4, 2, om) || oh > 23 || om > 59)
      return std::nullopt;
    offset_min = (oh * 60 + om) * (s[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size() || h > 23 || mi > 59 || sec > 59) return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year{y}, std::chrono::month{unsigned(mo)},
                                         std::chrono::day{unsigned(d)}};
  if (!date.ok()) return std::nullopt;
  const int64_t days = std::chrono::sys_days(date).time_since_epoch().count();
  const int64_t seconds = days * 86400 + h * 3600 + mi * 60 + sec - offset_min * 60;
  return seconds * 1000 + millis;
}

}  // namespace scoria

#endif  // SCORIA_RFC3339_HPP
