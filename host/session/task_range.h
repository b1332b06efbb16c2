// A job's tasks: a session lays each job's tasks out side by side, so a job
// holds the range of their indices instead of a list of its own (one
// allocation fewer per job and session).
#pragma once

#include <cstdint>
#include <ranges>

namespace scoria::session {

using TaskRange = std::ranges::iota_view<uint32_t, uint32_t>;

}  // namespace scoria::session
