// Work over many independent items (documents) on every core, claimed in
// order in batches: after an item fails no new batch is claimed, and every
// item before the first failure has been done, so the error a caller
// reports is the first in the input, as a sequential reader would report.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <system_error>
#include <thread>
#include <vector>

namespace scoria::input {

/// Calls `work(i)` for i in [0, n); `work` returns false when item i failed.
/// Items are claimed `batch` at a time: fewer for larger items, so that the
/// cores finish together.
template <class F>
void run_ordered_batches(size_t n, F&& work, size_t batch = 32) {
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  auto worker = [&] {
    while (!stop.load(std::memory_order_relaxed)) {
      const size_t begin = next.fetch_add(batch);
      if (begin >= n) return;
      const size_t end = std::min(n, begin + batch);
      for (size_t i = begin; i < end; ++i)
        if (!work(i)) stop = true;
    }
  };
  const size_t cores = std::max(1U, std::thread::hardware_concurrency());
  const size_t helpers = std::min(cores, n / (4 * batch) + 1) - 1;
  std::vector<std::jthread> threads;
  try {
    for (size_t i = 0; i < helpers; ++i) threads.emplace_back(worker);
  } catch (const std::system_error&) {
    // No more threads to be had: the ones running (and this one) suffice.
  }
  worker();
}

}  // namespace scoria::input
