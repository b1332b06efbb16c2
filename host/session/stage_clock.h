#pragma once

#include <chrono>
#include <vector>

namespace scoria::session {

/// The per-task stages Volcano times as
/// volcano_scheduling_stage_duration_milliseconds, in ms, one entry per
/// time: each search of nodes for a task (Predicate) and each scoring of a
/// task's candidates (Scoring).
struct StageDurations {
  std::vector<double> predicate_ms, scoring_ms;
};

/// Adds the milliseconds from its making to its end to `into`; nothing when
/// `into` is null (no clock is read then).
class StageClock {
 public:
  explicit StageClock(std::vector<double>* into)
      : into_(into), start_(into != nullptr ? Clock::now() : Clock::time_point{}) {}
  ~StageClock() {
    if (into_ == nullptr) return;
    // A sample lost to a failed allocation is no reason to terminate.
    try {
      into_->push_back(std::chrono::duration<double, std::milli>(Clock::now() - start_).count());
    } catch (...) {
    }
  }
  StageClock(const StageClock&) = delete;
  StageClock& operator=(const StageClock&) = delete;

 private:
  using Clock = std::chrono::steady_clock;
  std::vector<double>* into_;
  Clock::time_point start_;
};

}  // namespace scoria::session
