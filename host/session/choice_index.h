// The nodes of one equivalence class, ordered for allocate's choice
// (NodeSearch::select_node): which nodes a task of the class fits, which of
// those have the resources idle now, and each node's score. A segment tree
// over node positions answers what the plain path finds by a scan, in
// O(log nodes): how many nodes fit in a range, where the k-th fitting node
// is, and the best scored node of a range (ties to the lower position).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace scoria::session {

class ChoiceIndex {
 public:
  static constexpr size_t kNone = SIZE_MAX;

  ChoiceIndex() = default;
  explicit ChoiceIndex(size_t nodes) { reset(nodes); }

  /// Nothing recorded, over `nodes` nodes (the arrays' storage kept).
  void reset(size_t nodes);

  /// About what an index over `nodes` nodes holds, in bytes.
  static size_t bytes_for(size_t nodes) {
    size_t leaves = 1;
    while (leaves < nodes) leaves *= 2;
    return nodes * (sizeof(uint32_t) + sizeof(double)) + 2 * leaves * 3 * sizeof(uint32_t);
  }

  size_t size() const { return generations_.size(); }

  /// The generation (EquivalenceCache::generation) node `i`'s entry was
  /// recorded under; 0 until it is.
  uint32_t generation(size_t i) const { return generations_[i]; }

  /// Takes node `i`'s entry as of `generation` before set() records it (so
  /// that a node changed twice is listed once).
  void claim(size_t i, uint32_t generation) { generations_[i] = generation; }

  /// Records node `i`: whether the task fits it, whether it fits its idle
  /// resources now, and its score (read only when it fits).
  void set(size_t i, uint32_t generation, bool fits, bool idle, double score);

  /// Fitting nodes in positions [begin, end).
  size_t fit_count(size_t begin, size_t end) const;

  /// Position of the k-th fitting node (0-based) counted from position 0;
  /// k < fit_count(0, size()).
  size_t nth_fit(size_t k) const;

  /// The best scored fitting node in [begin, end) among those that fit
  /// their idle resources (idle) or only their future idle (!idle); ties go
  /// to the lower position. kNone if there is none.
  size_t best(size_t begin, size_t end, bool idle) const;

  /// Of two positions (either may be kNone), the better scored; ties to
  /// the lower.
  size_t better(size_t a, size_t b) const;

 private:
  void pull(size_t p);

  size_t leaves_ = 1;  // a power of two, at least size()
  std::vector<uint32_t> generations_;
  std::vector<double> scores_;  // by position
  // Tree arrays, 1-based, leaves at [leaves_, 2 * leaves_).
  std::vector<uint32_t> count_;
  std::vector<uint32_t> best_idle_;    // a position, or kEmpty
  std::vector<uint32_t> best_future_;  // a position, or kEmpty
  static constexpr uint32_t kEmpty = UINT32_MAX;
};

}  // namespace scoria::session
