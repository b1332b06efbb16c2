// A pod's own resource weights, from its annotation
// volcano.sh/resource-strategy-weight: a JSON object of resource names to
// whole numbers, '{"nvidia.com/gpu": 5, "cpu": 1}', read as Go's
// encoding/json reads it into Volcano's map[ResourceName]int.
#ifndef SCORIA_RESOURCE_STRATEGY_FIT_POD_WEIGHTS_H
#define SCORIA_RESOURCE_STRATEGY_FIT_POD_WEIGHTS_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rsf {

using PodWeights = std::vector<std::pair<std::string, int64_t>>;

// The weights, or nullopt when the text is not such an object (a number
// with a fraction or out of int64's range, a value of another type, a
// syntax error). As Go does, `null` is an empty map, a null value is 0 and
// a repeated name keeps its last value.
std::optional<PodWeights> parse_pod_weights(std::string_view json);

// The weight named `resource`, if any.
const int64_t* find_weight(const PodWeights& weights, std::string_view resource);

}  // namespace rsf

#endif  // SCORIA_RESOURCE_STRATEGY_FIT_POD_WEIGHTS_H
