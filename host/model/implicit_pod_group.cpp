#include "model/implicit_pod_group.h"

#include <string_view>

#include "model/resource_list.h"

namespace scoria::model {

PodGroup implicit_pod_group(const Pod& p, std::string name) {
  PodGroup g;
  g.namespace_ = p.namespace_;
  g.name = std::move(name);
  g.implicit = true;
  g.min_member = 1;
  const auto q = p.annotations.find("scheduling.volcano.sh/queue-name");
  g.queue = q != p.annotations.end() ? q->second : std::string("default");
  g.priority_class_name = p.priority_class_name;
  // Volcano's controller copies the pod's volcano.sh/preemptable annotation
  // onto the group it makes; unset, the group is not preemptable.
  g.preemptable = p.preemptable && p.annotations.contains("volcano.sh/preemptable");
  g.creation_ms = p.creation_ms;
  g.min_resources = p.init_requests;
  max_into(g.min_resources, p.requests);
  add_into(g.min_resources, {{"pods", 1}});
  g.has_min_resources = true;
  for (std::string_view k :
       {"volcano.sh/preemptable", "volcano.sh/cooldown-time", "volcano.sh/revocable-zone"}) {
    if (const auto a = p.annotations.find(std::string(k)); a != p.annotations.end())
      g.annotations.emplace(a->first, a->second);
  }
  // A pod already on a node is running as far as the group goes.
  g.phase = p.node_name.empty() ? PodGroupPhase::Pending : PodGroupPhase::Running;
  return g;
}

}  // namespace scoria::model
