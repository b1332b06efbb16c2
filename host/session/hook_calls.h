// How the host calls a plugin's hooks and reads their answers, shared by
// the tier dispatch and the explanation of one task's placement: a hook's
// flag, what a predicate's code means, and a call marked with the plugin's
// name so that a crash inside names it.
#pragma once

#include <scoria/scoria.h>

#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include "plugin/crash_report.h"
#include "plugin/plugin_ctx.h"
#include "session/plugin_answers.h"
#include "session/plugin_hooks.h"

namespace scoria::session {

inline bool on(const PluginHooks& p, config::Flag f) {
  return p.option == nullptr || p.option->enabled(f);
}

// Calls fn(plugin) for every plugin, tier by tier, whose `flag` is enabled.
template <class Fn>
void each(std::vector<std::vector<PluginHooks>>& tiers, config::Flag flag, Fn&& fn) {
  for (auto& tier : tiers)
    for (auto& p : tier)
      if (on(p, flag)) fn(p);
}

// What a predicate's code means for the node. Codes cross the ABI as ints
// and are read as ints here (never through a scoria_code lvalue), so a value
// outside the enum is seen for what it is.
enum class Verdict { Pass, Reject, Failed, Undefined };

inline Verdict verdict(int c) {
  switch (c) {
    case SCORIA_OK:
    case SCORIA_SKIP:
      return Verdict::Pass;
    case SCORIA_UNSCHEDULABLE:
    case SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE:
      return Verdict::Reject;
    // A failing plugin is counted, and its predicate refuses the node (fail
    // closed, as Volcano and kube-scheduler treat a filter's error).
    case SCORIA_ERROR:
    case SCORIA_INVALID_ARGUMENT:
    case SCORIA_NOT_FOUND:
      return Verdict::Failed;
    default:
      return Verdict::Undefined;
  }
}

// A code the plugin wrote into host memory, read as the int it is.
inline int code_at(const scoria_code* p) {
  static_assert(sizeof(scoria_code) == sizeof(int));
  int c = 0;
  std::memcpy(&c, p, sizeof c);
  return c;
}

inline constexpr std::string_view kNodeRefused = "the node is refused";

// What one node's predicate code does to it, the same in every form of the
// hook: a pass leaves it; a reject, a failure (counted) or an undefined code
// (logged) refuses it with the reason to show. A failure is not one that
// preempting could mend.
struct NodeAnswer {
  bool refused = false;
  scoria_code code = SCORIA_OK;
  uint32_t reason = 0;
};

inline NodeAnswer judge(PluginHooks& p, Answer hook, int c, uint32_t reason,
                        uint32_t undefined_reason) {
  switch (verdict(c)) {
    case Verdict::Pass:
      return {};
    case Verdict::Failed:
      plugin::count_error(p.ctx, "predicate failed");
      return {true, SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE, p.failed_reason};
    case Verdict::Reject:
      return {true, static_cast<scoria_code>(c), reason};
    case Verdict::Undefined:
      undefined_code(p, hook, c, kNodeRefused);
      return {true, SCORIA_UNSCHEDULABLE, undefined_reason};
  }
  return {};
}

// Calls `fn`, one of `p`'s hooks named `hook`, with the thread marked as in
// it: a crash inside names the plugin (plugin/crash_report.h).
template <class Fn, class... Args>
auto call(const PluginHooks& p, const char* hook, Fn fn, Args&&... args) {
  const plugin::InPlugin in(p.mark, hook);
  return fn(p.hooks.user_data, std::forward<Args>(args)...);
}

}  // namespace scoria::session
