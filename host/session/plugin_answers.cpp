#include "session/plugin_answers.h"

#include <atomic>
#include <cstdio>
#include <string>

#include "log/log.h"
#include "plugin/plugin_ctx.h"
#include "session/session.h"

namespace scoria::session {

namespace {

// Counts the error; true for the first one of `hook` in this session, which
// is the one to log. Several threads may race here: one of them wins.
bool count_and_first(PluginHooks& p, Answer hook) {
  if (p.ctx != nullptr) p.ctx->errors.fetch_add(1, std::memory_order_relaxed);
  const uint32_t bit = 1u << static_cast<unsigned>(hook);
  const uint32_t before =
      std::atomic_ref<uint32_t>(p.undefined_logged).fetch_or(bit, std::memory_order_relaxed);
  return (before & bit) == 0;
}

}  // namespace

std::string_view hook_name(Answer hook) {
  switch (hook) {
    case Answer::Predicate:
      return "on_predicate";
    case Answer::PredicateBatch:
      return "on_predicate_batch";
    case Answer::NodeOrder:
      return "on_node_order";
    case Answer::NodeOrderBatch:
      return "on_node_order_batch";
    case Answer::JobPipelined:
      return "on_job_pipelined";
    case Answer::JobEnqueueable:
      return "on_job_enqueueable";
    case Answer::Preemptable:
      return "on_preemptable";
    case Answer::Reclaimable:
      return "on_reclaimable";
    case Answer::Evictable:
      return "on_evictable";
    case Answer::SubJobPipelined:
      return "on_sub_job_pipelined";
  }
  return "a hook";
}

bool defined_code(int c) { return c >= SCORIA_OK && c <= SCORIA_NOT_FOUND; }

bool defined_vote(int v) { return v >= SCORIA_VOTE_REJECT && v <= SCORIA_VOTE_PERMIT; }

void undefined_code(PluginHooks& p, Answer hook, int code, std::string_view consequence) {
  if (!count_and_first(p, hook)) return;
  log::write(log::kError, p.name,
             std::string(hook_name(hook)) + " returned " + std::to_string(code) +
                 ", which the ABI does not define; " + std::string(consequence) +
                 " (logged once per session; every occurrence is counted as a plugin error)");
}

void undefined_score(PluginHooks& p, Answer hook, double score) {
  if (!count_and_first(p, hook)) return;
  char value[32];
  std::snprintf(value, sizeof value, "%g", score);
  log::write(log::kError, p.name,
             std::string(hook_name(hook)) + " returned the score " + value +
                 ", which is not a finite number; it counts as 0 (logged once per session; "
                 "every occurrence is counted as a plugin error)");
}

}  // namespace scoria::session
