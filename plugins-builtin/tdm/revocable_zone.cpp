#include "revocable_zone.h"

#include <ctime>

namespace scoria_tdm {

namespace {

// Go's "15:04": hour 00-23 (one or two digits), ':', minute of two digits.
std::optional<int> parse_clock(std::string_view s) {
  const size_t colon = s.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon > 2 || s.size() != colon + 3)
    return std::nullopt;
  int hour = 0, minute = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i == colon) continue;
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    (i < colon ? hour : minute) = (i < colon ? hour : minute) * 10 + (s[i] - '0');
  }
  if (hour > 23 || minute > 59) return std::nullopt;
  return hour * 60 + minute;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Seconds since the epoch of `minute` after midnight, `days` after the local
// date of `now`.
int64_t local_time(std::time_t now, int days, int minute) {
  std::tm tm{};
  localtime_r(&now, &tm);
  tm.tm_mday += days;
  tm.tm_hour = minute / 60;
  tm.tm_min = minute % 60;
  tm.tm_sec = 0;
  tm.tm_isdst = -1;
  return static_cast<int64_t>(std::mktime(&tm));
}

}  // namespace

std::optional<Window> parse_window(std::string_view text) {
  text = trim(text);
  const size_t dash = text.find('-');
  if (dash == std::string_view::npos || text.find('-', dash + 1) != std::string_view::npos)
    return std::nullopt;
  const auto start = parse_clock(text.substr(0, dash));
  const auto end = parse_clock(text.substr(dash + 1));
  if (!start || !end) return std::nullopt;
  return Window{*start, *end};
}

bool open_at(const Window& w, int64_t now_ms) {
  const auto now = static_cast<std::time_t>(now_ms >= 0 ? now_ms / 1000 : (now_ms - 999) / 1000);
  const int64_t start = local_time(now, 0, w.start_minute);
  const int64_t end = local_time(now, w.start_minute >= w.end_minute ? 1 : 0, w.end_minute);
  return now >= start && now <= end;
}

}  // namespace scoria_tdm
