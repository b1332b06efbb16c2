// Resource vectors: dense doubles indexed by dimension (cpu millicores,
// memory bytes, pods, then extended resources), compared with Volcano's
// tolerance so that rounding never makes a fitting task look too big.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>

namespace scoria::model {

/// Volcano's minResource: differences below it are noise (the SDK's
/// SCORIA_RESOURCE_EPSILON, which plugins see).
inline constexpr double kResourceEpsilon = 0.1;

/// l <= r within the tolerance.
inline bool less_equal(double l, double r) { return l < r || std::fabs(l - r) < kResourceEpsilon; }

/// l <= r in every dimension.
inline bool less_equal(std::span<const double> l, std::span<const double> r) {
  for (size_t i = 0; i < l.size() && i < r.size(); ++i)
    if (!less_equal(l[i], r[i])) return false;
  return true;
}

/// The first dimension in which `need` exceeds the future idle resources of
/// a node (idle + releasing - pipelined), or `need.size()` if it fits.
inline size_t first_short_dimension(std::span<const double> need, const double* idle,
                                    const double* releasing, const double* pipelined) {
  for (size_t k = 0; k < need.size(); ++k)
    if (!less_equal(need[k], idle[k] + releasing[k] - pipelined[k])) return k;
  return need.size();
}

/// to += sign * v, dimension by dimension.
inline void add(std::span<double> to, std::span<const double> v, double sign = 1.0) {
  for (size_t i = 0; i < to.size() && i < v.size(); ++i) to[i] += sign * v[i];
}

/// True when nothing but `ignored` (the pod count) is asked for: Volcano's
/// best-effort test.
inline bool is_empty(std::span<const double> r, size_t ignored) {
  for (size_t i = 0; i < r.size(); ++i)
    if (i != ignored && r[i] >= kResourceEpsilon) return false;
  return true;
}

/// Sums of whole numbers are exact below this (2^53), in any order: what
/// is kept summed as values come and go (a kept session's node and queue
/// sums, a timed run's node use) is then what summing anew gives.
inline constexpr double kExactSums = 9007199254740992.0;

/// Every value a whole number below kExactSums. (The cast is exact and
/// defined there; std::trunc is a libm call on the baseline x86-64.)
inline bool whole_numbers(std::span<const double> v) {
  for (double x : v)
    if (!(std::fabs(x) < kExactSums) || x != static_cast<double>(static_cast<int64_t>(x)))
      return false;
  return true;
}

}  // namespace scoria::model
