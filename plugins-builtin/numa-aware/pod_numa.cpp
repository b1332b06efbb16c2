#include "pod_numa.h"

#include <scoria/quantity.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <stdexcept>

#include "json_fields.h"

namespace numa_aware {

namespace {

using kube::member;
using nlohmann::json;

// A quantity in milli-units, rounded up as Kubernetes' MilliValue does.
double milli(const json& value) {
  const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
  const std::optional<double> q = scoria::parse_quantity(text);
  if (!q) throw std::invalid_argument("\"" + text + "\" is not a quantity");
  return std::ceil(*q * 1000 - 1e-6);
}

// A container's requests and limits, requests defaulted from limits as the
// API server defaults them.
struct Resources {
  std::map<std::string, double> requests, limits;
};

Resources resources_of(const json& container) {
  Resources r;
  const json* res = member(container, "resources");
  if (res == nullptr) return r;
  if (const json* limits = member(*res, "limits"); limits && limits->is_object())
    for (const auto& [name, q] : limits->items()) r.limits[name] = milli(q);
  if (const json* requests = member(*res, "requests"); requests && requests->is_object())
    for (const auto& [name, q] : requests->items()) r.requests[name] = milli(q);
  for (const auto& [name, q] : r.limits) r.requests.emplace(name, q);
  return r;
}

bool qos_resource(const std::string& name) { return name == "cpu" || name == "memory"; }

// Kubernetes' GetPodQOS over containers and init containers: Guaranteed
// when every container limits cpu and memory and the pod's summed
// requests equal its summed limits.
bool guaranteed(const json& spec) {
  std::map<std::string, double> requests, limits;
  bool is_guaranteed = true;
  for (const char* list : {"containers", "initContainers"}) {
    const json* containers = member(spec, list);
    if (containers == nullptr || !containers->is_array()) continue;
    for (const json& c : *containers) {
      const Resources r = resources_of(c);
      for (const auto& [name, q] : r.requests)
        if (qos_resource(name) && q != 0) requests[name] += q;
      int limited = 0;
      for (const auto& [name, q] : r.limits)
        if (qos_resource(name) && q != 0) {
          ++limited;
          limits[name] += q;
        }
      if (limited != 2) is_guaranteed = false;
    }
  }
  if (requests.empty() && limits.empty()) return false;  // BestEffort
  if (!is_guaranteed || requests.size() != limits.size()) return false;
  for (const auto& [name, q] : requests) {
    const auto it = limits.find(name);
    if (it == limits.end() || it->second != q) return false;
  }
  return true;
}

}  // namespace

PodNuma parse_pod_numa(std::string_view pod_json) {
  const json pod = json::parse(pod_json);
  const json* spec = member(pod, "spec");
  if (spec == nullptr) throw std::invalid_argument("the pod has no spec");
  PodNuma out;
  out.guaranteed = guaranteed(*spec);
  if (const json* containers = member(*spec, "containers"); containers && containers->is_array())
    for (const json& c : *containers) {
      ContainerCpus cc;
      if (const json* name = member(c, "name"); name && name->is_string()) cc.name = *name;
      const Resources r = resources_of(c);
      if (const auto cpu = r.requests.find("cpu"); cpu != r.requests.end()) {
        cc.requests_cpu = true;
        // Volcano's guaranteedCPUs: Value()*1000 == MilliValue().
        const double m = cpu->second;
        if (std::fmod(m, 1000) == 0) cc.guaranteed_cpus = static_cast<int>(m / 1000);
      }
      out.containers.push_back(std::move(cc));
    }
  return out;
}

}  // namespace numa_aware
