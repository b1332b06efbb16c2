// The Dynamic Resource Allocation kinds as the loader reads them
// (resource.k8s.io/v1 DeviceClass, ResourceSlice, ResourceClaim and
// ResourceClaimTemplate) and the claims the resource-claim controller made
// for a pod: every field the allocator reads, attribute and capacity names
// qualified with the slice's driver as CEL sees them, and each malformed
// field refused as kube-apiserver refuses it, naming the field and the fix.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cel/quantity.h"
#include "cel/semver.h"
#include "device_texts.h"
#include "model/devices.h"
#include "objects_from_text.h"

namespace scoria::source::device_decoders {
namespace {

using test_support::parse;
using test_support::parse_error;
using test_support::devices::claim;
using test_support::devices::device_class;
using test_support::devices::kOneGpu;
using test_support::devices::kSliceHead;
using test_support::devices::slice;
using test_support::devices::slice_of;

cel::Quantity q(std::string_view text) { return *cel::parse_quantity(text); }

// ---------------------------------------------------------------------------
// Good objects
// ---------------------------------------------------------------------------

TEST(DeviceDecoders, DeviceClassSelectors) {
  const auto objects = parse(device_class(
      "  selectors:\n  - cel: {expression: 'device.driver == \"gpu.example.com\"'}\n"
      "  - cel: {expression: 'device.attributes[\"gpu.example.com\"].mig'}\n"
      "  config: [{opaque: {driver: gpu.example.com, parameters: {sharing: time-sliced}}}]\n"));
  ASSERT_EQ(objects.device_classes.size(), 1u);
  const model::DeviceClass& c = objects.device_classes[0];
  EXPECT_EQ(c.key(), "gpu.example.com");
  ASSERT_EQ(c.selectors.size(), 2u);
  EXPECT_EQ(c.selectors[0].expression, "device.driver == \"gpu.example.com\"");
  EXPECT_EQ(c.selectors[1].expression, "device.attributes[\"gpu.example.com\"].mig");
  EXPECT_NE(c.json.find("time-sliced"), std::string::npos);
  EXPECT_TRUE(parse(device_class("  {}\n")).device_classes.at(0).selectors.empty());
}

TEST(DeviceDecoders, ResourceSliceDevicesWithQualifiedNames) {
  const auto objects = parse(slice_of(R"(  - name: gpu-0
    attributes:
      model: {string: a100}
      cores: {int: 108}
      mig: {bool: true}
      driverVersion: {version: 1.2.3-rc.1+build.7}
      numa.example.com/node: {int: -1}
    capacity:
      memory: {value: 40Gi}
      dra.example.com/slices: {value: "1.5"}
    consumesCounters:
    - {counterSet: gpu-0-set, counters: {memory: {value: 40Gi}, sm: {value: "108"}}}
    taints:
    - {key: example.com/unhealthy, value: "true", effect: NoSchedule}
    - {key: example.com/draining, effect: NoExecute, timeAdded: "2026-01-01T00:00:00Z"}
    - {key: example.com/note, effect: None}
  - name: gpu-1
)"));
  ASSERT_EQ(objects.resource_slices.size(), 1u);
  const model::ResourceSlice& s = objects.resource_slices[0];
  EXPECT_EQ(s.key(), "n1-gpu");
  EXPECT_EQ(s.driver, "gpu.example.com");
  EXPECT_EQ(s.pool, "n1");
  EXPECT_EQ(s.pool_generation, 1);
  EXPECT_EQ(s.pool_slice_count, 1);
  EXPECT_EQ(s.node_name, "n1");
  EXPECT_FALSE(s.node_selector || s.all_nodes || s.per_device_nodes);
  ASSERT_EQ(s.devices.size(), 2u);
  const model::Device& d = s.devices[0];
  EXPECT_EQ(d.name, "gpu-0");
  // A name without a domain is the driver's; one with a domain is kept.
  std::vector<std::string> names;
  for (const auto& [name, value] : d.attributes) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"gpu.example.com/cores",
                                             "gpu.example.com/driverVersion", "gpu.example.com/mig",
                                             "gpu.example.com/model", "numa.example.com/node"}));
  EXPECT_EQ(std::get<std::string>(d.attributes.at("gpu.example.com/model").value), "a100");
  EXPECT_EQ(std::get<int64_t>(d.attributes.at("gpu.example.com/cores").value), 108);
  EXPECT_EQ(std::get<bool>(d.attributes.at("gpu.example.com/mig").value), true);
  EXPECT_EQ(std::get<int64_t>(d.attributes.at("numa.example.com/node").value), -1);
  EXPECT_EQ(std::get<cel::Semver>(d.attributes.at("gpu.example.com/driverVersion").value),
            *cel::parse_semver("1.2.3-rc.1+build.7"));
  ASSERT_EQ(d.capacity.size(), 2u);
  EXPECT_EQ(d.capacity.at("gpu.example.com/memory"), q("40Gi"));
  EXPECT_EQ(cel::compare(d.capacity.at("dra.example.com/slices"), q("1500m")), 0);
  ASSERT_EQ(d.consumes.size(), 1u);
  EXPECT_EQ(d.consumes.at("gpu-0-set").at("memory"), q("40Gi"));
  EXPECT_EQ(d.consumes.at("gpu-0-set").at("sm"), q("108"));
  // A taint of effect None is information only: not kept.
  ASSERT_EQ(d.taints.size(), 2u);
  EXPECT_EQ(d.taints[0].key, "example.com/unhealthy");
  EXPECT_EQ(d.taints[0].value, "true");
  EXPECT_EQ(d.taints[0].effect, model::TaintEffect::NoSchedule);
  EXPECT_EQ(d.taints[1].effect, model::TaintEffect::NoExecute);
  EXPECT_TRUE(s.devices[1].attributes.empty() && s.devices[1].capacity.empty());
}

