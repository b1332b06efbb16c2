// nodeinfo.volcano.sh/v1alpha1 Numatopology as the loader reads it: kept
// whole for the numa-aware plugin, and refused, naming the file, document,
// object and field, where its CRD or Volcano's reading of it would refuse.
#include <gtest/gtest.h>

#include <string>

#include "model/error.h"
#include "objects_from_text.h"
#include "source/object_loader.h"

namespace scoria::source {
namespace {

using test_support::parse;
using test_support::parse_error;

constexpr std::string_view kHead =
    "apiVersion: nodeinfo.volcano.sh/v1alpha1\nkind: Numatopology\nmetadata: {name: n1}\n";

std::string with_spec(std::string_view spec) {
  return std::string(kHead) + "spec:\n" + std::string(spec);
}

TEST(NumatopologyDecoder, KeepsTheObjectWhole) {
  const auto objects = parse(with_spec(R"(  policies:
    CPUManagerPolicy: static
    TopologyManagerPolicy: single-numa-node
  resReserved: {cpu: 1000m, memory: 1Gi}
  numares:
    cpu: {allocatable: "0-3,6", capacity: 8}
    memory: {allocatable: "", capacity: 1024}
  cpuDetail:
    "0": {numa: 0, socket: 0, core: 0}
    "1": {numa: 0, socket: 0, core: 1}
    "2": {numa: 1, socket: 1, core: 0}
    "3": {core: 1, socket: 1, numa: 1}
  podAllocations:
  - {namespace: ns, name: p1, uid: u1, containerAllocations: [{name: c, allocations: {cpu: "0-1"}}]}
)"));
  ASSERT_EQ(objects.numa_topologies.size(), 1u);
  const model::Numatopology& t = objects.numa_topologies[0];
  EXPECT_EQ(t.key(), "n1");
  EXPECT_NE(t.json.find("\"single-numa-node\""), std::string::npos);
  EXPECT_NE(t.json.find("\"0-3,6\""), std::string::npos);
  // A namespace is not part of a cluster-scoped object's key.
  EXPECT_EQ(parse(std::string(kHead)).numa_topologies.at(0).key(), "n1");
}

TEST(NumatopologyDecoderErrors, FieldsThatDoNotParse) {
  const std::string at = "cluster.yaml: document 1 (Numatopology n1): field ";
  EXPECT_EQ(parse_error(with_spec("  policies: {CPUManager: static}\n")),
            at + "spec.policies.CPUManager: is not a policy name; write CPUManagerPolicy (none "
                 "or static) or TopologyManagerPolicy (none, best-effort, restricted or "
                 "single-numa-node)");
  EXPECT_EQ(parse_error(with_spec("  numares: {cpu: {allocatable: \"0-3,x\"}}\n")),
            at + "spec.numares.cpu.allocatable: \"0-3,x\" is not a CPU list: \"x\" is not a CPU "
                 "id (0 to 65535) or a range of them such as 0-3; write e.g. \"0-3,8\"");
  EXPECT_EQ(parse_error(with_spec("  numares: {cpu: {allocatable: \"3-1\"}}\n")),
            at + "spec.numares.cpu.allocatable: \"3-1\" is not a CPU list: \"3-1\" is a range "
                 "that ends before it starts; write e.g. \"0-3,8\"");
  EXPECT_EQ(parse_error(with_spec("  numares: {cpu: {capacity: -2}}\n")),
            at + "spec.numares.cpu.capacity: -2 is negative; write 0 or more");
  EXPECT_EQ(parse_error(with_spec("  cpuDetail: {cpu0: {numa: 0}}\n")),
            at + "spec.cpuDetail.cpu0: is not a CPU id; key each CPU by its id, e.g. \"0\"");
  EXPECT_EQ(parse_error(with_spec("  cpuDetail: {\"0-1\": {numa: 0}}\n")),
            at + "spec.cpuDetail.0-1: is not a CPU id; key each CPU by its id, e.g. \"0\"");
  EXPECT_EQ(parse_error(with_spec("  cpuDetail: {\"0\": {numa: -1}}\n")),
            at + "spec.cpuDetail.0.numa: -1 is negative; write 0 or more");
  EXPECT_EQ(parse_error(with_spec("  cpuDetail: {\"0\": {numa: 64}}\n")),
            at + "spec.cpuDetail.0.numa: is more than 63; NUMA node ids go from 0 to 63");
  EXPECT_EQ(parse_error(with_spec("  cpuDetail: {\"0\": {socket: one}}\n"))
                .rfind(at + "spec.cpuDetail.0.socket: ", 0),
            0u);
  EXPECT_EQ(parse_error(with_spec("  resReserved: {cpu: -1}\n")),
            at + "spec.resReserved.cpu: \"-1\" is negative; resource amounts must be 0 or more");
  EXPECT_EQ(parse_error(with_spec("  podAllocations: [{name: p, containerAllocations: [{name: c, "
                                  "allocations: {cpu: \"a\"}}]}]\n")),
            at + "spec.podAllocations[0].containerAllocations[0].allocations.cpu: \"a\" is not a "
                 "CPU list: \"a\" is not a CPU id (0 to 65535) or a range of them such as 0-3; "
                 "write e.g. \"0-3,8\"");
  EXPECT_EQ(parse_error(with_spec("  policies: [static]\n")),
            at + "spec.policies: is a list, not a mapping; write it as key: value pairs");
  EXPECT_EQ(parse_error(std::string(kHead) + "---\n" + std::string(kHead)),
            "cluster.yaml: document 2 (Numatopology n1): field metadata.name: \"n1\" is already "
            "used by document 1; give each Numatopology its own name");
  EXPECT_EQ(parse_error("apiVersion: nodeinfo.volcano.sh/v1beta1\nkind: Numatopology\n"
                        "metadata: {name: n1}\n"),
            "cluster.yaml: document 1 (Numatopology n1): field apiVersion: "
            "\"nodeinfo.volcano.sh/v1beta1\" is not an apiVersion of Numatopology; write "
            "apiVersion: nodeinfo.volcano.sh/v1alpha1");
}

}  // namespace
}  // namespace scoria::source

namespace scoria::source {
namespace {

constexpr std::string_view kJob = R"(apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {namespace: work, name: db}
spec:
  tasks:
  - name: main
    replicas: 2
    topologyPolicy: POLICY
    template:
      spec:
        containers: [{name: c, image: db, resources: {limits: {cpu: "4", memory: 1Gi}}}]
)";

std::string job(std::string_view policy) {
  std::string text(kJob);
  return text.replace(text.find("POLICY"), 6, policy);
}

// Volcano's job controller writes a task's topologyPolicy on each of its
// pods, where numa-aware reads it.
TEST(VolcanoJobTopologyPolicy, WrittenOnEachPod) {
  const auto objects = parse(job("single-numa-node"));
  ASSERT_EQ(objects.pods.size(), 2u);
  for (const model::Pod& p : objects.pods)
    EXPECT_NE(p.json.find(R"("volcano.sh/numa-topology-policy":"single-numa-node")"),
              std::string::npos)
        << p.json;
  EXPECT_EQ(parse(job("\"\"")).pods.at(0).json.find("numa-topology-policy"), std::string::npos);
}

TEST(VolcanoJobTopologyPolicy, OutsideTheCrdsEnumRefused) {
  EXPECT_EQ(parse_error(job("single-numa")),
            "cluster.yaml: document 1 (Job work/db): field spec.tasks[0].topologyPolicy: "
            "\"single-numa\" is not a topology policy; write none, best-effort, restricted or "
            "single-numa-node");
}

}  // namespace
}  // namespace scoria::source
