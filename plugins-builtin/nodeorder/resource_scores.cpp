#include "resource_scores.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>

#include "node_score.h"

namespace nodeorder {

namespace {

int64_t least_requested(int64_t requested, int64_t capacity) {
  if (capacity == 0 || requested > capacity) return 0;
  return (capacity - requested) * kMaxNodeScore / capacity;
}

int64_t most_requested(int64_t requested, int64_t capacity) {
  if (capacity == 0) return 0;
  return std::min(requested, capacity) * kMaxNodeScore / capacity;
}

template <class Score>
int64_t weighted(const ResourceUse& cpu, const ResourceUse& memory, int64_t cpu_weight,
                 int64_t memory_weight, Score score) {
  int64_t sum = 0;
  int64_t weights = 0;
  for (const auto& [use, weight] : {std::pair{cpu, cpu_weight}, std::pair{memory, memory_weight}}) {
    if (use.allocatable == 0) continue;
    sum += score(use.requested + use.pod, use.allocatable) * weight;
    weights += weight;
  }
  return weights == 0 ? 0 : sum / weights;
}

}  // namespace

int64_t least_allocated(const ResourceUse& cpu, const ResourceUse& memory) {
  return weighted(cpu, memory, 50, 50, least_requested);
}

int64_t most_allocated(const ResourceUse& cpu, const ResourceUse& memory) {
  return weighted(cpu, memory, 1, 1, most_requested);
}

int64_t balanced_allocation(const ResourceUse& cpu, const ResourceUse& memory,
                            const std::optional<ResourceUse>& gpu) {
  // Called for every candidate node of every task: no allocation here.
  std::array<double, 3> fractions{};
  size_t n = 0;
  const auto add = [&](const ResourceUse& use) {
    if (use.allocatable == 0) return;
    fractions[n++] = std::min(
        1.0, static_cast<double>(use.requested + use.pod) / static_cast<double>(use.allocatable));
  };
  add(cpu);
  add(memory);
  if (gpu && gpu->pod > 0) add(*gpu);
  double std_dev = 0;
  if (n == 2) {
    std_dev = std::fabs((fractions[0] - fractions[1]) / 2);
  } else if (n > 2) {
    double mean = 0;
    for (size_t i = 0; i < n; ++i) mean += fractions[i];
    mean /= static_cast<double>(n);
    double sum = 0;
    for (size_t i = 0; i < n; ++i) sum += (fractions[i] - mean) * (fractions[i] - mean);
    std_dev = std::sqrt(sum / static_cast<double>(n));
  }
  return static_cast<int64_t>((1 - std_dev) * static_cast<double>(kMaxNodeScore));
}

}  // namespace nodeorder
