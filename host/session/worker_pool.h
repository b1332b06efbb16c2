// A small pool of long-lived threads that split one loop between them, so
// the per-node predicate loop uses both cores without spawning a thread per
// task.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace scoria::session {

class WorkerPool {
 public:
  /// `threads` counts the calling thread: 1 means no extra threads.
  explicit WorkerPool(size_t threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  size_t size() const { return workers_.size() + 1; }

  /// Calls fn(chunk, begin, end) over [0, count) split into size()
  /// contiguous chunks, one per thread (chunk 0 on the caller), and returns
  /// when all are done. Not reentrant.
  using ChunkFn = std::function<void(size_t, size_t, size_t)>;
  void parallel_for(size_t count, const ChunkFn& fn);

 private:
  void run(size_t worker);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const ChunkFn* job_ = nullptr;
  size_t count_ = 0;
  size_t generation_ = 0;
  size_t pending_ = 0;
  bool stop_ = false;
};

}  // namespace scoria::session
