// Resource vectors by slot, `width` doubles each, at addresses that never
// move while the width holds: the cache's kept snapshot points at them, so a
// store that had to grow (a pod arriving) would otherwise have every job
// written again. Chunks of slots, each allocated once; new ones are zeros.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace scoria::cache {

class VectorStore {
 public:
  /// Drops every vector; the next ones are `width` wide. Every address
  /// handed out before is gone (generation() changes).
  void reset(size_t width) {
    width_ = width;
    chunks_.clear();
    ++generation_;
  }
  /// Slot `slot`'s vector, made (zeros) if the store did not reach it.
  std::span<double> at(uint32_t slot) {
    const size_t chunk = slot / kSlotsPerChunk;
    while (chunks_.size() <= chunk)
      chunks_.push_back(std::make_unique<double[]>(kSlotsPerChunk * width_));
    return {chunks_[chunk].get() + (slot % kSlotsPerChunk) * width_, width_};
  }
  /// A vector made before.
  std::span<const double> at(uint32_t slot) const {
    return {chunks_[slot / kSlotsPerChunk].get() + (slot % kSlotsPerChunk) * width_, width_};
  }
  /// Changes whenever addresses handed out may have gone.
  uint64_t generation() const { return generation_; }

 private:
  static constexpr size_t kSlotsPerChunk = 1024;
  size_t width_ = 0;
  std::vector<std::unique_ptr<double[]>> chunks_;
  uint64_t generation_ = 0;
};

}  // namespace scoria::cache
