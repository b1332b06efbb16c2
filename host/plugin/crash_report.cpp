#include "plugin/crash_report.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <system_error>

namespace scoria::plugin {

namespace {

// What the signal handler reads: the crashing thread's marks, and what it
// was given at start-up. Set once before any handler can run, or per thread.
thread_local const char* t_plugin = nullptr;
thread_local const char* t_hook = nullptr;

// The same marks, published for the watchdog's thread (hook_marks()): one
// slot per thread that ever entered a hook, claimed once. Relaxed stores:
// the watchdog reads a snapshot that may be a moment old, never a torn
// pointer (each field is one atomic).
struct Slot {
  std::atomic<const char*> plugin{nullptr};
  std::atomic<const char*> hook{nullptr};
  std::atomic<uint64_t> seq{0};
};
constexpr size_t kSlots = 256;
std::array<Slot, kSlots> g_slots;
std::atomic<size_t> g_slots_used{0};
thread_local Slot* t_slot = nullptr;
thread_local bool t_slot_claimed = false;

void publish() {
  if (!t_slot_claimed) {
    t_slot_claimed = true;
    const size_t i = g_slots_used.fetch_add(1, std::memory_order_relaxed);
    if (i < kSlots) t_slot = &g_slots[i];
  }
  if (t_slot == nullptr) return;
  t_slot->plugin.store(t_plugin, std::memory_order_relaxed);
  t_slot->hook.store(t_hook, std::memory_order_relaxed);
  // Only this thread writes its slot: a plain increment, no locked
  // read-modify-write on every hook call.
  t_slot->seq.store(t_slot->seq.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

// lasting_name()'s names, NUL-separated, in storage that is never
// destroyed: an exit handler (on_exit) and other threads may read a mark
// while static destructors run.
constexpr size_t kNameArena = 16384;
char g_names[kNameArena] = {};
size_t g_names_used = 0;
std::mutex g_names_mutex;

constexpr std::array<int, 5> kSignals = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
// The report file's path, copied at install (no allocation in the handler).
char g_report[4096] = {};
struct sigaction g_previous[kSignals.size()] = {};

const char* signal_name(int signo) {
  switch (signo) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGILL:
      return "SIGILL";
    case SIGFPE:
      return "SIGFPE";
    case SIGABRT:
      return "SIGABRT";
    default:
      return "a fatal signal";
  }
}

// Appends `text` to the fixed buffer, as far as it fits.
void append(char* out, size_t capacity, size_t& used, const char* text) {
  for (; *text != '\0' && used + 1 < capacity; ++text) out[used++] = *text;
  out[used] = '\0';
}

// Writes the line to standard error and to the crash report, which the
// next start reads (async-signal-safe calls only).
void report(const char* line, size_t n) {
  [[maybe_unused]] ssize_t ignored = ::write(STDERR_FILENO, line, n);
  if (g_report[0] == '\0') return;
  const int fd = ::open(g_report, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return;
  ignored = ::write(fd, line, n);
  ::close(fd);
}

void on_fatal_signal(int signo, siginfo_t* info, void* context) {
  char line[1024];
  size_t n = 0;
  append(line, sizeof line, n, "scoria: fatal signal ");
  append(line, sizeof line, n, signal_name(signo));
  if (t_plugin != nullptr) {
    append(line, sizeof line, n, " in plugin ");
    append(line, sizeof line, n, t_plugin);
    append(line, sizeof line, n, ", hook ");
    append(line, sizeof line, n, t_hook != nullptr ? t_hook : "(unknown)");
    append(line, sizeof line, n,
           "; plugins run inside the service's process and cannot be isolated, so the "
           "service ends (systemd restarts it); remove or fix the plugin\n");
  } else {
    append(line, sizeof line, n, " in the host (no plugin hook was running); the service ends\n");
  }
  report(line, n);
  // The signal takes its course: the handler before this one, or the
  // default action, which ends the process (the fault recurs on return).
  for (size_t i = 0; i < kSignals.size(); ++i) {
    if (kSignals[i] != signo) continue;
    const struct sigaction& before = g_previous[i];
    if ((before.sa_flags & SA_SIGINFO) != 0 && before.sa_sigaction != nullptr) {
      before.sa_sigaction(signo, info, context);
      return;
    }
    if (before.sa_handler != SIG_DFL && before.sa_handler != SIG_IGN &&
        before.sa_handler != nullptr) {
      before.sa_handler(signo);
      return;
    }
  }
  std::signal(signo, SIG_DFL);
  ::raise(signo);
}

// Ends the process at once, as libc's _exit does (which the host's own
// _exit below replaces).
[[noreturn]] void end_process(int status) {
  for (;;) ::syscall(SYS_exit_group, status);
}

// A thread inside a plugin hook ending the process (through `how`, "exit()"
// or "_exit()") is a plugin doing it: said, and a failure status.
void attribute_exit(const char* how) {
  if (t_plugin == nullptr) return;
  char line[1024];
  size_t n = 0;
  append(line, sizeof line, n, "scoria: plugin ");
  append(line, sizeof line, n, t_plugin);
  append(line, sizeof line, n, " called ");
  append(line, sizeof line, n, how);
  append(line, sizeof line, n, " in hook ");
  append(line, sizeof line, n, t_hook != nullptr ? t_hook : "(unknown)");
  append(line, sizeof line, n,
         "; plugins run inside the service's process, so it ends, with status 70 (systemd "
         "restarts it); remove or fix the plugin\n");
  report(line, n);
  end_process(70);
}

void on_exit() { attribute_exit("exit()"); }

}  // namespace

void install_exit_attribution() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  std::atexit(on_exit);
}

InPlugin::InPlugin(const char* plugin, const char* hook) noexcept
    : plugin_(t_plugin), hook_(t_hook) {
  t_plugin = plugin;
  t_hook = hook;
  publish();
}

InPlugin::~InPlugin() {
  t_plugin = plugin_;
  t_hook = hook_;
  publish();
}

const char* lasting_name(std::string_view name) {
  const std::lock_guard lock(g_names_mutex);
  for (size_t at = 0; at < g_names_used; at += std::strlen(g_names + at) + 1)
    if (name == std::string_view(g_names + at)) return g_names + at;
  if (name.find('\0') != std::string_view::npos || g_names_used + name.size() + 1 > kNameArena)
    return "(a plugin)";
  char* out = g_names + g_names_used;
  std::memcpy(out, name.data(), name.size());
  out[name.size()] = '\0';
  g_names_used += name.size() + 1;
  return out;
}

std::vector<HookMark> hook_marks() {
  std::vector<HookMark> out;
  const size_t used = std::min(g_slots_used.load(std::memory_order_relaxed), kSlots);
  for (size_t i = 0; i < used; ++i) {
    const uint64_t seq = g_slots[i].seq.load(std::memory_order_relaxed);
    const char* plugin = g_slots[i].plugin.load(std::memory_order_relaxed);
    const char* hook = g_slots[i].hook.load(std::memory_order_relaxed);
    if (plugin == nullptr || hook == nullptr) continue;
    out.push_back({i, seq, plugin, hook});
  }
  return out;
}

void install_crash_handler(const std::filesystem::path& dir) {
  // Once per process: a second install would chain the handler to itself.
  static bool installed = false;
  if (installed) return;
  installed = true;
  const std::string path = (dir / "crash-report").string();
  if (path.size() < sizeof g_report) std::memcpy(g_report, path.c_str(), path.size() + 1);
  install_exit_attribution();
  for (size_t i = 0; i < kSignals.size(); ++i) {
    struct sigaction action {};
    action.sa_sigaction = on_fatal_signal;
    action.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    sigaction(kSignals[i], &action, &g_previous[i]);
  }
}

std::optional<CrashReport> take_crash_report(const std::filesystem::path& dir) {
  const std::filesystem::path report = dir / "crash-report";
  std::ifstream in(report);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  CrashReport crash{text.str(), 1};
  while (!crash.line.empty() && crash.line.back() == '\n') crash.line.pop_back();
  if (crash.line.starts_with("scoria: ")) crash.line.erase(0, 8);
  const std::filesystem::path counter = dir / "crash-count";
  if (std::ifstream count(counter); count) {
    size_t before = 0;
    if (count >> before) crash.count = before + 1;
  }
  std::ofstream(counter) << crash.count << "\n";
  std::error_code ec;
  std::filesystem::remove(report, ec);
  return crash;
}

}  // namespace scoria::plugin

// _exit() skips the exit handlers, so on_exit never sees a plugin calling
// it. The executable's own definition (exported, see host/CMakeLists.txt)
// is the one plugins bind to: inside a hook it is attributed as exit() is;
// anywhere else it is libc's, the system call. libc's own internal calls
// keep libc's.
extern "C" void _exit(int status) {  // noreturn, as unistd.h declares it
  scoria::plugin::attribute_exit("_exit()");
  scoria::plugin::end_process(status);
}
