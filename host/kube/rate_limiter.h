// Client-side rate limit on requests to the API server, as client-go's
// token bucket (--kube-api-qps, --kube-api-burst): `burst` requests may go
// at once, then `qps` per second. Shared by every connection of a client.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace scoria::kube {

class RateLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  RateLimiter(double qps, double burst)
      : qps_(qps), burst_(std::max(1.0, burst)), tokens_(burst_), last_(Clock::now()) {}

  /// Waits for a token; returns false (without one) if `stop` is set while
  /// waiting.
  bool acquire(const std::atomic<bool>& stop) {
    for (;;) {
      Clock::duration wait;
      {
        std::lock_guard lock(mutex_);
        const Clock::time_point now = Clock::now();
        tokens_ =
            std::min(burst_, tokens_ + qps_ * std::chrono::duration<double>(now - last_).count());
        last_ = now;
        if (tokens_ >= 1.0) {
          tokens_ -= 1.0;
          return true;
        }
        wait = std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>((1.0 - tokens_) / qps_));
      }
      // Slices, so that a stop is seen soon.
      std::this_thread::sleep_for(std::min<Clock::duration>(wait, std::chrono::milliseconds(50)));
      if (stop) return false;
    }
  }

 private:
  const double qps_;
  const double burst_;
  double tokens_;
  Clock::time_point last_;
  std::mutex mutex_;
};

}  // namespace scoria::kube
