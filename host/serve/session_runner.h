// The thread sessions run on, apart from the event loop: the API, the
// signals and the watchdog stay responsive while a session runs, and a
// plugin that hangs holds only this thread.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace scoria::serve {

class SessionRunner {
 public:
  SessionRunner();
  /// Waits for the job under way: never destroy a runner whose job hangs
  /// (the service exits the process instead).
  ~SessionRunner();
  SessionRunner(const SessionRunner&) = delete;
  SessionRunner& operator=(const SessionRunner&) = delete;

  /// Runs `job` on the session thread; one job at a time (the caller waits
  /// for the job to report back before giving another).
  void run(std::function<void()> job);

 private:
  void loop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::function<void()> job_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace scoria::serve
