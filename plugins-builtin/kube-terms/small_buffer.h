// An array of n items kept inline up to N, so that the usual handful of
// tolerations or affinity terms costs no heap allocation per hook call.
#ifndef SCORIA_KUBE_TERMS_SMALL_BUFFER_H
#define SCORIA_KUBE_TERMS_SMALL_BUFFER_H

#include <array>
#include <cstddef>
#include <span>
#include <vector>

namespace kube {

template <typename T, size_t N>
class SmallBuffer {
 public:
  explicit SmallBuffer(size_t n) : size_(n) {
    if (n > N) heap_.resize(n);
  }
  SmallBuffer(const SmallBuffer&) = delete;
  SmallBuffer& operator=(const SmallBuffer&) = delete;

  std::span<T> items() { return {size_ > N ? heap_.data() : inline_.data(), size_}; }
  std::span<const T> items() const { return {size_ > N ? heap_.data() : inline_.data(), size_}; }
  bool empty() const { return size_ == 0; }

 private:
  std::array<T, N> inline_{};
  std::vector<T> heap_;
  size_t size_;
};

}  // namespace kube

#endif  // SCORIA_KUBE_TERMS_SMALL_BUFFER_H
