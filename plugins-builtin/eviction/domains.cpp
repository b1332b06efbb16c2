#include "domains.h"

#include <algorithm>
#include <cstddef>

namespace eviction {

std::vector<uint32_t> pick_domains(std::span<const uint32_t> gradients, int64_t max_domains,
                                   uint32_t fallback) {
  std::vector<uint32_t> out;
  for (const uint32_t h : gradients) {
    if (h == kNoDomain || std::find(out.begin(), out.end(), h) != out.end()) continue;
    out.push_back(h);
    if (max_domains > 0 && out.size() >= static_cast<size_t>(max_domains)) return out;
  }
  if (out.empty() && fallback != kNoDomain) out.push_back(fallback);
  return out;
}

}  // namespace eviction
