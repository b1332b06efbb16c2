#include "candidate.h"

#include <algorithm>
#include <functional>
#include <limits>

namespace preempt {

size_t candidates_wanted(size_t nodes, const CandidateLimits& limits) {
  int64_t n = static_cast<int64_t>(nodes) * limits.min_percentage / 100;
  n = std::max(n, limits.min_absolute);
  n = std::min(n, limits.max_absolute);
  n = std::min(n, static_cast<int64_t>(nodes));
  return n > 0 ? static_cast<size_t>(n) : 0;
}

namespace {

using Victims = std::vector<VictimFacts>;

// Higher is better, as kube-scheduler's score functions.
int64_t lowest_first_victim(const Victims& v) { return -int64_t{v.front().priority}; }

int64_t lowest_priority_sum(const Victims& v) {
  // Every priority shifted to be >= 0, so that fewer negative-priority
  // victims are not taken for a lower sum.
  int64_t sum = 0;
  for (const VictimFacts& f : v)
    sum += int64_t{f.priority} + int64_t{std::numeric_limits<int32_t>::max()} + 1;
  return -sum;
}

int64_t fewest_victims(const Victims& v) { return -static_cast<int64_t>(v.size()); }

// The earliest start among the victims of the highest priority: the later,
// the better (the less work is lost).
int64_t latest_start(const Victims& v) {
  int32_t top = v.front().priority;
  int64_t earliest = v.front().start_ms;
  for (const VictimFacts& f : v) {
    if (f.priority == top) {
      earliest = std::min(earliest, f.start_ms);
    } else if (f.priority > top) {
      top = f.priority;
      earliest = f.start_ms;
    }
  }
  return earliest;
}

}  // namespace

size_t select_candidate(std::span<const std::vector<VictimFacts>> facts) {
  std::vector<size_t> left;
  for (size_t i = 0; i < facts.size(); ++i)
    if (!facts[i].empty()) left.push_back(i);
  if (left.empty()) return 0;
  const std::function<int64_t(const Victims&)> scores[] = {lowest_first_victim, lowest_priority_sum,
                                                           fewest_victims, latest_start};
  for (const auto& score : scores) {
    if (left.size() == 1) break;
    int64_t best = std::numeric_limits<int64_t>::min();
    std::vector<size_t> kept;
    for (size_t i : left) {
      const int64_t s = score(facts[i]);
      if (s > best) {
        best = s;
        kept.clear();
      }
      if (s == best) kept.push_back(i);
    }
    left = std::move(kept);
  }
  return left.front();
}

}  // namespace preempt
