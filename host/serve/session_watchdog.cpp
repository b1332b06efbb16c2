#include "serve/session_watchdog.h"

#include "log/log.h"

namespace scoria::serve {

namespace {

int64_t whole(std::chrono::steady_clock::duration d, auto unit) {
  return std::chrono::duration_cast<decltype(unit)>(d).count();
}

}  // namespace

void SessionWatchdog::watch(std::chrono::steady_clock::time_point start,
                            std::function<void()> on_hung) {
  start_ = start;
  on_hung_ = std::move(on_hung);
  watching_ = true;
  arm();
}

void SessionWatchdog::finished() {
  watching_ = false;
  timer_.cancel();
  if (!hung_) return;
  log::write(
      log::kInfo, "serve",
      "the session that hung has finished, after " +
          std::to_string(whole(std::chrono::steady_clock::now() - start_, std::chrono::seconds{})) +
          "s");
  hung_ = false;
}

void SessionWatchdog::arm() {
  timer_.expires_after(limits_().period);
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec || !watching_) return;
    look();
    arm();
  });
}

void SessionWatchdog::look() {
  if (hung_) return;
  const auto current = tracker_.current();
  const auto since = current ? current->since : start_;
  const auto ran = std::chrono::steady_clock::now() - since;
  const Limits limits = limits_();
  if (ran < limits.period * limits.periods) {
    hang_watch_.remember();  // compared when the session hangs
    return;
  }
  hung_ = true;
  log::write(log::kWarning, "serve",
             where() + " has run for " + std::to_string(whole(ran, std::chrono::milliseconds{})) +
                 "ms, over " + std::to_string(limits.periods) +
                 " schedule periods; the systemd watchdog is no longer pinged and /healthz "
                 "answers 503");
  if (on_hung_) on_hung_();
}

}  // namespace scoria::serve
