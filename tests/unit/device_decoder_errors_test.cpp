// The Dynamic Resource Allocation kinds refused as kube-apiserver's
// validation refuses them (pkg/apis/resource/validation): each malformed
// field named, with what is wrong and the fix, before anything is loaded.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "device_texts.h"
#include "objects_from_text.h"

namespace scoria::source::device_decoder_errors {
namespace {

using test_support::parse_error;
using test_support::devices::claim;
using test_support::devices::device_class;
using test_support::devices::kOneGpu;
using test_support::devices::kSliceHead;
using test_support::devices::slice;
using test_support::devices::slice_of;

using Cases = std::vector<std::pair<std::string, std::string>>;

/// Each text refused with `at` + its message.
void expect_refusals(const std::string& at, const Cases& cases) {
  for (const auto& [text, message] : cases) EXPECT_EQ(parse_error(text), at + message) << text;
}

std::string repeated(std::string_view item, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    std::string one(item);
    if (const size_t at = one.find('#'); at != std::string::npos)
      one.replace(at, 1, std::to_string(i));
    out += one;
  }
  return out;
}

TEST(DeviceDecoderErrors, DeviceClassesAsTheApiServerValidatesThem) {
  const std::string expression(10241, 'x');
  expect_refusals(
      "cluster.yaml: document 1 (DeviceClass gpu.example.com): field spec.selectors",
      {{device_class("  selectors: [{}]\n"),
        "[0].cel: is missing; give the selector as cel: {expression: ...}"},
       {device_class("  selectors: [{cel: {expression: \"\"}}]\n"),
        "[0].cel.expression: is missing; write a CEL expression over the device, e.g. "
        "device.driver == \"gpu.example.com\""},
       {device_class("  selectors: [{cel: {expression: " + expression + "}}]\n"),
        "[0].cel.expression: 10241 bytes are more than the 10240 allowed; shorten the "
        "expression"},
       {device_class("  selectors:\n" + repeated("  - cel: {expression: 'true'}\n", 33)),
        ": 33 items are more than the 32 allowed; list at most 32"}});
}

TEST(DeviceDecoderErrors, ResourceSlicesAsTheApiServerValidatesThem) {
  const std::string pool = "  pool: {name: n1, resourceSliceCount: 1}\n";
  const std::string driver = "  driver: gpu.example.com\n";
  const std::string head(kSliceHead);
  expect_refusals(
      "cluster.yaml: document 1 (ResourceSlice n1-gpu): field spec",
      {{slice(pool + "  nodeName: n1\n"),
        ".driver: is missing; name the DRA driver, e.g. gpu.example.com"},
       {slice("  driver: gpu_example.com\n" + pool + "  nodeName: n1\n"),
        ".driver: \"gpu_example.com\" is not a driver name: use a DNS subdomain of at most 63 "
        "characters, e.g. \"gpu.example.com\""},
       {slice(driver + "  nodeName: n1\n"),
        ".pool: is missing; give pool: {name, generation, resourceSliceCount}"},
       {slice(driver + "  pool: {resourceSliceCount: 1}\n  nodeName: n1\n"),
        ".pool.name: is missing; name the pool, e.g. the node's name"},
       {slice(driver + "  pool: {name: a//b, resourceSliceCount: 1}\n  nodeName: n1\n"),
        ".pool.name: \"a//b\" is not a pool name: use DNS subdomains separated by '/', at most "
        "253 characters (e.g. \"node-1\" or \"rack-a/gpus\")"},
       {slice(driver + "  pool: {name: n1, generation: -1, resourceSliceCount: 1}\n"),
        ".pool.generation: -1 is negative; write 0 or more"},
       {slice(driver + "  pool: {name: n1}\n  nodeName: n1\n"),
        ".pool.resourceSliceCount: is missing; give how many ResourceSlices make up the pool at "
        "this generation, e.g. 1"},
       {slice(driver + "  pool: {name: n1, resourceSliceCount: 0}\n  nodeName: n1\n"),
        ".pool.resourceSliceCount: 0 is not greater than zero; a pool has 1 slice or more"},
       {slice(head),
        ": says nowhere its devices are available; give exactly one of nodeName, nodeSelector, "
        "allNodes: true and perDeviceNodeSelection: true"},
       {slice(head + "  nodeName: n1\n  allNodes: true\n"),
        ": sets nodeName, allNodes; give exactly one of nodeName, nodeSelector, allNodes and "
        "perDeviceNodeSelection"},
       {slice(head + "  allNodes: false\n"), ".allNodes: is false; set it to true, or remove it"},
       {slice(head + "  nodeName: \"\"\n"),
        ".nodeName: is empty; name the node, or remove nodeName"},
       {slice(head + "  nodeSelector: {nodeSelectorTerms: [{}, {}]}\n"),
        ".nodeSelector.nodeSelectorTerms: has 2 terms; a ResourceSlice's node selector has "
        "exactly one"},
       {slice(head + "  nodeSelector: {nodeSelectorTerms: []}\n"),
        ".nodeSelector.nodeSelectorTerms: is empty; give at least one term (matchExpressions or "
        "matchFields)"},
       {slice(head + "  allNodes: true\n  devices: [{name: a}]\n"
                     "  sharedCounters: [{name: s, counters: {c: {value: 1}}}]\n"),
        ": has both devices and sharedCounters; publish a pool's counter sets in a slice of "
        "their own"},
       {slice(head + "  allNodes: true\n  sharedCounters:\n"
                     "  - {name: s, counters: {Memory: {value: 1}}}\n"),
        ".sharedCounters[0].counters.Memory: \"Memory\" is not a DNS label: use at most 63 lower "
        "case letters, digits and '-', starting and ending with a letter or digit (e.g. "
        "\"gpu-0\")"},
       {slice(head + "  allNodes: true\n  sharedCounters:\n"
                     "  - {name: s, counters: {c: {value: 1}}}\n"
                     "  - {name: s, counters: {c: {value: 2}}}\n"),
        ".sharedCounters[1].name: \"s\" is listed twice; name each set once"},
       {slice(head + "  perDeviceNodeSelection: true\n  devices: [{name: a}]\n"),
        ".devices[0]: says nowhere it is available; with perDeviceNodeSelection each device "
        "gives exactly one of nodeName, nodeSelector and allNodes: true"},
       {slice_of(repeated("  - {name: d#, taints: [{key: k, effect: NoSchedule}]}\n", 65)),
        ".devices: 65 devices are more than the 64 allowed where devices have taints or consume "
        "counters; split the slice"},
       {slice_of(repeated("  - {name: d#}\n", 129)),
        ".devices: 129 items are more than the 128 allowed; list at most 128"}});
}

TEST(DeviceDecoderErrors, DevicesAsTheApiServerValidatesThem) {
  const auto attribute = [](std::string_view value) {
    return slice_of("  - {name: a, attributes: {model: " + std::string(value) + "}}\n");
  };
  expect_refusals(
      "cluster.yaml: document 1 (ResourceSlice n1-gpu): field spec.devices",
      {{slice_of("  - {attributes: {}}\n"), "[0].name: is missing; name the device, e.g. gpu-0"},
       {slice_of("  - {name: GPU-0}\n"),
        "[0].name: \"GPU-0\" is not a DNS label: use at most 63 lower case letters, digits and "
        "'-', starting and ending with a letter or digit (e.g. \"gpu-0\")"},
       {slice_of("  - {name: a}\n  - {name: a}\n"),
        "[1].name: \"a\" is listed twice; name each device once"},
       {attribute("{}"),
        "[0].attributes.model: has no value; give exactly one of int, bool, string or version"},
       {attribute("{int: 1, string: x}"),
        "[0].attributes.model: has int, string; give exactly one of int, bool, string or "
        "version"},
       {attribute("{ints: [1, 2]}"),
        "[0].attributes.model.ints: is a list attribute (the alpha DRAListTypeAttributes), "
        "which is not supported; give one value as int, bool, string or version"},
       {attribute("{version: \"1.2\"}"),
        "[0].attributes.model.version: \"1.2\" is not a semantic version (semver.org 2.0.0); "
        "write e.g. \"1.2.3\" or \"12.4.0-rc.1\""},
       {attribute("{string: " + std::string(65, 'a') + "}"),
        "[0].attributes.model.string: 65 characters are more than the 64 allowed; shorten it"},
       {attribute("{int: x}"),
        "[0].attributes.model.int: \"x\" is not a whole number; write e.g. 1"},
       {attribute("{bool: maybe}"),
        "[0].attributes.model.bool: \"maybe\" is not a boolean; write true or false"},
       {slice_of("  - {name: a, attributes: {a/b/c: {int: 1}}}\n"),
        "[0].attributes[a/b/c]: \"a/b/c\" holds more than one '/'; write DOMAIN/NAME or NAME"},
       {slice_of("  - {name: a, attributes: {/x: {int: 1}}}\n"),
        "[0].attributes[/x]: \"/x\" has an empty domain; write DOMAIN/NAME"},
       {slice_of("  - {name: a, capacity: {9lives: {value: 1}}}\n"),
        "[0].capacity.9lives: \"9lives\": the name is not a C identifier of at most 32 "
        "characters (letters, digits and '_', not starting with a digit, e.g. \"memory\" or "
        "\"numa_node\")"},
       {slice_of("  - {name: a, capacity: {memory: {}}}\n"),
        "[0].capacity.memory.value: is missing; give the amount, e.g. value: \"40Gi\""},
       {slice_of("  - {name: a, capacity: {memory: {value: lots}}}\n"),
        "[0].capacity.memory.value: \"lots\" is not a quantity; write e.g. \"4\", \"500m\" or "
        "\"40Gi\""},
       {slice_of("  - name: a\n    attributes:\n" + repeated("      a#: {int: 1}\n", 30) +
                 "    capacity: {x: {value: 1}, y: {value: 1}, z: {value: 1}}\n"),
        "[0]: has 33 attributes and capacities, more than the 32 allowed"},
       {slice_of("  - {name: a, consumesCounters: [{counters: {c: {value: 1}}}]}\n"),
        "[0].consumesCounters[0].counterSet: is missing; name the counter set, e.g. "
        "gpu-0-counters"},
       {slice_of("  - {name: a, consumesCounters: [{counterSet: s, counters: {c: {value: 1}}},"
                 " {counterSet: s, counters: {c: {value: 1}}}]}\n"),
        "[0].consumesCounters[1].counterSet: \"s\" is listed twice; give each counter set once"},
       {slice_of("  - {name: a, consumesCounters: [{counterSet: s}]}\n"),
        "[0].consumesCounters[0].counters: is empty; give at least one counter, e.g. memory: "
        "{value: 40Gi}"},
       {slice_of("  - name: a\n    consumesCounters:\n" +
                 repeated("    - {counterSet: s#, counters: {c: {value: 1}}}\n", 3)),
        "[0].consumesCounters: 3 items are more than the 2 allowed; list at most 2"},
       {slice_of("  - {name: a, taints: [{effect: NoSchedule}]}\n"),
        "[0].taints[0].key: is missing; give the taint's key, e.g. example.com/unhealthy"},
       {slice_of("  - {name: a, taints: [{key: k}]}\n"),
        "[0].taints[0].effect: is missing; use NoSchedule, NoExecute or None"},
       {slice_of("  - {name: a, taints: [{key: k, effect: PreferNoSchedule}]}\n"),
        "[0].taints[0].effect: \"PreferNoSchedule\" is not a device taint effect; use "
        "NoSchedule, NoExecute or None"},
       {slice_of("  - {name: a, nodeName: n2}\n"),
        "[0].nodeName: may be set on a device only when the slice sets perDeviceNodeSelection: "
        "true; set that instead of the slice's node selection, or remove it"}});
}

TEST(DeviceDecoderErrors, ClaimsAsTheApiServerValidatesThem) {
  const auto exactly = [](std::string_view ask) {
    return claim("    requests:\n    - name: gpu\n      exactly: {deviceClassName: g, " +
                 std::string(ask) + "}\n");
  };
  const auto constraint = [](std::string_view c) {
    return claim(std::string(kOneGpu) + "    constraints: [" + std::string(c) + "]\n");
  };
  const std::string unknown =
      " names no request of the claim; give a request's name, or REQUEST/ALTERNATIVE for one of "
      "a request's firstAvailable";
  expect_refusals(
      "cluster.yaml: document 1 (ResourceClaim ml/c): field spec.devices.",
      {{claim("    requests: [{exactly: {deviceClassName: g}}]\n"),
        "requests[0].name: is missing; name the request (containers' resources.claims and "
        "constraints use it)"},
       {claim("    requests:\n" +
              repeated("    - {name: gpu, exactly: {deviceClassName: g}}\n", 2)),
        "requests[1].name: \"gpu\" is used by an earlier request; names must differ"},
       {claim("    requests: [{name: gpu}]\n"),
        "requests[0]: needs exactly one of exactly and firstAvailable; give exactly: "
        "{deviceClassName: ...}, or alternatives in firstAvailable"},
       {claim("    requests: [{name: gpu, exactly: {deviceClassName: g}, firstAvailable: "
              "[{name: a, deviceClassName: g}]}]\n"),
        "requests[0]: has both exactly and firstAvailable; give one of them"},
       {claim("    requests: [{name: gpu, exactly: {count: 1}}]\n"),
        "requests[0].exactly.deviceClassName: is missing; name the DeviceClass to allocate "
        "from"},
       {exactly("allocationMode: Some"),
        "requests[0].exactly.allocationMode: \"Some\" is not an allocation mode; use ExactCount "
        "or All"},
       {exactly("count: -1"),
        "requests[0].exactly.count: -1 is not greater than zero; ask for 1 or more devices"},
       {exactly("capacity: {requests: {memory: -1Gi}}"),
        "requests[0].exactly.capacity.requests.memory: -1073741824 is negative; request 0 or more"},
       {exactly("capacity: {requests: {memory: lots}}"),
        "requests[0].exactly.capacity.requests.memory: \"lots\" is not a quantity; write e.g. "
        "\"4\", \"500m\" or \"40Gi\""},
       {exactly("allocationMode: All, count: 2"),
        "requests[0].exactly.count: must not be given when allocationMode is All; remove it"},
       {exactly("tolerations: [{operator: Sometimes}]"),
        "requests[0].exactly.tolerations[0].operator: \"Sometimes\" is not a toleration "
        "operator; use Equal or Exists"},
       {exactly("tolerations: [{key: k, operator: Exists, value: v}]"),
        "requests[0].exactly.tolerations[0].value: must be empty with operator Exists; remove "
        "the value"},
       {exactly("tolerations: [{key: k, effect: PreferNoSchedule}]"),
        "requests[0].exactly.tolerations[0].effect: \"PreferNoSchedule\" is not a device taint "
        "effect; use NoSchedule, NoExecute or None"},
       {claim("    requests: [{name: gpu, firstAvailable: [{deviceClassName: g}]}]\n"),
        "requests[0].firstAvailable[0].name: is missing; name the alternative (constraints use "
        "REQUEST/NAME)"},
       {claim("    requests:\n    - name: gpu\n      firstAvailable:\n" +
              repeated("      - {name: a, deviceClassName: g}\n", 2)),
        "requests[0].firstAvailable[1].name: \"a\" is used by an earlier alternative; names must "
        "differ"},
       {claim("    requests:\n    - name: gpu\n      firstAvailable:\n" +
              repeated("      - {name: a#, deviceClassName: g}\n", 9)),
        "requests[0].firstAvailable: 9 items are more than the 8 allowed; list at most 8"},
       {claim("    requests:\n" +
              repeated("    - {name: r#, exactly: {deviceClassName: g}}\n", 33)),
        "requests: 33 items are more than the 32 allowed; list at most 32"},
       {constraint("{requests: [gpu]}"),
        "constraints[0].matchAttribute: is missing; name the attribute the devices must share, "
        "e.g. gpu.example.com/numa"},
       {constraint("{matchAttribute: a.io/x, distinctAttribute: a.io/y}"),
        "constraints[0]: has both matchAttribute and distinctAttribute; give one of them"},
       {constraint("{matchAttribute: model}"),
        "constraints[0].matchAttribute: \"model\" has no domain; a constraint names its "
        "attribute fully, e.g. \"gpu.example.com/model\""},
       {constraint("{requests: [tpu], matchAttribute: a.io/x}"),
        "constraints[0].requests[0]: \"tpu\"" + unknown},
       {constraint("{requests: [gpu/big], matchAttribute: a.io/x}"),
        "constraints[0].requests[0]: \"gpu/big\"" + unknown},
       {constraint("{requests: [gpu, gpu], matchAttribute: a.io/x}"),
        "constraints[0].requests[1]: \"gpu\" is listed twice; list each request once"}});

  const std::string result = "      results: [{request: gpu, driver: d.io, pool: p, device: x}]\n";
  const auto status = [](std::string_view text) {
    return claim(kOneGpu, "status:\n" + std::string(text));
  };
  expect_refusals(
      "cluster.yaml: document 1 (ResourceClaim ml/c): field ",
      {{status("  allocation:\n    devices:\n"
               "      results: [{request: tpu, driver: d.io, pool: p, device: x}]\n"),
        "status.allocation.devices.results[0].request: \"tpu\" names no request of the claim's "
        "spec; give a request's name, or REQUEST/ALTERNATIVE for one of a request's "
        "firstAvailable"},
       {status("  allocation:\n    devices:\n"
               "      results: [{request: gpu, pool: p, device: x}]\n"),
        "status.allocation.devices.results[0].driver: is missing; name the device's driver"},
       {status("  allocation:\n    devices:\n"
               "      results: [{request: gpu, driver: d.io, pool: p, device: X}]\n"),
        "status.allocation.devices.results[0].device: \"X\" is not a DNS label: use at most 63 "
        "lower case letters, digits and '-', starting and ending with a letter or digit (e.g. "
        "\"gpu-0\")"},
       {status("  allocation:\n    devices:\n" + result +
               "    nodeSelector: {nodeSelectorTerms: []}\n"),
        "status.allocation.nodeSelector.nodeSelectorTerms: is empty; give at least one term "
        "(matchExpressions or matchFields)"},
       {status("  reservedFor: [{resource: pods, name: p, uid: u1}]\n"),
        "status.reservedFor: is set without status.allocation; a claim is reserved only once "
        "devices are allocated to it"},
       {status("  allocation:\n    devices:\n" + result +
               "  reservedFor: [{resource: pods, name: p}]\n"),
        "status.reservedFor[0].uid: is missing; give its metadata.uid"},
       {status("  allocation:\n    devices:\n" + result + "  reservedFor:\n" +
               repeated("  - {resource: pods, name: p, uid: u1}\n", 2)),
        "status.reservedFor[1].uid: \"u1\" is listed twice; reserve for each once"},
       {claim(kOneGpu).replace(claim(kOneGpu).find("name: c}"), 8,
                               "name: c, ownerReferences: [{kind: Pod, name: a, controller: "
                               "true}, {kind: Pod, name: b, controller: true}]}"),
        "metadata.ownerReferences[1].controller: is true for a second owner; only one owner "
        "reference may be the controller"}});
}

TEST(DeviceDecoderErrors, TemplatesCheckTheirClaimSpecAsAClaimsIsChecked) {
  EXPECT_EQ(parse_error("apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\n"
                        "metadata: {namespace: ml, name: t}\n"
                        "spec:\n  spec:\n    devices:\n"
                        "      requests: [{exactly: {deviceClassName: g}}]\n"),
            "cluster.yaml: document 1 (ResourceClaimTemplate ml/t): field "
            "spec.spec.devices.requests[0].name: is missing; name the request (containers' "
            "resources.claims and constraints use it)");
  EXPECT_EQ(parse_error("apiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaimTemplate\n"
                        "metadata: {namespace: ml, name: t}\n"),
            "cluster.yaml: document 1 (ResourceClaimTemplate ml/t): field apiVersion: "
            "\"resource.k8s.io/v1beta1\" is not an apiVersion of ResourceClaimTemplate; write "
            "apiVersion: resource.k8s.io/v1");
}

}  // namespace
}  // namespace scoria::source::device_decoder_errors
