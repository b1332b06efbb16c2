// Checks on what a plugin hands back through the C ABI before the host acts
// on it. A C enum is only an int at the boundary, and a double may be NaN:
// an answer outside the documented set fails closed (the node is refused, the
// score counts 0, the vote rejects), is counted as a plugin error and is
// logged once per plugin and hook per session, however many nodes it hits.
#pragma once

#include <scoria/scoria.h>

#include <cstdint>
#include <string_view>

namespace scoria::session {

struct PluginHooks;

/// Hooks whose answers are checked; one bit each in PluginHooks::undefined_logged.
enum class Answer : uint8_t {
  Predicate,
  PredicateBatch,
  NodeOrder,
  NodeOrderBatch,
  JobPipelined,
  JobEnqueueable,
  Preemptable,
  Reclaimable,
  Evictable,
  SubJobPipelined,
};

/// The hook's name in scoria_hooks ("on_predicate"); a string literal.
std::string_view hook_name(Answer hook);

/// A value of scoria_code's documented enum (SCORIA_OK .. SCORIA_NOT_FOUND),
/// taken as the int that crossed the ABI.
bool defined_code(int c);

/// A value of scoria_vote's documented enum.
bool defined_vote(int v);

/// Counts an undefined code (or vote) from `hook` and logs it the first time
/// in this session; `consequence` says what the host did instead.
/// Thread-safe: predicates run on worker threads.
void undefined_code(PluginHooks& p, Answer hook, int code, std::string_view consequence);

/// The same for a NaN or infinite score.
void undefined_score(PluginHooks& p, Answer hook, double score);

}  // namespace scoria::session
