// A revocable zone's daily time window, as Volcano's tdm writes it
// ("10:00-21:00" in the scheduler's local time) and judges it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace scoria_tdm {

struct Window {
  int start_minute = 0;  // minutes after midnight
  int end_minute = 0;
};

/// "HH:MM-HH:MM" (Go's "15:04" layout on each side, spaces around the whole
/// allowed); nullopt if it is not one.
std::optional<Window> parse_window(std::string_view text);

/// Whether the window is open at `now_ms` (ms since the epoch), exactly as
/// Volcano decides it: the window starts today at its start time and ends
/// today at its end time, or tomorrow when the end is not after the start;
/// open when start <= now <= end, in whole seconds. (So an overnight window
/// such as 22:00-06:00 is open from 22:00 to midnight only, as in Volcano.)
bool open_at(const Window& w, int64_t now_ms);

}  // namespace scoria_tdm
