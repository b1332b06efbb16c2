#include "pod_fields.h"

#include <nlohmann/json.hpp>

namespace preempt {

namespace {

using nlohmann::json;

// Parses without exceptions; anything but an object reads as empty.
json parse_object(std::string_view text) {
  json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  return doc.is_object() ? doc : json::object();
}

const json* member(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

}  // namespace

PreemptorFields read_preemptor_fields(std::string_view pod_json) {
  PreemptorFields out;
  // Almost no pending pod has either field: skip the parse unless the text
  // could hold one of them.
  if (pod_json.find("nominatedNodeName") == std::string_view::npos &&
      pod_json.find("schedulingGates") == std::string_view::npos) {
    return out;
  }
  const json pod = parse_object(pod_json);
  if (const json* status = member(pod, "status")) {
    const json* nominated = member(*status, "nominatedNodeName");
    if (nominated != nullptr && nominated->is_string()) {
      out.nominated_node = nominated->get<std::string>();
    }
  }
  if (const json* spec = member(pod, "spec")) {
    const json* gates = member(*spec, "schedulingGates");
    out.scheduling_gated = gates != nullptr && gates->is_array() && !gates->empty();
  }
  return out;
}

bool terminating_by_preemption(std::string_view pod_json) {
  if (pod_json.find("PreemptionByScheduler") == std::string_view::npos) return false;
  const json pod = parse_object(pod_json);
  const json* meta = member(pod, "metadata");
  const json* deletion = meta != nullptr ? member(*meta, "deletionTimestamp") : nullptr;
  if (deletion == nullptr || deletion->is_null()) return false;
  const json* status = member(pod, "status");
  const json* conditions = status != nullptr ? member(*status, "conditions") : nullptr;
  if (conditions == nullptr || !conditions->is_array()) return false;
  for (const json& condition : *conditions) {
    const json* type = member(condition, "type");
    if (type == nullptr || !type->is_string() || type->get<std::string>() != "DisruptionTarget") {
      continue;
    }
    // As Kubernetes: only the first DisruptionTarget condition counts.
    const json* state = member(condition, "status");
    const json* reason = member(condition, "reason");
    return state != nullptr && state->is_string() && state->get<std::string>() == "True" &&
           reason != nullptr && reason->is_string() &&
           reason->get<std::string>() == "PreemptionByScheduler";
  }
  return false;
}

}  // namespace preempt
