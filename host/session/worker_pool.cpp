#include "session/worker_pool.h"

namespace scoria::session {

WorkerPool::WorkerPool(size_t threads) {
  for (size_t i = 1; i < threads; ++i) workers_.emplace_back([this, i] { run(i); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

static std::pair<size_t, size_t> chunk(size_t count, size_t parts, size_t i) {
  size_t per = count / parts, extra = count % parts;
  size_t begin = i * per + (i < extra ? i : extra);
  return {begin, begin + per + (i < extra ? 1 : 0)};
}

void WorkerPool::parallel_for(size_t count, const ChunkFn& fn) {
  if (workers_.empty() || count < 2) {
    fn(0, 0, count);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    job_ = &fn;
    count_ = count;
    pending_ = workers_.size();
    ++generation_;
  }
  wake_.notify_all();
  auto [b, e] = chunk(count, size(), 0);
  fn(0, b, e);
  std::unique_lock lock(mutex_);
  done_.wait(lock, [this] { return pending_ == 0; });
  job_ = nullptr;
}

void WorkerPool::run(size_t worker) {
  size_t seen = 0;
  for (;;) {
    const ChunkFn* fn;
    size_t count;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      fn = job_;
      count = count_;
    }
    auto [b, e] = chunk(count, size(), worker);
    (*fn)(worker, b, e);
    {
      std::lock_guard lock(mutex_);
      if (--pending_ == 0) done_.notify_one();
    }
  }
}

}  // namespace scoria::session
