#include "request.h"

#include <scoria/quantity.hpp>

#include <cmath>
#include <nlohmann/json.hpp>

namespace scoria_deviceshare {

namespace {

using nlohmann::json;

// A quantity as Go's Quantity.AsInt64 reads it (whole units); nullopt when
// absent or not a quantity.
std::optional<uint64_t> quantity(const json& list, std::string_view name, std::string* bad) {
  if (!list.is_object()) return std::nullopt;
  const auto it = list.find(std::string(name));
  if (it == list.end()) return std::nullopt;
  std::optional<double> v;
  if (it->is_string())
    v = scoria::parse_quantity(it->get<std::string>());
  else if (it->is_number())
    v = it->get<double>();
  if (!v || *v < 0) {
    if (bad != nullptr && bad->empty()) *bad = std::string(name) + " " + it->dump();
    return std::nullopt;
  }
  return static_cast<uint64_t>(std::ceil(*v));
}

}  // namespace

std::vector<ContainerRequest> vgpu_containers(std::string_view pod_json, std::string* bad) {
  std::vector<ContainerRequest> out;
  const json pod = json::parse(pod_json, nullptr, false);
  if (!pod.is_object()) return out;
  const json& spec = pod.contains("spec") ? pod["spec"] : json();
  if (!spec.is_object() || !spec.contains("containers") || !spec["containers"].is_array())
    return out;
  for (const json& c : spec["containers"]) {
    if (!c.is_object() || !c.contains("resources")) continue;
    const json& res = c["resources"];
    if (!res.is_object()) continue;
    const json limits = res.value("limits", json::object());
    const json requests = res.value("requests", json::object());
    const std::optional<uint64_t> number = quantity(limits, kVgpuNumberResource, bad);
    const bool has_memory_limit = limits.is_object() && limits.contains(kVgpuMemoryResource);
    if (!number && !has_memory_limit) continue;
    ContainerRequest r;
    r.nums = number.value_or(1);  // a memory limit alone asks for one card
    auto mem = quantity(limits, kVgpuMemoryResource, bad);
    if (!mem) mem = quantity(requests, kVgpuMemoryResource, bad);
    r.mem = mem.value_or(0);
    auto cores = quantity(limits, kVgpuCoresResource, bad);
    if (!cores) cores = quantity(requests, kVgpuCoresResource, bad);
    r.cores = cores.value_or(0);
    // No memory percentage resource in Volcano's default config: 101 means
    // none given, and no memory at all means the whole card.
    r.mem_percent = r.mem == 0 ? 100 : 101;
    out.push_back(r);
  }
  return out;
}

}  // namespace scoria_deviceshare
