// Work that may take long, run beside the event loop instead of on it: a
// config reload loads the plugins it names, and each file's trial may run to
// its limit (plugin/trial_load.h) while /healthz, the API and SIGTERM must
// still be answered.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <memory>
#include <thread>
#include <utility>

namespace scoria::serve {

/// Runs one job at a time on a thread of its own and hands its result to a
/// completion on the loop. Used from the loop's thread only.
template <class Result>
class OffLoop {
 public:
  explicit OffLoop(boost::asio::io_context& io) : io_(io) {}
  /// Waits for the job under way, if any (its completion does not run).
  ~OffLoop() {
    if (thread_.joinable()) thread_.join();
  }
  OffLoop(const OffLoop&) = delete;
  OffLoop& operator=(const OffLoop&) = delete;

  /// Whether a job is under way (its completion has not run yet).
  bool busy() const { return busy_; }

  /// Starts `job()` on the thread, then `done(Result)` on the loop; false
  /// (and nothing started) while another job is under way.
  template <class Job, class Done>
  bool start(Job job, Done done) {
    if (busy_) return false;
    if (thread_.joinable()) thread_.join();  // ended: its completion has run
    busy_ = true;
    thread_ = std::thread([this, job = std::move(job), done = std::move(done)]() mutable {
      auto result = std::make_shared<Result>(job());
      boost::asio::post(io_, [this, result, done = std::move(done)]() mutable {
        busy_ = false;
        done(std::move(*result));
      });
    });
    return true;
  }

 private:
  boost::asio::io_context& io_;
  std::thread thread_;
  bool busy_ = false;
};

}  // namespace scoria::serve
