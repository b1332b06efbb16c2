// The topology domains a gang action searches for room (Volcano's
// PickDomainsFromGradients, behind GetCandidateDomains): the HyperNodes the
// plugins' gradients offer for the starving job with the evict purpose, in
// the order offered. Pure, so that it is tested without a session.
#ifndef SCORIA_PLUGINS_EVICTION_DOMAINS_H
#define SCORIA_PLUGINS_EVICTION_DOMAINS_H

#include <cstdint>
#include <span>
#include <vector>

namespace eviction {

// "No HyperNode", as SCORIA_NO_HYPERNODE.
inline constexpr uint32_t kNoDomain = 0xFFFFFFFFu;

// The HyperNodes of `gradients` (already flattened: gradient by gradient, in
// the order each gives them), each kept once at its first place, skipping
// kNoDomain, and cut after `max_domains` of them (0 or less: no cap). When
// none is left, `fallback` alone, or nothing if it is kNoDomain: Volcano
// falls back to the cluster's top HyperNode for a job without a hard
// network topology and tries nothing for one with it.
std::vector<uint32_t> pick_domains(std::span<const uint32_t> gradients, int64_t max_domains,
                                   uint32_t fallback);

}  // namespace eviction

#endif  // SCORIA_PLUGINS_EVICTION_DOMAINS_H
