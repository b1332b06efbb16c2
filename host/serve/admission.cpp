#include "serve/admission.h"

#include "api/object_meta.h"
#include "api/status.h"
#include "api/table_columns.h"
#include "cache/queue_gate.h"
#include "model/objects.h"

namespace scoria::serve {

namespace {

using nlohmann::json;

std::string text_at(const json& j, const char* a, const char* b) {
  const auto outer = j.find(a);
  if (outer == j.end() || !outer->is_object()) return {};
  const auto inner = outer->find(b);
  return inner != outer->end() && inner->is_string() ? inner->get<std::string>() : std::string();
}

// Kubernetes defines these two itself.
bool system_class(const std::string& name) {
  return name == "system-cluster-critical" || name == "system-node-critical";
}

}  // namespace

void admit_create(const api::Resource& r, const json& object, store::ObjectStore& store) {
  const std::string name = text_at(object, "metadata", "name");
  if (r.kind == "Pod") {
    const std::string pc = text_at(object, "spec", "priorityClassName");
    if (!pc.empty() && !system_class(pc) && !store.get("PriorityClass", pc))
      throw api::ApiError(
          403, "Forbidden",
          "pods \"" + name + "\" is forbidden: no PriorityClass with name " + pc + " was found");
  } else if (r.kind == "PriorityClass") {
    const auto global = object.find("globalDefault");
    if (global == object.end() || *global != true) return;
    for (const store::StoredObject& o : store.list("PriorityClass")) {
      const json other = json::parse(o.json, nullptr, false);
      if (other.is_object() && other.value("globalDefault", false) == true)
        throw api::ApiError(403, "Forbidden",
                            "priorityclasses.scheduling.k8s.io \"" + name +
                                "\" is forbidden: PriorityClass " + o.key +
                                " is already marked as default. Only one default can exist");
    }
  } else if (r.kind == "PodGroup") {
    const std::string queue = text_at(object, "spec", "queue");
    if (queue.empty()) return;
    const auto stored = store.get("Queue", queue);
    // Queue default exists unless defined (DESIGN.md section 4), as Volcano's
    // controller creates it in every cluster.
    if (!stored && queue == "default") return;
    const std::string denied =
        "admission webhook \"validatepodgroup.volcano.sh\" denied the request: ";
    if (!stored)
      throw api::ApiError(403, "Forbidden",
                          denied + "unable to find queue: queues.scheduling.volcano.sh \"" + queue +
                              "\" not found");
    // A queue without a state is open (Volcano's controller opens new ones).
    const std::string state = text_at(json::parse(stored->json), "status", "state");
    if (!state.empty() && state != "Open")
      throw api::ApiError(403, "Forbidden",
                          denied + "can only submit PodGroup to queue with state `Open`, queue `" +
                              queue + "` status is `" + state + "`.");
  }
}

void prepare_pod(json& pod, bool queue_admission_gates) {
  using api::columns::at;  // read in place: a pod's spec is not copied
  if (queue_admission_gates) {
    const std::string gate(model::kQueueAllocationGate);
    const json& opted = at(pod, {"metadata", "annotations", gate.c_str()});
    if (opted.is_string() && opted.get_ref<const std::string&>() == "true")
      cache::add_queue_gate(pod);
  }
  const json& gates = at(pod, {"spec", "schedulingGates"});
  if (!gates.is_array() || gates.empty()) return;
  json& status = pod["status"];
  if (!status.is_object()) status = json::object();
  json& conditions = status["conditions"];
  if (!conditions.is_array()) conditions = json::array();
  for (const json& c : conditions)
    if (c.is_object() && c.value("type", "") == "PodScheduled") return;
  conditions.push_back(
      {{"type", "PodScheduled"},
       {"status", "False"},
       {"lastProbeTime", nullptr},
       {"lastTransitionTime", api::ObjectMeta::rfc3339(std::chrono::system_clock::now())},
       {"reason", "SchedulingGated"},
       {"message", "Scheduling is blocked due to non-empty scheduling gates"}});
}

}  // namespace scoria::serve