TEST(DeviceDecoders, TheExplicitlyQualifiedNameWinsOverTheBareOne) {
  // Map keys come sorted: the domain form sorts before "model" for this
  // driver, after it for the other; either way it is the one kept.
  for (const char* name : {"a.example.com", "z.example.com"}) {
    const std::string driver = name;
    const auto objects = parse(slice(
        "  driver: " + driver + "\n  pool: {name: n1, resourceSliceCount: 1}\n  allNodes: true\n" +
        "  devices:\n  - name: d\n    attributes:\n      model: {string: bare}\n      " + driver +
        "/model: {string: explicit}\n    capacity:\n      memory: {value: 1Gi}\n      " + driver +
        "/memory: {value: 2Gi}\n"));
    const model::Device& d = objects.resource_slices.at(0).devices.at(0);
    ASSERT_EQ(d.attributes.size(), 1u) << driver;
    EXPECT_EQ(std::get<std::string>(d.attributes.at(driver + "/model").value), "explicit");
    EXPECT_EQ(d.capacity.at(driver + "/memory"), q("2Gi")) << driver;
  }
}

TEST(DeviceDecoders, ResourceSliceNodeSelectionsAndSharedCounters) {
  const auto selector = parse(slice(std::string(kSliceHead) +
                                    "  nodeSelector:\n    nodeSelectorTerms:\n"
                                    "    - matchExpressions: [{key: rack, operator: In, values: "
                                    "[r1]}]\n"))
                            .resource_slices.at(0);
  ASSERT_TRUE(selector.node_selector.has_value());
  ASSERT_EQ(selector.node_selector->size(), 1u);
  EXPECT_EQ((*selector.node_selector)[0].requirements[0].key, "rack");
  EXPECT_EQ(selector.pool_generation, 1);

  const auto per_device = parse(slice(std::string(kSliceHead) +
                                      "  perDeviceNodeSelection: true\n  devices:\n"
                                      "  - {name: a, nodeName: n1}\n  - {name: b, allNodes: true}\n"
                                      "  - name: c\n    nodeSelector:\n      nodeSelectorTerms:\n"
                                      "      - matchFields: [{key: metadata.name, operator: In, "
                                      "values: [n2]}]\n"))
                              .resource_slices.at(0);
  EXPECT_TRUE(per_device.per_device_nodes);
  EXPECT_EQ(per_device.devices.at(0).node_name, "n1");
  EXPECT_TRUE(per_device.devices.at(1).all_nodes);
  ASSERT_TRUE(per_device.devices.at(2).node_selector.has_value());
  EXPECT_TRUE((*per_device.devices.at(2).node_selector)[0].requirements[0].is_field);

  const auto counters =
      parse(slice("  driver: gpu.example.com\n  pool: {name: rack-a/gpus, resourceSliceCount: 2}\n"
                  "  allNodes: true\n  sharedCounters:\n"
                  "  - {name: gpu-0-set, counters: {memory: {value: 80Gi}, sm: {value: 132}}}\n"))
          .resource_slices.at(0);
  EXPECT_TRUE(counters.all_nodes);
  EXPECT_EQ(counters.pool, "rack-a/gpus");
  EXPECT_EQ(counters.pool_generation, 0);
  EXPECT_EQ(counters.pool_slice_count, 2);
  EXPECT_TRUE(counters.devices.empty());
  EXPECT_EQ(counters.counters.at("gpu-0-set").at("memory"), q("80Gi"));
  EXPECT_EQ(counters.counters.at("gpu-0-set").at("sm"), q("132"));
}

