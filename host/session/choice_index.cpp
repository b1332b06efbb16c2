#include "session/choice_index.h"

namespace scoria::session {

namespace {
size_t as_position(uint32_t p, uint32_t empty) { return p == empty ? ChoiceIndex::kNone : p; }
}  // namespace

void ChoiceIndex::reset(size_t nodes) {
  generations_.assign(nodes, 0);
  scores_.assign(nodes, 0.0);
  leaves_ = 1;
  while (leaves_ < nodes) leaves_ *= 2;
  count_.assign(2 * leaves_, 0);
  best_idle_.assign(2 * leaves_, kEmpty);
  best_future_.assign(2 * leaves_, kEmpty);
}

size_t ChoiceIndex::better(size_t a, size_t b) const {
  if (a == kNone) return b;
  if (b == kNone) return a;
  if (scores_[a] > scores_[b]) return a;
  if (scores_[b] > scores_[a]) return b;
  return a < b ? a : b;
}

void ChoiceIndex::pull(size_t p) {
  const auto pick = [&](const std::vector<uint32_t>& best) {
    const size_t b = better(as_position(best[2 * p], kEmpty), as_position(best[2 * p + 1], kEmpty));
    return b == kNone ? kEmpty : static_cast<uint32_t>(b);
  };
  count_[p] = count_[2 * p] + count_[2 * p + 1];
  best_idle_[p] = pick(best_idle_);
  best_future_[p] = pick(best_future_);
}

void ChoiceIndex::set(size_t i, uint32_t generation, bool fits, bool idle, double score) {
  generations_[i] = generation;
  scores_[i] = score;
  size_t p = leaves_ + i;
  count_[p] = fits ? 1 : 0;
  best_idle_[p] = fits && idle ? static_cast<uint32_t>(i) : kEmpty;
  best_future_[p] = fits && !idle ? static_cast<uint32_t>(i) : kEmpty;
  for (p /= 2; p >= 1; p /= 2) pull(p);
}

size_t ChoiceIndex::fit_count(size_t begin, size_t end) const {
  size_t total = 0;
  for (size_t l = begin + leaves_, r = end + leaves_; l < r; l /= 2, r /= 2) {
    if (l & 1) total += count_[l++];
    if (r & 1) total += count_[--r];
  }
  return total;
}

size_t ChoiceIndex::nth_fit(size_t k) const {
  size_t p = 1;
  while (p < leaves_) {
    if (count_[2 * p] > k) {
      p = 2 * p;
    } else {
      k -= count_[2 * p];
      p = 2 * p + 1;
    }
  }
  return p - leaves_;
}

size_t ChoiceIndex::best(size_t begin, size_t end, bool idle) const {
  const std::vector<uint32_t>& tree = idle ? best_idle_ : best_future_;
  size_t found = kNone;
  for (size_t l = begin + leaves_, r = end + leaves_; l < r; l /= 2, r /= 2) {
    if (l & 1) found = better(found, as_position(tree[l++], kEmpty));
    if (r & 1) found = better(found, as_position(tree[--r], kEmpty));
  }
  return found;
}

}  // namespace scoria::session
