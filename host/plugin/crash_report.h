// Which plugin a crash came from. Plugins are shared objects in the host's
// process: one that crashes (a bad pointer, an abort) takes the service down,
// and nothing can isolate it short of another process. What the host can do
// is say which plugin and hook the crashing thread was running, in one line
// on standard error and in a file the next start reports, before the signal
// takes its course (and systemd restarts the service).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace scoria::plugin {

/// `name` kept for the life of the process: what a mark names must
/// outlive any look the watchdog takes at it (a session's strings do not).
/// Interned: call it once per plugin per session, not per hook call.
const char* lasting_name(std::string_view name);

/// Marks the calling thread as running `plugin`'s `hook` (string literals
/// or lasting_name()s) until destroyed. Cheap: a few thread-local and
/// relaxed atomic stores.
class InPlugin {
 public:
  InPlugin(const char* plugin, const char* hook) noexcept;
  ~InPlugin();
  InPlugin(const InPlugin&) = delete;
  InPlugin& operator=(const InPlugin&) = delete;

 private:
  const char* plugin_;  // the marks this one hides, put back when it ends
  const char* hook_;
};

/// A thread inside a plugin hook now (its innermost mark), as another
/// thread sees it: the watchdog names a plugin spinning in a hook on a
/// predicate worker, where the session's own tracker only knows the action
/// that called it. `seq` changes each time the thread enters or leaves a
/// hook: the same mark with the same seq at two looks a period apart has
/// run at least that long.
struct HookMark {
  size_t thread = 0;  // a slot number, stable for the thread's life
  uint64_t seq = 0;
  std::string plugin, hook;
};
/// The marks of every thread inside a hook (at most 256 threads are seen).
std::vector<HookMark> hook_marks();

/// Installs the handler of SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT. It
/// writes "fatal signal SIGSEGV in plugin NAME, hook on_predicate (...)",
/// or "in the host", to standard error and to the file `crash-report` in
/// `dir` (async-signal-safe calls only), then hands the signal to the
/// handler installed before it (a sanitizer's) or to the default action.
/// Call once, at start-up.
void install_crash_handler(const std::filesystem::path& dir);

/// A plugin hook that calls exit() would end the process with the plugin's
/// status (0 as often as not), so that systemd's Restart=on-failure leaves
/// the service down and `simulate` prints nothing and succeeds. Installs an
/// exit handler that, when the exiting thread is inside a plugin hook,
/// names it ("plugin NAME called exit(...) in hook HOOK") on standard error
/// and in the crash report (when install_crash_handler gave one) and ends
/// the process with status 70 (EX_SOFTWARE) instead. _exit() and
/// quick_exit() run no handler and are not caught. Called by
/// install_crash_handler; call it once, at start-up, where there is none.
void install_exit_attribution();

/// A crash the last run in `dir` reported before it died.
struct CrashReport {
  std::string line;  // what the handler wrote
  size_t count = 0;  // crashes reported in `dir` so far, this one included
};
/// The last run's crash report, if it died of one: counted (in the file
/// `crash-count` in `dir`) and removed, so that each is reported once.
std::optional<CrashReport> take_crash_report(const std::filesystem::path& dir);

}  // namespace scoria::plugin
