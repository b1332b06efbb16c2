// What a session works out once per task and then reads from the predicate
// workers without a lock (a pod's claims, prepared by the volume binder and
// the device allocator): made on first use under the owner's mutex, kept
// in a deque so that it never moves, published through an atomic pointer.
#pragma once

#include <atomic>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>

namespace scoria::session {

template <class T>
class MadeOnce {
 public:
  /// Forgets everything, for a session of `tasks` tasks.
  void reset(size_t tasks) {
    made_.clear();
    if (size_ != tasks) {
      at_ = std::make_unique<std::atomic<const T*>[]>(tasks);
      size_ = tasks;
    } else {
      for (size_t i = 0; i < size_; ++i) at_[i].store(nullptr, std::memory_order_relaxed);
    }
  }

  /// Task `index`'s record: made by `make()` (which returns a T, and is
  /// called with `mutex` held) the first time, read without the lock after.
  template <class Make>
  const T& get(size_t index, std::mutex& mutex, Make&& make) {
    std::atomic<const T*>& at = at_[index];
    if (const T* p = at.load(std::memory_order_acquire)) return *p;
    const std::lock_guard lock(mutex);
    if (const T* p = at.load(std::memory_order_relaxed)) return *p;
    const T& made = made_.emplace_back(make());
    at.store(&made, std::memory_order_release);
    return made;
  }

 private:
  std::deque<T> made_;
  std::unique_ptr<std::atomic<const T*>[]> at_;
  size_t size_ = 0;
};

}  // namespace scoria::session
