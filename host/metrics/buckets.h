// Histogram bucket boundaries as Volcano declares them.
#pragma once

#include <prometheus/histogram.h>

#include <cmath>
#include <cstddef>

namespace scoria::metrics {

/// client_golang's ExponentialBucketsRange(min, max, count): `count`
/// boundaries from `min` to `max`, each the last times (max/min)^(1/(count-1)).
inline prometheus::Histogram::BucketBoundaries exponential_buckets_range(double min, double max,
                                                                         size_t count) {
  prometheus::Histogram::BucketBoundaries b;
  const double factor = std::pow(max / min, 1.0 / static_cast<double>(count - 1));
  for (size_t i = 0; i < count; ++i) b.push_back(min * std::pow(factor, static_cast<double>(i)));
  return b;
}

}  // namespace scoria::metrics
