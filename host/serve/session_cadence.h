// When the next session starts. A period after the last one started, as
// Volcano's wait.Until. Sooner after a committed write (a pod created, a
// node added...), as kube-scheduler takes a pod as it arrives: it waits a
// moment, so that a burst of writes lands in one session, and at least as
// long as the last session held the loop (its refresh and its record; the
// session itself runs on its own thread), so that sessions never take more
// than half of the loop's time from the API however fast writes come; never
// later than the period. Lives on the loop, which owns it alone.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <functional>

namespace scoria::serve {

class SessionCadence {
 public:
  using Clock = std::chrono::steady_clock;

  /// How long a write waits for others before it starts a session early.
  static constexpr std::chrono::milliseconds kWakeDelay{10};

  /// `start` runs on the loop when the timer fires. `early`: a write starts
  /// the next session early (ServeOptions::schedule_on_change).
  SessionCadence(boost::asio::io_context& io, bool early, std::function<void()> start);

  /// A session starts now: the timer is no longer armed, and the next
  /// period counts from here.
  void begin();
  /// The session's refresh took every write committed so far.
  void caught_up() { woken_ = false; }
  /// The session ended (its record written); it held the loop for
  /// `loop_busy` in all.
  void finished(Clock::duration loop_busy);
  /// Arms the timer for the next session, `after` the start of the last
  /// one, or sooner if a write came meanwhile.
  void next(std::chrono::milliseconds after);
  /// A write was committed: with the timer armed, brought forward.
  void wake();
  /// Cancels the timer; from now on writes wake nothing.
  void stop();

  Clock::time_point session_start() const { return session_start_; }
  /// When the timer fires; meaningful while armed.
  Clock::time_point expiry() const { return timer_.expiry(); }
  bool armed() const { return armed_; }

 private:
  Clock::time_point earliest_wake() const;
  void arm(Clock::time_point at);

  boost::asio::steady_timer timer_;
  bool early_;
  std::function<void()> start_;
  bool stopped_ = false;
  // The timer is set for the next session (none is under way or starting).
  bool armed_ = false;
  // A write was committed since the last refresh.
  bool woken_ = false;
  Clock::time_point session_start_{};
  Clock::time_point last_finish_{};
  // The loop's time on the last session: its refresh and its record.
  Clock::duration last_loop_busy_{};
};

}  // namespace scoria::serve
