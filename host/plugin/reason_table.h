// Interned predicate reasons ("Insufficient cpu" -> id). Ids are shared by
// every plugin and session for the life of the process, so plugins intern
// once at creation and predicates return small integers on the hot path.
#pragma once

#include <cstdint>
#include <string_view>

namespace scoria::plugin {

/// Returns the id of `text` (>= 1), interning it on first use. Thread-safe.
uint32_t intern_reason(std::string_view text);

/// The text of `id`; empty for 0 or an unknown id. The view stays valid for
/// the life of the process.
std::string_view reason_text(uint32_t id);

}  // namespace scoria::plugin
