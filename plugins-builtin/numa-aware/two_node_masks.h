// The NUMA masks of a machine with two NUMA nodes, as the tests write them.
#ifndef SCORIA_NUMA_AWARE_TWO_NODE_MASKS_H
#define SCORIA_NUMA_AWARE_TWO_NODE_MASKS_H

#include "topology_policy.h"

namespace numa_aware {

inline constexpr NumaMask k0 = 0b01, k1 = 0b10, k01 = 0b11;

}  // namespace numa_aware

#endif
