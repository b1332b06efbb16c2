// cpuset.hpp — sets of CPU ids in the Linux list form ("0-3,8,10-11"), as
// the kubelet's CPU manager and Volcano's Numatopology write them.
//
// The host checks a Numatopology's cpusets with parse_cpuset when it loads
// the object; a plugin reading the object's JSON parses them with the same
// function, so both agree on what is well formed.
//
// Header-only, C++20, no plugin state.
#ifndef SCORIA_CPUSET_HPP
#define SCORIA_CPUSET_HPP

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace scoria {

/// A set of CPU ids from 0 to CpuSet::kMaxCpu, as a bitset.
class CpuSet {
 public:
  /// The largest id a set holds: far beyond any machine, and small enough
  /// that a written range ("0-4000000000") cannot take the memory.
  static constexpr int32_t kMaxCpu = 65535;

  CpuSet() = default;

  void add(int32_t cpu) {
    const auto w = static_cast<size_t>(cpu) / 64;
    if (words_.size() <= w) words_.resize(w + 1, 0);
    words_[w] |= uint64_t{1} << (static_cast<unsigned>(cpu) % 64);
  }
  bool contains(int32_t cpu) const {
    const auto w = static_cast<size_t>(cpu) / 64;
    return cpu >= 0 && w < words_.size() &&
           ((words_[w] >> (static_cast<unsigned>(cpu) % 64)) & 1u) != 0;
  }
  size_t size() const {
    size_t n = 0;
    for (const uint64_t w : words_) n += static_cast<size_t>(std::popcount(w));
    return n;
  }
  bool empty() const {
    return std::all_of(words_.begin(), words_.end(), [](uint64_t w) { return w == 0; });
  }

  CpuSet& operator|=(const CpuSet& o) {
    if (words_.size() < o.words_.size()) words_.resize(o.words_.size(), 0);
    for (size_t i = 0; i < o.words_.size(); ++i) words_[i] |= o.words_[i];
    return *this;
  }
  CpuSet& operator&=(const CpuSet& o) {
    for (size_t i = 0; i < words_.size(); ++i) words_[i] &= i < o.words_.size() ? o.words_[i] : 0;
    return *this;
  }
  /// Removes the CPUs of `o`.
  CpuSet& operator-=(const CpuSet& o) {
    for (size_t i = 0; i < words_.size() && i < o.words_.size(); ++i) words_[i] &= ~o.words_[i];
    return *this;
  }
  friend CpuSet operator|(CpuSet a, const CpuSet& b) { return a |= b; }
  friend CpuSet operator&(CpuSet a, const CpuSet& b) { return a &= b; }
  friend CpuSet operator-(CpuSet a, const CpuSet& b) { return a -= b; }
  friend bool operator==(const CpuSet& a, const CpuSet& b) {
    const size_t n = std::max(a.words_.size(), b.words_.size());
    for (size_t i = 0; i < n; ++i) {
      const uint64_t x = i < a.words_.size() ? a.words_[i] : 0;
      const uint64_t y = i < b.words_.size() ? b.words_[i] : 0;
      if (x != y) return false;
    }
    return true;
  }

  /// Calls f(cpu) for each CPU, in ascending order.
  template <class F>
  void each(F&& f) const {
    for (size_t i = 0; i < words_.size(); ++i)
      for (uint64_t w = words_[i]; w != 0; w &= w - 1)
        f(static_cast<int32_t>(i * 64 + static_cast<size_t>(std::countr_zero(w))));
  }
  std::vector<int32_t> list() const {
    std::vector<int32_t> out;
    each([&](int32_t c) { out.push_back(c); });
    return out;
  }

  /// The list form, ranges joined: "0-3,8".
  std::string str() const {
    std::string out;
    const std::vector<int32_t> cpus = list();
    for (size_t i = 0; i < cpus.size();) {
      size_t j = i;
      while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
      if (!out.empty()) out += ',';
      out += std::to_string(cpus[i]);
      if (j > i) out += '-' + std::to_string(cpus[j]);
      i = j + 1;
    }
    return out;
  }

 private:
  std::vector<uint64_t> words_;
};

namespace cpuset_detail {

inline std::optional<int32_t> cpu_id(std::string_view s) {
  int32_t v = 0;
  if (s.empty() || s.front() < '0' || s.front() > '9') return std::nullopt;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v > CpuSet::kMaxCpu) return std::nullopt;
  return v;
}

}  // namespace cpuset_detail

/// Parses the list form as the kubelet's cpuset.Parse does: "" is the empty
/// set, items are separated by ',' and each is an id or a range "A-B" with
/// A <= B. On failure returns nullopt and says why in `error`.
inline std::optional<CpuSet> parse_cpuset(std::string_view s, std::string& error) {
  CpuSet out;
  if (s.empty()) return out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = std::min(s.find(',', start), s.size());
    const std::string_view item = s.substr(start, comma - start);
    const size_t dash = item.find('-');
    const auto first = cpuset_detail::cpu_id(item.substr(0, dash));
    const auto last =
        dash == std::string_view::npos ? first : cpuset_detail::cpu_id(item.substr(dash + 1));
    if (!first || !last) {
      error = "\"" + std::string(item) + "\" is not a CPU id (0 to " +
              std::to_string(CpuSet::kMaxCpu) + ") or a range of them such as 0-3";
      return std::nullopt;
    }
    if (*first > *last) {
      error = "\"" + std::string(item) + "\" is a range that ends before it starts";
      return std::nullopt;
    }
    for (int32_t c = *first; c <= *last; ++c) out.add(c);
    start = comma + 1;
  }
  return out;
}

}  // namespace scoria

#endif  // SCORIA_CPUSET_HPP
