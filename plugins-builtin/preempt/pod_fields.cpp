#include "pod_fields.h"

#include <scoria/rfc3339.hpp>

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

std::optional<int64_t> start_time_ms(std::string_view pod_json, bool& malformed) {
  malformed = false;
  if (pod_json.find("startTime") == std::string_view::npos) return std::nullopt;
  const json pod = parse_object(pod_json);
  const json* status = member(pod, "status");
  const json* start = status != nullptr ? member(*status, "startTime") : nullptr;
  if (start == nullptr || start->is_null()) return std::nullopt;
  std::optional<int64_t> ms;
  if (start->is_string()) ms = scoria::parse_rfc3339(start->get_ref<const std::string&>());
  malformed = !ms.has_value();
  return ms;
}

}  // namespace preempt
