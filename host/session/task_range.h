// A job's tasks: a session lays each job's tasks out side by side, so a job
// holds the range of their indices instead of a list of its own (one
// allocation fewer per job and session).
//
// Not std::ranges::iota_view: clang 14 cannot instantiate libstdc++ 12's
// (the fuzz build uses it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>

namespace scoria::session {

class TaskRange {
 public:
  /// Yields each index by value, as iota_view's iterator does: a C++20
  /// forward iterator, an input iterator to the older algorithms (its
  /// reference is not a reference).
  class iterator {
   public:
    using value_type = uint32_t;
    using difference_type = std::ptrdiff_t;
    using reference = uint32_t;
    using pointer = void;
    using iterator_category = std::input_iterator_tag;
    using iterator_concept = std::forward_iterator_tag;

    iterator() = default;
    explicit iterator(uint32_t index) : index_(index) {}
    uint32_t operator*() const { return index_; }
    iterator& operator++() {
      ++index_;
      return *this;
    }
    iterator operator++(int) {
      const iterator before = *this;
      ++index_;
      return before;
    }
    bool operator==(const iterator&) const = default;

   private:
    uint32_t index_ = 0;
  };

  TaskRange() = default;
  /// Indices first, first + 1, ..., last - 1.
  TaskRange(uint32_t first, uint32_t last) : first_(first), last_(last < first ? first : last) {}

  iterator begin() const { return iterator(first_); }
  iterator end() const { return iterator(last_); }
  size_t size() const { return last_ - first_; }
  bool empty() const { return first_ == last_; }
  /// The i-th index; i < size().
  uint32_t operator[](size_t i) const { return first_ + static_cast<uint32_t>(i); }

 private:
  uint32_t first_ = 0;
  uint32_t last_ = 0;
};

}  // namespace scoria::session
