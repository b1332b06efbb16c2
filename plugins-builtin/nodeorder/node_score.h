// The range every nodeorder score is normalized to.
#ifndef SCORIA_NODEORDER_NODE_SCORE_H
#define SCORIA_NODEORDER_NODE_SCORE_H

#include <cstdint>

namespace nodeorder {

// kube-scheduler's framework.MaxNodeScore: a score runs from 0 to this.
inline constexpr int64_t kMaxNodeScore = 100;

}  // namespace nodeorder

#endif
