#include "serve/session_runner.h"

#include <utility>

namespace scoria::serve {

SessionRunner::SessionRunner() : thread_([this] { loop(); }) {}

SessionRunner::~SessionRunner() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void SessionRunner::run(std::function<void()> job) {
  {
    const std::lock_guard lock(mutex_);
    job_ = std::move(job);
  }
  wake_.notify_one();
}

void SessionRunner::loop() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stop_ || job_; });
      if (stop_ && !job_) return;
      job = std::exchange(job_, nullptr);
    }
    job();
  }
}

}  // namespace scoria::serve
