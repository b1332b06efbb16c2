// Volcano's groups of task statuses (api/helpers.go), as bit masks.
#pragma once

#include <scoria/scoria.h>

#include <bit>
#include <cstddef>
#include <cstdint>

namespace scoria::session {

/// Holds resources on a node: Volcano's AllocatedStatus.
inline constexpr uint32_t kAllocatedMask =
    SCORIA_TASK_BOUND | SCORIA_TASK_BINDING | SCORIA_TASK_RUNNING | SCORIA_TASK_ALLOCATED;
/// Counted as placed for the PodGroup phase: Volcano's ScheduledStatus.
inline constexpr uint32_t kScheduledMask =
    SCORIA_TASK_RUNNING | SCORIA_TASK_BOUND | SCORIA_TASK_FAILED | SCORIA_TASK_SUCCEEDED;
inline constexpr uint32_t kCompletedMask = SCORIA_TASK_SUCCEEDED | SCORIA_TASK_FAILED;
/// What a session's placement leaves a task in until close settles it.
inline constexpr uint32_t kPlacedMask =
    SCORIA_TASK_ALLOCATED | SCORIA_TASK_PIPELINED | SCORIA_TASK_BINDING;
/// Counted as ready for gang: allocated ones plus succeeded.
inline constexpr uint32_t kReadyMask = kAllocatedMask | SCORIA_TASK_SUCCEEDED;

inline bool is_allocated_status(uint32_t s) { return (s & kAllocatedMask) != 0; }

/// Where a status is counted in a job's status_count: its bit's position.
inline size_t status_bit(uint32_t status) { return static_cast<size_t>(std::countr_zero(status)); }

/// Sum of the job's task counts over the statuses in `mask`.
inline int32_t count_in(const int32_t (&counts)[10], uint32_t mask) {
  int32_t n = 0;
  // Only the mask's bits (a few), not all ten with a test each: close and
  // the queue sums ask this several times per job per session.
  for (uint32_t m = mask & 0x3FFu; m != 0; m &= m - 1) n += counts[std::countr_zero(m)];
  return n;
}

}  // namespace scoria::session
