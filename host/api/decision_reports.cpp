#include "api/decision_reports.h"

#include <cstdio>

#include "api/object_meta.h"
#include "model/quantity.h"

namespace scoria::api {

namespace {

using nlohmann::json;

std::pair<std::string, std::string> split_key(const std::string& key) {
  const size_t slash = key.find('/');
  if (slash == std::string::npos) return {"default", key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

}  // namespace

bool set_condition(json& object, json condition) {
  json& status = object["status"];
  if (!status.is_object()) status = json::object();
  json& conditions = status["conditions"];
  if (!conditions.is_array()) conditions = json::array();
  for (json& c : conditions) {
    if (!c.is_object() || c.value("type", "") != condition.value("type", "")) continue;
    if (c.value("status", "") == condition.value("status", "") && c.contains("lastTransitionTime"))
      condition["lastTransitionTime"] = c["lastTransitionTime"];
    if (c == condition) return false;
    c = std::move(condition);
    return true;
  }
  conditions.push_back(std::move(condition));
  return true;
}

json scheduled_condition(std::chrono::system_clock::time_point now) {
  return {{"type", "PodScheduled"},
          {"status", "True"},
          {"lastTransitionTime", ObjectMeta::rfc3339(now)}};
}

void merge_status(json& object, const json& fields) {
  json& status = object["status"];
  if (!status.is_object()) status = json::object();
  for (const auto& [field, value] : fields.items()) {
    if (value.is_null())
      status.erase(field);
    else
      status[field] = value;
  }
}

std::optional<json> initially_scheduled_condition(const json& group, const json& status,
                                                  std::chrono::system_clock::time_point now) {
  constexpr std::string_view kType = "PodGroupInitiallyScheduled";
  if (const json* st = group.contains("status") ? &group["status"] : nullptr;
      st != nullptr && st->is_object() && st->contains("conditions") &&
      (*st)["conditions"].is_array()) {
    for (const json& c : (*st)["conditions"])
      if (c.is_object() && c.value("type", "") == kType && c.value("status", "") == "True")
        return std::nullopt;
  }
  const std::string phase = status.value("phase", "");
  const std::string when = ObjectMeta::rfc3339(now);
  if (phase == "Running" || phase == "Completed")
    return json{{"type", kType},
                {"status", "True"},
                {"reason", "Scheduled"},
                {"message", ""},
                {"lastTransitionTime", when}};
  const auto conditions = status.find("conditions");
  if (conditions == status.end() || !conditions->is_array() || conditions->empty())
    return std::nullopt;
  return json{{"type", kType},
              {"status", "False"},
              {"reason", "Unschedulable"},
              {"message", (*conditions)[0].value("message", "")},
              {"lastTransitionTime", when}};
}

DecisionReports::DecisionReports(std::string component)
    : component_(std::move(component)), random_(std::random_device{}()) {}

json DecisionReports::event(const std::string& kind, const std::string& api_version,
                            const std::string& key, const std::string& uid,
                            const std::string& reason, const std::string& type,
                            const std::string& message, std::chrono::system_clock::time_point now,
                            uint64_t suffix) const {
  const auto [ns, name] = split_key(key);
  char tail[20];
  std::snprintf(tail, sizeof tail, ".%016llx", static_cast<unsigned long long>(suffix));
  const std::string when = ObjectMeta::rfc3339(now);
  json involved = {{"kind", kind}, {"apiVersion", api_version}, {"namespace", ns}, {"name", name}};
  if (!uid.empty()) involved["uid"] = uid;
  return {{"apiVersion", "v1"},
          {"kind", "Event"},
          {"metadata", {{"name", name + tail}, {"namespace", ns}}},
          {"involvedObject", std::move(involved)},
          {"reason", reason},
          {"message", message},
          {"type", type},
          {"source", {{"component", component_}}},
          {"reportingComponent", component_},
          {"firstTimestamp", when},
          {"lastTimestamp", when},
          {"count", 1}};
}

json DecisionReports::scheduled_event(const cycle::Outcome::Bind& bind, const std::string& uid,
                                      std::chrono::system_clock::time_point now,
                                      uint64_t suffix) const {
  return event("Pod", "v1", bind.pod, uid, "Scheduled", "Normal",
               "Successfully assigned " + bind.pod + " to " + bind.node, now, suffix);
}

DecisionReport DecisionReports::report(const cycle::Outcome& outcome,
                                       const std::vector<std::string>& dims,
                                       std::chrono::system_clock::time_point now,
                                       const UidOf& uid_of, BindEvents bind_events) {
  DecisionReport out;
  const std::string when = ObjectMeta::rfc3339(now);
  for (const auto& bind : outcome.binds) {
    pod_messages_.erase(bind.pod);
    if (bind_events == BindEvents::Make)
      out.events.push_back(scheduled_event(bind, uid_of("Pod", bind.pod), now, random_()));
  }
  for (const auto& pod : outcome.evictions) {
    pod_messages_.erase(pod);
    out.events.push_back(event("Pod", "v1", pod, uid_of("Pod", pod), "Evict", "Warning",
                               "Pod is evicted, because of preemption or reclaim", now, random_()));
  }
  for (const auto& st : outcome.pod_groups) {
    // Each member not placed: PodScheduled=False and FailedScheduling, when
    // its reason or message changes (Volcano's taskUnschedulable writes
    // both only then).
    for (const auto& pending : st.pending) {
      std::string text = std::string(pending.reason) + ": " + pending.message;
      std::string& said = pod_messages_[pending.pod];
      if (said == text) continue;
      said = std::move(text);
      out.pod_conditions.emplace_back(pending.pod, json{{"type", "PodScheduled"},
                                                        {"status", "False"},
                                                        {"reason", pending.reason},
                                                        {"message", pending.message},
                                                        {"lastTransitionTime", when}});
      out.events.push_back(event("Pod", "v1", pending.pod, uid_of("Pod", pending.pod),
                                 "FailedScheduling", "Warning", pending.message, now, random_()));
    }
    if (st.key.empty()) continue;
    const std::string phase = model::phase_name(st.phase);
    auto& written = group_status_[st.key];
    if (written.first == phase && written.second == st.unschedulable) continue;
    const bool message_changed = written.second != st.unschedulable;
    written = {phase, st.unschedulable};
    json status = {{"phase", phase},
                   {"running", st.running},
                   {"succeeded", st.succeeded},
                   {"failed", st.failed}};
    if (st.unschedulable.empty()) {
      status["conditions"] = nullptr;
    } else {
      status["conditions"] = json::array({{{"type", "Unschedulable"},
                                           {"status", "True"},
                                           {"reason", "NotEnoughResources"},
                                           {"message", st.unschedulable},
                                           {"lastTransitionTime", when}}});
    }
    out.pod_group_statuses.emplace_back(st.key, std::move(status));
    if (message_changed && !st.unschedulable.empty())
      out.events.push_back(event(
          "PodGroup", st.native ? "scheduling.k8s.io/v1beta1" : "scheduling.volcano.sh/v1beta1",
          st.key, uid_of("PodGroup", st.key), "Unschedulable", "Warning", st.unschedulable, now,
          random_()));
  }
  for (const auto& q : outcome.queues) {
    json allocated = json::object();
    for (size_t d = 0; d < dims.size() && d < q.allocated.size(); ++d)
      if (q.allocated[d] > 0 && dims[d] != "pods")
        allocated[dims[d]] = model::format_quantity(dims[d], q.allocated[d]);
    for (const auto& [name, amount] : q.devices)
      allocated[name] = model::format_device_amount(name, amount);
    std::string text = allocated.dump();
    std::string& written = queue_allocated_[q.name];
    if (written == text) continue;
    written = std::move(text);
    out.queue_statuses.emplace_back(q.name, std::move(allocated));
  }
  return out;
}

void DecisionReports::remember_pod_group(const std::string& key, model::PodGroupPhase phase,
                                         std::string unschedulable) {
  group_status_[key] = {model::phase_name(phase), std::move(unschedulable)};
}

void DecisionReports::observe_pod_group(const std::string& key, model::PodGroupPhase phase,
                                        const std::string& unschedulable) {
  const auto it = group_status_.find(key);
  if (it == group_status_.end()) return;
  it->second = {model::phase_name(phase), unschedulable};
}

bool DecisionReports::reported(const cycle::Outcome::PodGroupStatus& status) const {
  if (!status.unschedulable.empty() || !status.pending.empty()) return false;
  if (status.key.empty()) return true;
  const auto it = group_status_.find(status.key);
  return it != group_status_.end() && it->second.second.empty() &&
         it->second.first == model::phase_name(status.phase);
}

const std::string* DecisionReports::unschedulable(const std::string& pod_group) const {
  const auto it = group_status_.find(pod_group);
  if (it == group_status_.end() || it->second.second.empty()) return nullptr;
  return &it->second.second;
}

}  // namespace scoria::api
