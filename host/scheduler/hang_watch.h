// Where a session hangs: the callback the session thread is in (its
// HookTracker) or, deeper, a plugin hook it called, on any thread, that
// has not returned since the last look (plugin::hook_marks). Looked at
// periodically by a watchdog thread: serve's event loop, simulate's
// watchdog.
#pragma once

#include <string>
#include <vector>

#include "plugin/crash_report.h"
#include "scheduler/hook_tracker.h"

namespace scoria::scheduler {

class HangWatch {
 public:
  explicit HangWatch(const HookTracker& tracker) : tracker_(tracker) {}

  /// Remembers the threads' hook marks as they are now; call at each look
  /// while nothing hangs.
  void remember() { seen_ = plugin::hook_marks(); }

  /// "plugin P hook H", the innermost hook unchanged since remember(), with
  /// the callback that called it ("(called from plugin A hook on_execute)").
  std::string where() const {
    const auto current = tracker_.current();
    const std::string called_from = current ? "plugin " + current->plugin + " hook " + current->hook
                                            : "the session (between plugin callbacks)";
    for (const plugin::HookMark& now : plugin::hook_marks()) {
      if (current && now.plugin == current->plugin && now.hook == current->hook) continue;
      for (const plugin::HookMark& then : seen_)
        if (then.thread == now.thread && then.seq == now.seq)
          return "plugin " + now.plugin + " hook " + now.hook + " (called from " + called_from +
                 ")";
    }
    return called_from;
  }

 private:
  const HookTracker& tracker_;
  std::vector<plugin::HookMark> seen_;
};

}  // namespace scoria::scheduler
