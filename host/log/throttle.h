// A log line that may repeat every second (a failing session, a failing
// accept) is written at most once per interval, with the count of the
// occurrences it stands for, so a persistent fault neither floods the
// journal nor goes quiet.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <utility>

namespace scoria::log {

class Throttle {
 public:
  using Clock = std::chrono::steady_clock;
  explicit Throttle(Clock::duration interval) : interval_(interval) {}

  /// Records one occurrence. Returns how many occurrences the line to write
  /// now stands for (this one and those held back since the last line), or
  /// nothing if this one is to be held back.
  std::optional<uint64_t> admit(Clock::time_point now = Clock::now()) {
    ++held_;
    if (logged_once_ && now - last_ < interval_) return std::nullopt;
    logged_once_ = true;
    last_ = now;
    return std::exchange(held_, 0);
  }

 private:
  Clock::duration interval_;
  Clock::time_point last_{};
  bool logged_once_ = false;
  uint64_t held_ = 0;
};

}  // namespace scoria::log
