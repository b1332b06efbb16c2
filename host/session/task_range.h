// A job's tasks: a session lays each job's tasks out side by side, so a job
// holds the range of their indices instead of a list of its own (one
// allocation fewer per job and session).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>

namespace scoria::session {

class TaskRange {
 public:
  class iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = uint32_t;
    using difference_type = std::ptrdiff_t;
    using pointer = const uint32_t*;
    using reference = uint32_t;

    iterator() = default;
    explicit iterator(uint32_t at) : at_(at) {}
    uint32_t operator*() const { return at_; }
    iterator& operator++() {
      ++at_;
      return *this;
    }
    iterator operator++(int) { return iterator(at_++); }
    difference_type operator-(const iterator& o) const {
      return static_cast<difference_type>(at_) - static_cast<difference_type>(o.at_);
    }
    bool operator==(const iterator&) const = default;

   private:
    uint32_t at_ = 0;
  };

  TaskRange() = default;
  TaskRange(uint32_t first, uint32_t count) : first_(first), count_(count) {}

  iterator begin() const { return iterator(first_); }
  iterator end() const { return iterator(first_ + count_); }
  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  /// The index of the job's i-th task (i below size()).
  uint32_t operator[](size_t i) const { return first_ + static_cast<uint32_t>(i); }

 private:
  uint32_t first_ = 0;
  uint32_t count_ = 0;
};

}  // namespace scoria::session
