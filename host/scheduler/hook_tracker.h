// Which plugin callback a session is in, and since when: written by the
// session's thread around each callback it makes, read by the service's
// watchdog on another thread to name a plugin that hangs.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>

namespace scoria::scheduler {

class HookTracker {
 public:
  using Clock = std::chrono::steady_clock;
  struct Current {
    std::string plugin;  // the action or plugin name in the config
    std::string hook;    // on_session_open, on_execute, on_session_close
    Clock::time_point since;
  };

  void enter(const std::string& plugin, const char* hook) {
    const std::lock_guard lock(mutex_);
    current_ = Current{plugin, hook, Clock::now()};
  }
  void leave() {
    const std::lock_guard lock(mutex_);
    current_.reset();
  }
  std::optional<Current> current() const {
    const std::lock_guard lock(mutex_);
    return current_;
  }

 private:
  mutable std::mutex mutex_;
  std::optional<Current> current_;
};

}  // namespace scoria::scheduler
