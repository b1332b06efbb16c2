#include "log/log.h"

#include <atomic>
#include <cstdio>
#include <mutex>

namespace scoria::log {
namespace {
// Process-wide, like klog's -v flag: written once at start-up.
std::atomic<int> g_verbosity{0};
std::mutex g_write;
}  // namespace

void set_verbosity(int level) { g_verbosity.store(level, std::memory_order_relaxed); }
bool enabled(int level) { return level <= g_verbosity.load(std::memory_order_relaxed); }

void write(int level, std::string_view who, std::string_view message) {
  if (!enabled(level)) return;
  char tag = level <= kError ? 'E' : level == kWarning ? 'W' : 'I';
  std::lock_guard lock(g_write);
  std::fprintf(stderr, "%c %.*s: %.*s\n", tag, static_cast<int>(who.size()), who.data(),
               static_cast<int>(message.size()), message.data());
}

}  // namespace scoria::log
