// nodeinfo.volcano.sh/v1alpha1 Numatopology: refused where its CRD's schema
// refuses it (policy names, CPU detail ids of 0 or more) and where Volcano
// could not read it (a cpuset that is not one, a CPU id that is not a
// number, a reserved amount that is not a quantity), so that what the
// numa-aware plugin reads is well formed. Volcano would log such a field and
// carry on with a zero or empty value in its place.
#include <scoria/cpuset.hpp>

#include "decode/kind_decoders.h"

namespace scoria::decode {

namespace {

// The kubelet's topology manager handles NUMA ids that fit its 64-bit masks.
constexpr int32_t kMaxNumaId = 63;

void check_cpuset(const FieldReader& r, const std::string& text, const FieldPath& at) {
  std::string why;
  if (!parse_cpuset(text, why))
    r.fail(at, quote(text) + " is not a CPU list: " + why + "; write e.g. \"0-3,8\"");
}

void check_policies(const FieldReader& r, const Node& spec, const FieldPath& spec_path) {
  const FieldPath at = spec_path.field("policies");
  const Node& policies = r.map_field(spec, "policies", spec_path);
  for (const input::NodeEntry& e : policies.entries()) {
    if (e.key != "CPUManagerPolicy" && e.key != "TopologyManagerPolicy")
      r.fail(at.field(e.key),
             "is not a policy name; write CPUManagerPolicy (none or static) or "
             "TopologyManagerPolicy (none, best-effort, restricted or single-numa-node)");
    r.text(e.value, at.field(e.key));
  }
}

void check_numa_resources(const FieldReader& r, const Node& spec, const FieldPath& spec_path) {
  const FieldPath at = spec_path.field("numares");
  const Node& numares = r.map_field(spec, "numares", spec_path);
  for (const input::NodeEntry& e : numares.entries()) {
    const FieldPath entry = at.field(e.key);
    const Node& info = r.mapping(e.value, entry);
    check_cpuset(r, r.text_field(info, "allocatable", entry), entry.field("allocatable"));
    r.count_field(info, "capacity", entry, 0);
  }
}

void check_cpu_detail(const FieldReader& r, const Node& spec, const FieldPath& spec_path) {
  const FieldPath at = spec_path.field("cpuDetail");
  const Node& detail = r.map_field(spec, "cpuDetail", spec_path);
  for (const input::NodeEntry& e : detail.entries()) {
    const FieldPath entry = at.field(e.key);
    std::string why;
    if (!parse_cpuset(e.key, why) || e.key.find_first_of(",-") != std::string::npos ||
        e.key.empty())
      r.fail(entry, "is not a CPU id; key each CPU by its id, e.g. \"0\"");
    const Node& info = r.mapping(e.value, entry);
    if (r.count_field(info, "numa", entry, 0) > kMaxNumaId)
      r.fail(entry.field("numa"), "is more than " + std::to_string(kMaxNumaId) +
                                      "; NUMA node ids go from 0 to " + std::to_string(kMaxNumaId));
    r.count_field(info, "socket", entry, 0);
    r.count_field(info, "core", entry, 0);
  }
}

void check_pod_allocations(const FieldReader& r, const Node& spec, const FieldPath& spec_path) {
  r.each_map(spec, "podAllocations", spec_path, [&](const Node& pod, const FieldPath& at) {
    r.text_field(pod, "uid", at);
    r.text_field(pod, "name", at);
    r.text_field(pod, "namespace", at);
    r.each_map(pod, "containerAllocations", at, [&](const Node& c, const FieldPath& c_at) {
      r.text_field(c, "name", c_at);
      const auto allocations = r.string_map(c, "allocations", c_at);
      if (const auto cpu = allocations.find("cpu"); cpu != allocations.end())
        check_cpuset(r, cpu->second, c_at.field("allocations").field("cpu"));
    });
  });
}

}  // namespace

model::Numatopology decode_numatopology(const ObjectFields& f) {
  const FieldReader& r = f.r;
  const FieldPath spec_path = f.root.field("spec");
  const Node& spec = r.map_field(f.obj, "spec", f.root);
  check_policies(r, spec, spec_path);
  r.resources_field(spec, "resReserved", spec_path);
  check_numa_resources(r, spec, spec_path);
  check_cpu_detail(r, spec, spec_path);
  check_pod_allocations(r, spec, spec_path);
  return {};
}

}  // namespace scoria::decode
