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

std::string_view clipped(std::string_view message, size_t* left_out) {
  *left_out = 0;
  if (message.size() <= kMaxMessage) return message;
  size_t end = kMaxMessage;
  // Not inside a UTF-8 sequence: back up over continuation bytes.
  while (end > 0 && (static_cast<unsigned char>(message[end]) & 0xC0) == 0x80) --end;
  *left_out = message.size() - end;
  return message.substr(0, end);
}

void write(int level, std::string_view who, std::string_view message) {
  if (!enabled(level)) return;
  char tag = level <= kError ? 'E' : level == kWarning ? 'W' : 'I';
  size_t left_out = 0;
  const std::string_view text = clipped(message, &left_out);
  std::lock_guard lock(g_write);
  if (left_out == 0)
    std::fprintf(stderr, "%c %.*s: %.*s\n", tag, static_cast<int>(who.size()), who.data(),
                 static_cast<int>(text.size()), text.data());
  else
    std::fprintf(stderr, "%c %.*s: %.*s ... (%zu more bytes)\n", tag, static_cast<int>(who.size()),
                 who.data(), static_cast<int>(text.size()), text.data(), left_out);
}

}  // namespace scoria::log
