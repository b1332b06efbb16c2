// The entries of one kind in the cache: addresses that never move (a deque;
// a session points into it), slots reused after an erase instead of growing,
// a key index, and the order entries arrived in (what a full load from the
// same objects would give), kept without moving anything.
//
// An erased slot is reused only after the second forget_changes() from its
// erase: what the cache keeps by slot beside the table (request vectors)
// holds its values through the refresh that reports the entry gone and the
// session that follows it, which takes what it summed of them off its sums.
//
// `Hot` is what every snapshot reads of every entry: kept apart, side by
// side by slot, so that a walk over all entries streams through a few bytes
// each instead of missing the cache on each large entry.
//
// The table also notes which slots may have changed (every write access
// counts, see changed()), so that what is derived from its entries (the
// cache's kept snapshot) is brought up to date for those only.
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
      identity_.push_back(0);
      keys_.emplace_back();
    }
    seq_[slot] = next_seq_++;
    identity_[slot] = seq_[slot];
    order_.emplace_back(seq_[slot], slot);
    ++live_;
    ++order_version_;
    touch(slot);
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
    identity_[slot] = 0;
    retired_.push_back(slot);
    --live_;
    ++order_version_;
    touch(slot);
  }

  void index(uint32_t slot, const std::string& key) {
    touch(slot);
    // Under another key it is another object to whoever held its identity.
    if (keys_[slot] != key) identity_[slot] = next_seq_++;
    keys_[slot] = key;
    index_[key] = slot;
  }
  void unindex(uint32_t slot) {
    if (keys_[slot].empty()) return;
    touch(slot);
    identity_[slot] = next_seq_++;
    index_.erase(keys_[slot]);
    keys_[slot].clear();
  }

  /// The entry arrives again: last in order, as a new object would be.
  void move_last(uint32_t slot) {
    drop_order(slot);
    seq_[slot] = next_seq_++;
    order_.emplace_back(seq_[slot], slot);
    ++order_version_;
    ++move_version_;
    touch(slot);
  }

  /// Write access: the slot counts as changed (changed()). Read through a
  /// const table where nothing is written.
  Entry& at(uint32_t slot) {
    touch(slot);
    return entries_[slot];
  }
  const Entry& at(uint32_t slot) const { return entries_[slot]; }
  Hot& hot(uint32_t slot) {
    touch(slot);
    return hot_[slot];
  }
  const Hot& hot(uint32_t slot) const { return hot_[slot]; }
  const std::string& key(uint32_t slot) const { return keys_[slot]; }
  /// Arrival rank: larger arrived later; 0 for a free slot.
  uint64_t seq(uint32_t slot) const { return seq_[slot]; }
  /// What the slot holds, as a number unique in the table's life: new with
  /// each entry and each key it is indexed under again (a rename); 0 for a
  /// free slot. Equal identities mean the same entry under the same key.
  uint64_t identity(uint32_t slot) const { return identity_[slot]; }
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
    each_slot([&](uint32_t slot) { f(slot, at(slot)); });
  }

  /// Slots written since the last forget_changes(), each once: through a
  /// non-const at() or hot(), or inserted, erased, (un)indexed or moved. A
  /// slot not listed holds what it held then.
  const std::vector<uint32_t>& changed() const { return changed_; }
  /// Also frees the slots erased before the last call (see above).
  void forget_changes() {
    for (uint32_t slot : changed_) changed_flag_[slot] = 0;
    changed_.clear();
    free_.insert(free_.end(), releasing_.begin(), releasing_.end());
    releasing_.swap(retired_);
    retired_.clear();
  }
  /// Bumped whenever the arrival order changes (insert, erase, move_last).
  uint64_t order_version() const { return order_version_; }
  /// Bumped whenever an entry moves in the arrival order (move_last, clear):
  /// while it holds, the entries there stand in the order they stood, those
  /// erased taken out and those inserted after them.
  uint64_t move_version() const { return move_version_; }

  /// Room for `n` entries, so that a full load does not grow (and rehash)
  /// the index as it goes. (Entries sit in a deque: they never move.)
  void reserve(size_t n) {
    hot_.reserve(n);
    seq_.reserve(n);
    identity_.reserve(n);
    order_.reserve(n);
    index_.reserve(n);
  }

  void clear() {
    entries_.clear();
    hot_.clear();
    seq_.clear();
    identity_.clear();
    keys_.clear();
    free_.clear();
    retired_.clear();
    releasing_.clear();
    index_.clear();
    order_.clear();
    changed_.clear();
    changed_flag_.clear();
    holes_ = 0;
    live_ = 0;
    ++order_version_;
    ++move_version_;
  }

 private:
  void touch(uint32_t slot) {
    if (slot >= changed_flag_.size()) changed_flag_.resize(entries_.size(), 0);
    if (changed_flag_[slot] != 0) return;
    changed_flag_[slot] = 1;
    changed_.push_back(slot);
  }

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
  std::vector<uint64_t> identity_;
  // A deque, as the entries: a snapshot holds views of the keys.
  std::deque<std::string> keys_;
  std::vector<uint32_t> free_;
  std::vector<uint32_t> retired_, releasing_;  // erased: free after one, two forget_changes()
  std::unordered_map<std::string, uint32_t> index_;
  std::vector<std::pair<uint64_t, uint32_t>> order_;  // (seq, slot); kNone: a hole
  std::vector<uint32_t> changed_;
  std::vector<uint8_t> changed_flag_;  // by slot: listed in changed_
  size_t holes_ = 0;
  size_t live_ = 0;
  uint64_t next_seq_ = 1;
  uint64_t order_version_ = 0;
  uint64_t move_version_ = 0;
};

}  // namespace scoria::cache
