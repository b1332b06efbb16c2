#include "config/scheduler_config.h"

#include <algorithm>

namespace scoria::config {

size_t feasible_nodes_to_find(const SchedulerConfig& c, size_t nodes) {
  const auto n = static_cast<int64_t>(nodes);
  if (n <= c.min_nodes_to_find || c.percentage_of_nodes_to_find >= 100) return nodes;
  int64_t pct = c.percentage_of_nodes_to_find;
  if (pct <= 0) pct = std::max<int64_t>(50 - n / 125, c.min_percentage_of_nodes_to_find);
  int64_t want = n * pct / 100;
  return static_cast<size_t>(std::max<int64_t>(want, c.min_nodes_to_find));
}

}  // namespace scoria::config
