#include "cache/queue_gate.h"

#include <algorithm>

#include "cache/cluster_cache.h"
#include "cache/object_json.h"
#include "model/objects.h"

namespace scoria::cache {

namespace {

using nlohmann::json;

bool is_queue_gate(const json& g) {
  return g.is_object() && g.value("name", "") == model::kQueueAllocationGate;
}

}  // namespace

bool add_queue_gate(json& pod) {
  json& spec = pod["spec"];
  if (!spec.is_object()) spec = json::object();
  json& gates = spec["schedulingGates"];
  if (!gates.is_array()) gates = json::array();
  if (std::any_of(gates.begin(), gates.end(), is_queue_gate)) return false;
  gates.push_back({{"name", model::kQueueAllocationGate}});
  return true;
}

bool remove_queue_gate(json& pod) {
  const auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return false;
  const auto gates = spec->find("schedulingGates");
  if (gates == spec->end() || !gates->is_array()) return false;
  const auto kept = std::remove_if(gates->begin(), gates->end(), is_queue_gate);
  if (kept == gates->end()) return false;
  gates->erase(kept, gates->end());
  if (gates->empty()) spec->erase(gates);
  return true;
}

std::vector<ObjectChange> ClusterCache::gate_removals(const cycle::Outcome& outcome) const {
  std::vector<ObjectChange> out;
  for (const std::string& key : outcome.ungated) {
    const uint32_t p = pods_.find(key);
    if (p == kNone) continue;
    model::Pod pod = pods_.at(p).pod;
    if ((pod.queue_gate & model::kOnlyQueueGate) == 0) continue;
    pod.scheduling_gated = false;
    pod.queue_gate &= static_cast<uint8_t>(~model::kOnlyQueueGate);
    if (!pod.json.empty()) {
      json j = parsed_object(pod.json);
      remove_queue_gate(j);
      pod.json = object_text(j);
    }
    out.push_back(ObjectChange::upsert(std::move(pod)));
  }
  return out;
}

}  // namespace scoria::cache
