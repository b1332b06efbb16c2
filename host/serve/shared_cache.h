// The cluster cache as the service's two threads share it. The loop changes
// it (a refresh before a session, a record after) only while no session
// holds it; a session holds it through a Loan, given out and taken back on
// the loop. While it is lent the loop reads only dims(), which nothing but
// a change writes: even const members of the cache keep views up to date
// (the storage index, the kept snapshot), so they are the loan's alone.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "cache/cluster_cache.h"

namespace scoria::serve {

class SharedCache {
 public:
  /// What the session thread may do with the cache: bring its kept
  /// snapshot up to date, and read it. Destroying the loan returns the
  /// cache; that happens on the loop, once the session's outcome is back.
  class Loan {
   public:
    Loan(Loan&& other) noexcept : owner_(std::exchange(other.owner_, nullptr)) {}
    Loan& operator=(Loan&&) = delete;
    Loan(const Loan&) = delete;
    Loan& operator=(const Loan&) = delete;
    ~Loan() {
      if (owner_ != nullptr) owner_->lent_.store(false, std::memory_order_release);
    }

    const cycle::Snapshot& refresh_snapshot(int64_t now_ms, bool incremental) {
      return owner_->cache_.refresh_snapshot(now_ms, incremental);
    }
    const cache::ClusterCache& read() const { return owner_->cache_; }

   private:
    friend class SharedCache;
    explicit Loan(SharedCache& owner) : owner_(&owner) {}
    SharedCache* owner_;
  };

  SharedCache() = default;
  SharedCache(const SharedCache&) = delete;
  SharedCache& operator=(const SharedCache&) = delete;

  /// On the loop: the cache, to change or to read whole. Throws
  /// std::logic_error while a session holds it.
  cache::ClusterCache& change();
  /// On the loop: lends the cache to a session. Throws std::logic_error
  /// while another holds it.
  Loan lend();
  /// Whether a session holds the cache.
  bool lent() const { return lent_.load(std::memory_order_acquire); }
  /// On the loop, at any time: the resource names vectors are indexed by.
  const std::vector<std::string>& dims() const { return cache_.dims(); }

 private:
  cache::ClusterCache cache_;
  std::atomic<bool> lent_{false};
};

}  // namespace scoria::serve
