#pragma once

#include <cstddef>
#include <memory>
#include <memory_resource>
#include <optional>

namespace scoria::session {

/// Where the nodes' task lists live: one buffer for all of them (instead of
/// an allocation each), given back whole when the records are written
/// anew, and then one block as large as all it took last time. It counts
/// what the lists took, so that records kept long enough for their lists to
/// be rewritten many times are written anew.
class NodeTaskMemory {
 public:
  NodeTaskMemory() { release(); }
  NodeTaskMemory(const NodeTaskMemory&) = delete;
  NodeTaskMemory& operator=(const NodeTaskMemory&) = delete;
  std::pmr::memory_resource* resource() { return &front_; }
  size_t taken() const { return front_.taken; }
  /// Every list in it must be gone.
  void release() {
    buffer_.reset();
    if (front_.taken > block_size_) {
      block_size_ = front_.taken + front_.taken / 4;
      block_ = std::make_unique_for_overwrite<std::byte[]>(block_size_);
    }
    if (block_size_ == 0)
      buffer_.emplace(std::pmr::new_delete_resource());
    else
      buffer_.emplace(block_.get(), block_size_, std::pmr::new_delete_resource());
    front_.to = &*buffer_;
    front_.taken = 0;
  }

 private:
  struct Front final : std::pmr::memory_resource {
    size_t taken = 0;
    std::pmr::memory_resource* to = nullptr;
    void* do_allocate(size_t bytes, size_t align) override {
      taken += bytes;
      return to->allocate(bytes, align);
    }
    void do_deallocate(void* p, size_t bytes, size_t align) override {
      to->deallocate(p, bytes, align);
    }
    bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override {
      return this == &o;
    }
  };
  std::unique_ptr<std::byte[]> block_;
  size_t block_size_ = 0;
  std::optional<std::pmr::monotonic_buffer_resource> buffer_;
  Front front_;
};

}  // namespace scoria::session
