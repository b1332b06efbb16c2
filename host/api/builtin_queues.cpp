#include "api/builtin_queues.h"

#include <utility>

namespace scoria::api {

std::vector<nlohmann::json> builtin_queues() {
  std::vector<nlohmann::json> out;
  for (const auto& [name, reclaimable] : {std::pair{"root", false}, std::pair{"default", true}})
    out.push_back({{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                   {"kind", "Queue"},
                   {"metadata", {{"name", name}}},
                   {"spec", {{"reclaimable", reclaimable}, {"weight", 1}}}});
  return out;
}

}  // namespace scoria::api
