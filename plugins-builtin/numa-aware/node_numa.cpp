#include "node_numa.h"

#include <scoria/quantity.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <set>

#include "json_fields.h"

namespace numa_aware {

namespace {

using kube::member;
using nlohmann::json;

[[noreturn]] void bad(const std::string& field, const std::string& why) {
  throw BadTopology("field " + field + ": " + why);
}

std::string text(const json* value, const std::string& field) {
  if (value == nullptr) return {};
  if (!value->is_string()) bad(field, "is not a string");
  return value->get<std::string>();
}

int32_t whole(const json* value, const std::string& field) {
  if (value == nullptr) return 0;
  if (!value->is_number_integer() || value->get<int64_t>() < 0 ||
      value->get<int64_t>() > CpuSet::kMaxCpu)
    bad(field, "is not a whole number from 0 to " + std::to_string(CpuSet::kMaxCpu));
  return static_cast<int32_t>(value->get<int64_t>());
}

const json& mapping(const json* value, const std::string& field) {
  static const json kEmpty = json::object();
  if (value == nullptr) return kEmpty;
  if (!value->is_object()) bad(field, "is not a mapping");
  return *value;
}

CpuSet cpuset(const std::string& list, const std::string& field) {
  std::string why;
  std::optional<CpuSet> set = scoria::parse_cpuset(list, why);
  if (!set) bad(field, why);
  return std::move(*set);
}

}  // namespace

bool NodeNuma::assigned_pod(std::string_view pod_namespace, std::string_view pod_name) const {
  for (const PodRef& p : assigned)
    if (p.namespace_ == pod_namespace && p.name == pod_name) return true;
  return false;
}

NodeNuma parse_node_numa(const json& object) {
  NodeNuma n;
  const json& meta = mapping(member(object, "metadata"), "metadata");
  n.name = text(member(meta, "name"), "metadata.name");
  const json& spec = mapping(member(object, "spec"), "spec");

  const json& policies = mapping(member(spec, "policies"), "spec.policies");
  n.cpu_manager_policy =
      text(member(policies, "CPUManagerPolicy"), "spec.policies.CPUManagerPolicy");
  n.topology_manager_policy =
      text(member(policies, "TopologyManagerPolicy"), "spec.policies.TopologyManagerPolicy");

  std::vector<CpuInfo> cpus;
  const json& detail = mapping(member(spec, "cpuDetail"), "spec.cpuDetail");
  std::set<int32_t> ids;
  for (const auto& [key, info] : detail.items()) {
    const std::string field = "spec.cpuDetail." + key;
    const CpuSet one = cpuset(key, field);
    if (one.size() != 1 || key.find('-') != std::string::npos) bad(field, "is not a CPU id");
    CpuInfo c;
    c.id = one.list().front();
    if (!ids.insert(c.id).second) bad(field, "names a CPU already described");
    const json& m = mapping(&info, field);
    c.numa = whole(member(m, "numa"), field + ".numa");
    if (c.numa > 63) bad(field + ".numa", "is more than 63");
    c.socket = whole(member(m, "socket"), field + ".socket");
    c.core = whole(member(m, "core"), field + ".core");
    cpus.push_back(c);
  }
  n.topology = CpuTopology(std::move(cpus));
  // Hints cover every combination of NUMA nodes; the kubelet's topology
  // manager refuses machines with more than 8.
  if (n.topology.numa_nodes().size() > kMaxNumaNodes)
    bad("spec.cpuDetail", "spans " + std::to_string(n.topology.numa_nodes().size()) +
                              " NUMA nodes; the topology manager handles at most " +
                              std::to_string(kMaxNumaNodes));

  const json& numares = mapping(member(spec, "numares"), "spec.numares");
  for (const auto& [resource, info] : numares.items()) {
    const std::string field = "spec.numares." + resource + ".allocatable";
    n.allocatable[resource] = cpuset(
        text(member(mapping(&info, "spec.numares." + resource), "allocatable"), field), field);
  }

  // The kubelet reserves whole CPUs: the ceiling of what resReserved's cpu
  // asks for, taken as the CPU manager would take them.
  const json& reserved = mapping(member(spec, "resReserved"), "spec.resReserved");
  if (const json* cpu = member(reserved, "cpu")) {
    const std::string amount = text(cpu, "spec.resReserved.cpu");
    std::string why;
    const std::optional<double> q = scoria::parse_quantity(amount, &why);
    if (!q || *q < 0) bad("spec.resReserved.cpu", q ? "is negative" : why);
    const auto count = static_cast<int>(std::ceil(*q - 1e-9));
    n.reserved = take_by_topology(n.topology, n.topology.all(), count).value_or(CpuSet{});
  }

  if (const json* allocations = member(spec, "podAllocations")) {
    if (!allocations->is_array()) bad("spec.podAllocations", "is not a list");
    for (size_t i = 0; i < allocations->size(); ++i) {
      const std::string field = "spec.podAllocations[" + std::to_string(i) + "]";
      const json& p = mapping(&(*allocations)[i], field);
      n.assigned.push_back({text(member(p, "uid"), field + ".uid"),
                            text(member(p, "namespace"), field + ".namespace"),
                            text(member(p, "name"), field + ".name")});
    }
  }
  return n;
}

}  // namespace numa_aware
