// What the informers' threads have decoded, waiting for the event loop to
// apply it to the cache (the cache is touched by the loop only, between
// sessions). Each informer says when its first list is in: the first
// session waits for all of them, as Volcano waits for its caches to sync.
#pragma once

#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cache/object_change.h"

namespace scoria::kube {

class ChangeQueue {
 public:
  void push(std::vector<cache::ObjectChange> changes) {
    std::lock_guard lock(mutex_);
    if (pending_.empty()) {
      pending_ = std::move(changes);
      return;
    }
    for (cache::ObjectChange& c : changes) pending_.push_back(std::move(c));
  }
  void push(cache::ObjectChange change) {
    std::lock_guard lock(mutex_);
    pending_.push_back(std::move(change));
  }
  /// `resource` (a plural, "pods") has its first list in the queue.
  void listed(const std::string& resource) {
    std::lock_guard lock(mutex_);
    listed_.insert(resource);
  }
  std::set<std::string> listed() const {
    std::lock_guard lock(mutex_);
    return listed_;
  }
  /// Everything pushed so far, in order.
  std::vector<cache::ObjectChange> take() {
    std::lock_guard lock(mutex_);
    return std::exchange(pending_, {});
  }

 private:
  mutable std::mutex mutex_;
  std::vector<cache::ObjectChange> pending_;
  std::set<std::string> listed_;
};

}  // namespace scoria::kube
