#include "serve/session_cadence.h"

#include <algorithm>
#include <utility>

namespace scoria::serve {

SessionCadence::SessionCadence(boost::asio::io_context& io, bool early, std::function<void()> start)
    : timer_(io), early_(early), start_(std::move(start)) {}

void SessionCadence::begin() {
  armed_ = false;
  session_start_ = Clock::now();
}

void SessionCadence::finished(Clock::duration loop_busy) {
  last_finish_ = Clock::now();
  last_loop_busy_ = loop_busy;
}

void SessionCadence::next(std::chrono::milliseconds after) {
  Clock::time_point at = session_start_ + after;
  if (woken_) at = std::min(at, earliest_wake());
  arm(at);
}

void SessionCadence::wake() {
  if (!early_ || stopped_) return;
  woken_ = true;
  if (!armed_) return;  // a session is under way: next() looks at `woken_`
  const Clock::time_point early = earliest_wake();
  if (early >= timer_.expiry()) return;
  arm(early);
}

void SessionCadence::stop() {
  stopped_ = true;
  timer_.cancel();
}

SessionCadence::Clock::time_point SessionCadence::earliest_wake() const {
  return std::max(Clock::now() + kWakeDelay, last_finish_ + last_loop_busy_);
}

void SessionCadence::arm(Clock::time_point at) {
  armed_ = true;
  timer_.expires_at(at);
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) start_();
  });
}

}  // namespace scoria::serve