TEST(DeviceDecoders, ResourceClaimEveryField) {
  const auto objects = parse(R"(apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  namespace: ml
  name: train-0-gpu
  uid: 9d1c2a4e-0000-4000-8000-000000000001
  annotations: {resource.kubernetes.io/pod-claim-name: gpu}
  deletionTimestamp: "2026-01-01T00:00:00Z"
  ownerReferences:
  - {apiVersion: v1, kind: Job, name: other, uid: j1}
  - {apiVersion: v1, kind: Pod, name: train-0, uid: p1, controller: true}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].mig'}}]
        count: 2
        adminAccess: true
        tolerations:
        - {key: example.com/unhealthy, operator: Exists, effect: NoSchedule}
        - {key: example.com/zone, value: a}
        - {operator: Exists, effect: None}
    - name: nic
      exactly: {deviceClassName: nic.example.com, allocationMode: All}
    - name: mem
      firstAvailable:
      - {name: big, deviceClassName: mem.example.com, count: 4}
      - {name: small, deviceClassName: mem.example.com}
    constraints:
    - {requests: [gpu, nic], matchAttribute: numa.example.com/node}
    - {requests: [mem/big], distinctAttribute: gpu.example.com/uuid}
    - {matchAttribute: example.com/rack}
status:
  allocation:
    devices:
      results:
      - {request: gpu, driver: gpu.example.com, pool: n1, device: gpu-0, adminAccess: true}
      - {request: mem/small, driver: mem.example.com, pool: rack-a/mem, device: m-1}
    nodeSelector:
      nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n1]}]}]
  reservedFor: [{resource: pods, name: train-0, uid: p1}]
)");
  ASSERT_EQ(objects.resource_claims.size(), 1u);
  const model::ResourceClaim& c = objects.resource_claims[0];
  EXPECT_EQ(c.key(), "ml/train-0-gpu");
  EXPECT_EQ(c.uid, "9d1c2a4e-0000-4000-8000-000000000001");
  EXPECT_EQ(c.annotations.at("resource.kubernetes.io/pod-claim-name"), "gpu");
  EXPECT_TRUE(c.deleting);
  EXPECT_EQ(std::make_tuple(c.owner_kind, c.owner_name, c.owner_uid),
            std::make_tuple(std::string("Pod"), std::string("train-0"), std::string("p1")));
  ASSERT_EQ(c.spec.requests.size(), 3u);
  const model::DeviceAsk& gpu = c.spec.requests[0].exactly.value();
  EXPECT_EQ(c.spec.requests[0].name, "gpu");
  EXPECT_EQ(gpu.device_class, "gpu.example.com");
  ASSERT_EQ(gpu.selectors.size(), 1u);
  EXPECT_EQ(gpu.mode, model::AllocationMode::ExactCount);
  EXPECT_EQ(gpu.count, 2);
  EXPECT_TRUE(gpu.admin_access);
  // A toleration of effect None tolerates only taints that are not kept.
  ASSERT_EQ(gpu.tolerations.size(), 2u);
  EXPECT_EQ(gpu.tolerations[0].op, model::SelectorOp::Exists);
  EXPECT_EQ(gpu.tolerations[0].effect, static_cast<uint32_t>(model::TaintEffect::NoSchedule));
  EXPECT_EQ(gpu.tolerations[1].op, model::SelectorOp::Equal);  // the API server's default
  EXPECT_EQ(gpu.tolerations[1].value, "a");
  EXPECT_EQ(gpu.tolerations[1].effect, 0u);
  const model::DeviceAsk& nic = c.spec.requests[1].exactly.value();
  EXPECT_EQ(nic.mode, model::AllocationMode::All);
  EXPECT_FALSE(nic.admin_access);
  const model::DeviceRequest& mem = c.spec.requests[2];
  EXPECT_FALSE(mem.exactly.has_value());
  ASSERT_EQ(mem.first_available.size(), 2u);
  EXPECT_EQ(mem.first_available[0].name, "big");
  EXPECT_EQ(mem.first_available[0].count, 4);
  EXPECT_EQ(mem.first_available[1].count, 1);  // the API server's default
  ASSERT_EQ(c.spec.constraints.size(), 3u);
  EXPECT_EQ(c.spec.constraints[0].requests, (std::vector<std::string>{"gpu", "nic"}));
  EXPECT_EQ(c.spec.constraints[0].match_attribute, "numa.example.com/node");
  EXPECT_EQ(c.spec.constraints[1].requests, std::vector<std::string>{"mem/big"});
  EXPECT_EQ(c.spec.constraints[1].distinct_attribute, "gpu.example.com/uuid");
  EXPECT_TRUE(c.spec.constraints[2].requests.empty());
  ASSERT_TRUE(c.allocation.has_value());
  ASSERT_EQ(c.allocation->results.size(), 2u);
  const model::DeviceResult& r = c.allocation->results[0];
  EXPECT_EQ(std::make_tuple(r.request, r.driver, r.pool, r.device, r.admin_access),
            std::make_tuple(std::string("gpu"), std::string("gpu.example.com"), std::string("n1"),
                            std::string("gpu-0"), true));
  EXPECT_EQ(c.allocation->results[1].request, "mem/small");
  ASSERT_TRUE(c.allocation->node_selector.has_value());
  EXPECT_EQ((*c.allocation->node_selector)[0].requirements[0].values,
            std::vector<std::string>{"n1"});
  ASSERT_EQ(c.reserved_for.size(), 1u);
  EXPECT_EQ(c.reserved_for[0].api_group, "");
  EXPECT_EQ(c.reserved_for[0].resource, "pods");
  EXPECT_EQ(c.reserved_for[0].uid, "p1");

  const auto pending = parse(claim(kOneGpu)).resource_claims.at(0);
  EXPECT_FALSE(pending.allocation.has_value() || pending.deleting);
  EXPECT_EQ(pending.spec.requests.at(0).exactly->count, 1);
  EXPECT_TRUE(pending.owner_kind.empty());
}

