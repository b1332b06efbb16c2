// The entries of one kind in the cache: addresses that never move (a deque;
// a session points into it), slots reused after an erase instead of growing,
// a key index, and the order entries arrived in (what a full load from the
// same objects would give), kept without moving anything.
//
// `Hot` is what every snapshot reads of every entry: kept apart, side by
// side by slot, so that a walk over all entries streams through a few bytes
// each instead of missing the cache on each large entry.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace scoria::cache {

inline constexpr uint32_t kNone = UINT32_MAX;

struct NoHotFields {};

template <class Entry, class Hot = NoHotFields>
class SlotTable {
 public:
  /// The slot under `key`, or kNone.
  uint32_t find(const std::string& key) const {
    const auto it = index_.find(key);
    return it == index_.end() ? kNone : it->second;
  }

  /// A fresh entry, last in arrival order; indexed under `key` unless it is
  /// empty (an entry may wait for its name, see index()).
  uint32_t insert(const std::string& key) {
    uint32_t slot;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
    } else {
      slot = static_cast<uint32_t>(entries_.size());
      entries_.emplace_back();
      hot_.emplace_back();
      seq_.push_back(0);
      keys_.emplace_back();
    }
    seq_[slot] = next_seq_++;
    order_.emplace_back(seq_[slot], slot);
    ++live_;
    if (!key.empty()) index(slot, key);
    return slot;
  }

  /// Frees `slot`: its content is dropped now, its address is reused later.
  void erase(uint32_t slot) {
    unindex(slot);
    drop_order(slot);
    entries_[slot] = Entry{};
    hot_[slot] = Hot{};
    seq_[slot] = 0;
    free_.push_back(slot);
    --live_;
  }

  void index(uint32_t slot, const std::string& key) {
    keys_[slot] = key;
    index_[key] = slot;
  }
  void unindex(uint32_t slot) {
    if (keys_[slot].empty()) return;
    index_.erase(keys_[slot]);
    keys_[slot].clear();
  }

  /// The entry arrives again: last in order, as a new object would be.
  void move_last(uint32_t slot) {
    drop_order(slot);
    seq_[slot] = next_seq_++;
    order_.emplace_back(seq_[slot], slot);
  }

  Entry& at(uint32_t slot) { return entries_[slot]; }
  const Entry& at(uint32_t slot) const { return entries_[slot]; }
  Hot& hot(uint32_t slot) { return hot_[slot]; }
  const Hot& hot(uint32_t slot) const { return hot_[slot]; }
  const std::string& key(uint32_t slot) const { return keys_[slot]; }
  /// Arrival rank: larger arrived later; 0 for a free slot.
  uint64_t seq(uint32_t slot) const { return seq_[slot]; }
  bool live(uint32_t slot) const { return slot < seq_.size() && seq_[slot] != 0; }
  size_t size() const { return live_; }
  size_t slots() const { return entries_.size(); }

  /// Calls f(slot) for live entries in arrival order, touching no entry.
  template <class F>
  void each_slot(F&& f) const {
    for (const auto& [seq, slot] : order_)
      if (slot != kNone) f(slot);
  }
  /// Calls f(slot, entry) for live entries in arrival order.
  template <class F>
  void each(F&& f) const {
    each_slot([&](uint32_t slot) { f(slot, entries_[slot]); });
  }
  template <class F>
  void each(F&& f) {
    each_slot([&](uint32_t slot) { f(slot, entries_[slot]); });
  }

  /// Room for `n` entries, so that a full load does not grow (and rehash)
  /// the index as it goes. (Entries sit in a deque: they never move.)
  void reserve(size_t n) {
    hot_.reserve(n);
    seq_.reserve(n);
    keys_.reserve(n);
    order_.reserve(n);
    index_.reserve(n);
  }

  void clear() {
    entries_.clear();
    hot_.clear();
    seq_.clear();
    keys_.clear();
    free_.clear();
    index_.clear();
    order_.clear();
    holes_ = 0;
    live_ = 0;
  }

 private:
  void drop_order(uint32_t slot) {
    // order_ is sorted by seq: every entry is appended with a larger one.
    const auto it = std::lower_bound(order_.begin(), order_.end(), std::make_pair(seq_[slot], 0U));
    if (it != order_.end() && it->first == seq_[slot]) {
      it->second = kNone;
      ++holes_;
    }
    if (holes_ > 64 && holes_ * 2 > order_.size()) {
      std::erase_if(order_, [](const auto& o) { return o.second == kNone; });
      holes_ = 0;
    }
  }

  std::deque<Entry> entries_;
  std::vector<Hot> hot_;
  std::vector<uint64_t> seq_;
  std::vector<std::string> keys_;
  std::vector<uint32_t> free_;
  std::unordered_map<std::string, uint32_t> index_;
  std::vector<std::pair<uint64_t, uint32_t>> order_;  // (seq, slot); kNone: a hole
  size_t holes_ = 0;
  size_t live_ = 0;
  uint64_t next_seq_ = 1;
};

}  // namespace scoria::cache
