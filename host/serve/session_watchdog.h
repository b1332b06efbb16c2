// The watchdog of the session under way, on the service's event loop: at
// every schedule period it looks where the session is (its HookTracker and
// the plugin hooks' marks); once the session, or a hook, has run past the
// limit it says where, once, and reports the session hung until it ends.
// The session thread cannot be stopped: the owner stops pinging systemd's
// watchdog and /healthz answers 503 while hung() holds.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <functional>
#include <string>

#include "scheduler/hang_watch.h"
#include "scheduler/hook_tracker.h"

namespace scoria::serve {

class SessionWatchdog {
 public:
  /// How often to look, and after how many looks a session hangs; asked at
  /// every look, so that a reload's new period counts at once.
  struct Limits {
    std::chrono::milliseconds period;
    int64_t periods;
  };

  SessionWatchdog(boost::asio::io_context& io, std::function<Limits()> limits)
      : timer_(io), limits_(std::move(limits)) {}
  SessionWatchdog(const SessionWatchdog&) = delete;
  SessionWatchdog& operator=(const SessionWatchdog&) = delete;

  /// What the schedulers report their callbacks to.
  scheduler::HookTracker& tracker() { return tracker_; }

  /// Watches the session that started at `start`; `on_hung` runs on the
  /// loop once, when it is found hung.
  void watch(std::chrono::steady_clock::time_point start, std::function<void()> on_hung);
  /// The session ended: stops watching, saying so if it had hung.
  void finished();

  bool hung() const { return hung_; }
  /// Where the session hangs (HangWatch::where).
  std::string where() const { return hang_watch_.where(); }

 private:
  void arm();
  void look();

  boost::asio::steady_timer timer_;
  std::function<Limits()> limits_;
  scheduler::HookTracker tracker_;
  scheduler::HangWatch hang_watch_{tracker_};
  std::chrono::steady_clock::time_point start_;
  std::function<void()> on_hung_;
  bool watching_ = false;
  bool hung_ = false;
};

}  // namespace scoria::serve