TEST(DeviceDecoders, ResourceClaimTemplateAndTheClaimsMadeForAPod) {
  const auto objects = parse(R"(apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {namespace: ml, name: one-gpu}
spec:
  metadata: {labels: {app: train}, annotations: {team: a}}
  spec:
    devices:
      requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]
---
apiVersion: v1
kind: Pod
metadata: {namespace: ml, name: train-0}
spec:
  containers: [{name: c, image: busybox}]
  resourceClaims:
  - {name: gpu, resourceClaimTemplateName: one-gpu}
  - {name: nic, resourceClaimTemplateName: one-nic}
  - {name: shared, resourceClaimName: shared-gpu}
status:
  resourceClaimStatuses:
  - {name: gpu, resourceClaimName: train-0-gpu-x7k2p}
  - {name: nic}
  - {name: gone, resourceClaimName: train-0-gone}
)");
  ASSERT_EQ(objects.claim_templates.size(), 1u);
  const model::ResourceClaimTemplate& t = objects.claim_templates[0];
  EXPECT_EQ(t.key(), "ml/one-gpu");
  EXPECT_EQ(t.labels.at("app"), "train");
  EXPECT_EQ(t.annotations.at("team"), "a");
  ASSERT_EQ(t.spec.requests.size(), 1u);
  EXPECT_EQ(t.spec.requests[0].exactly->device_class, "gpu.example.com");
  // The claim made from a template is recorded by its entry's name; an
  // entry without resourceClaimName made none yet, one naming no entry is
  // ignored.
  const auto& refs = objects.pods.at(0).device_claims;
  ASSERT_EQ(refs.size(), 3u);
  EXPECT_EQ(refs[0].made, "train-0-gpu-x7k2p");
  EXPECT_EQ(refs[1].made, "");
  EXPECT_EQ(refs[2].made, "");
}

TEST(DeviceDecoders, EachNameOncePerScope) {
  std::string other = claim(kOneGpu);
  other.replace(other.find("namespace: ml"), 13, "namespace: ci");
  EXPECT_EQ(parse(claim(kOneGpu) + "---\n" + other).resource_claims.size(), 2u);
  EXPECT_EQ(parse_error(claim(kOneGpu) + "---\n" + claim(kOneGpu)),
            "cluster.yaml: document 2 (ResourceClaim ml/c): field metadata.name: \"c\" is already "
            "used by document 1; give each ResourceClaim in namespace \"ml\" its own name");
  EXPECT_EQ(parse_error(device_class("  {}\n") + "---\n" + device_class("  {}\n")),
            "cluster.yaml: document 2 (DeviceClass gpu.example.com): field metadata.name: "
            "\"gpu.example.com\" is already used by document 1; give each DeviceClass its own "
            "name");
}

}  // namespace
}  // namespace scoria::source::device_decoders
