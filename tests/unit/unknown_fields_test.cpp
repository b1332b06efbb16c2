// The field schema and the unknown-field check: every generated field is
// found, nested paths are written as the API server writes them, free-form
// places are never checked, and real objects have no unknown field.
#include "schema/unknown_fields.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "input/documents.h"
#include "input/limits.h"
#include "schema/field_schema.h"

namespace scoria::schema {
namespace {

using nlohmann::json;

std::vector<std::string> paths(const std::vector<UnknownField>& fields) {
  std::vector<std::string> out;
  for (const UnknownField& f : fields) out.push_back(f.path);
  return out;
}

std::vector<std::string> unknown(const json& object, std::string_view default_kind = {}) {
  return paths(find_unknown_fields(object, default_kind));
}

json pod(json spec) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", "web-0"}}},
          {"spec", std::move(spec)}};
}

TEST(FieldSchema, FindsEveryFieldOfEveryTypeAndNoNeighbour) {
  const Table& t = table();
  size_t checked = 0;
  for (const Type& type : t.types) {
    for (const Field& f : fields_of(type)) {
      const std::string name(name_of(f));
      const Type* found = find_field(type, name);
      ASSERT_NE(found, nullptr) << name;
      EXPECT_EQ(found, &t.types[f.type]) << name;
      // Names one edit away (longer, shorter, another last letter) are not
      // fields unless the type has them too.
      for (const std::string& near :
           {name + "x", name.substr(0, name.size() - 1), name.substr(0, name.size() - 1) + "#"}) {
        const bool listed = std::any_of(fields_of(type).begin(), fields_of(type).end(),
                                        [&](const Field& g) { return name_of(g) == near; });
        EXPECT_EQ(find_field(type, near) != nullptr, listed) << name << " -> " << near;
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 500u);
}

TEST(FieldSchema, FieldsAreSortedByName) {
  for (const Type& type : table().types) {
    const auto fields = fields_of(type);
    for (size_t i = 1; i < fields.size(); ++i)
      EXPECT_LT(name_of(fields[i - 1]), name_of(fields[i]));
  }
}

TEST(FieldSchema, KindsByApiVersionAndKind) {
  for (const auto& [api, kind] : std::vector<std::pair<std::string, std::string>>{
           {"v1", "Pod"},
           {"v1", "Node"},
           {"v1", "Namespace"},
           {"v1", "Event"},
           {"scheduling.k8s.io/v1", "PriorityClass"},
           {"coordination.k8s.io/v1", "Lease"},
           {"policy/v1", "PodDisruptionBudget"},
           {"v1", "ResourceQuota"},
           {"scheduling.volcano.sh/v1beta1", "PodGroup"},
           {"scheduling.volcano.sh/v1beta1", "Queue"},
           {"batch.volcano.sh/v1alpha1", "Job"},
           {"nodeinfo.volcano.sh/v1alpha1", "Numatopology"},
           {"topology.volcano.sh/v1alpha1", "HyperNode"},
           {"v1", "PersistentVolume"},
           {"v1", "PersistentVolumeClaim"},
           {"storage.k8s.io/v1", "StorageClass"},
           {"storage.k8s.io/v1", "CSINode"},
           {"storage.k8s.io/v1", "CSIDriver"},
           {"storage.k8s.io/v1", "CSIStorageCapacity"},
           {"resource.k8s.io/v1", "DeviceClass"},
           {"resource.k8s.io/v1", "ResourceSlice"},
           {"resource.k8s.io/v1", "ResourceClaim"},
           {"resource.k8s.io/v1", "ResourceClaimTemplate"}}) {
    const Type* t = find_kind(api, kind);
    ASSERT_NE(t, nullptr) << api << " " << kind;
    EXPECT_NE(find_field(*t, "metadata"), nullptr) << kind;
    EXPECT_EQ(find_kind("", kind), t) << kind;
  }
  EXPECT_EQ(find_kind("batch/v1", "Job"), nullptr);  // Kubernetes' Job is not read
  EXPECT_EQ(find_kind("v1", "ConfigMap"), nullptr);
}

TEST(UnknownFields, StorageKindsWithTheFieldsNewerKubernetesAdded) {
  const json pv = json::parse(R"({
    "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv"},
    "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
             "volumeAttributesClassName": "gold", "claimRef": {"name": "c", "namespce": "x"},
             "csi": {"driver": "d", "volumeHandle": "h", "nodeExpandSecretRef": {"name": "s"}},
             "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpresions": []}]}}},
    "status": {"phase": "Bound", "lastPhaseTransitionTime": "2026-01-01T00:00:00Z"}})");
  EXPECT_EQ(unknown(pv),
            (std::vector<std::string>{"spec.claimRef.namespce",
                                      "spec.nodeAffinity.required.nodeSelectorTerms[0]."
                                      "matchExpresions"}));
  const json pvc = json::parse(R"({
    "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "c"},
    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
             "volumeAttributesClassName": "gold", "storageClass": "fast"},
    "status": {"phase": "Bound", "allocatedResources": {"storage": "1Gi"},
               "modifyVolumeStatus": {"status": "Pending"}}})");
  EXPECT_EQ(unknown(pvc), std::vector<std::string>{"spec.storageClass"});
  const json sc = json::parse(R"({
    "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "s"},
    "provisioner": "p", "parameters": {"anything": "goes"},
    "allowedTopologies": [{"matchLabelExpressions": [{"key": "k", "value": ["a"]}]}]})");
  EXPECT_EQ(unknown(sc),
            std::vector<std::string>{"allowedTopologies[0].matchLabelExpressions[0].value"});
  const json driver = json::parse(R"({
    "apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": "d"},
    "spec": {"seLinuxMount": true, "nodeAllocatableUpdatePeriodSeconds": 60,
             "storageCapacty": true}})");
  EXPECT_EQ(unknown(driver), std::vector<std::string>{"spec.storageCapacty"});
  const json capacity = json::parse(R"({
    "apiVersion": "storage.k8s.io/v1", "kind": "CSIStorageCapacity",
    "metadata": {"name": "c"}, "storageClassName": "s", "capacity": "1Gi", "spec": {}})");
  EXPECT_EQ(unknown(capacity), std::vector<std::string>{"spec"});
  const json node = json::parse(R"({
    "apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": "n"},
    "spec": {"drivers": [{"name": "d", "nodeID": "i", "allocatable": {"cout": 1}}]}})");
  EXPECT_EQ(unknown(node), std::vector<std::string>{"spec.drivers[0].allocatable.cout"});
}

TEST(UnknownFields, DeviceKindsAsKubernetesDefinesThem) {
  // Attribute, capacity and counter names are free-form; what they hold is not.
  const json slice = json::parse(R"({
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
    "spec": {"driver": "d", "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1,
                                     "sliceCount": 1},
             "nodeName": "n1",
             "devices": [{"name": "a", "attributes": {"model": {"string": "x", "strng": "y"}},
                          "capacity": {"memory": {"value": "1Gi", "vaule": "2Gi"}},
                          "consumesCounters": [{"counterSet": "s",
                                                "counters": {"c": {"value": "1"}}}],
                          "taints": [{"key": "k", "effect": "NoSchedule",
                                      "timeAdded": "2026-01-01T00:00:00Z"}],
                          "basic": {}}]}})");
  EXPECT_EQ(unknown(slice), (std::vector<std::string>{
                                "spec.devices[0].attributes.model.strng", "spec.devices[0].basic",
                                "spec.devices[0].capacity.memory.vaule", "spec.pool.sliceCount"}));
  const json claim = json::parse(R"({
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c"},
    "spec": {"devices": {
      "requests": [{"name": "gpu", "exactly": {"deviceClassName": "g", "count": 1,
                                               "capacity": {"requests": {"memory": "1Gi"}}}},
                   {"name": "any", "deviceClassName": "g",
                    "firstAvailable": [{"name": "a", "deviceClassName": "g",
                                        "adminAccess": true}]}],
      "constraints": [{"requests": ["gpu"], "matchAttribute": "d/x"}],
      "config": [{"requests": ["gpu"], "opaque": {"driver": "d", "parameters": {"a": 1}}}]}},
    "status": {"allocation": {"devices": {"results": [{"request": "gpu", "driver": "d",
                                                        "pool": "p", "device": "x"}]},
                              "nodeSelector": {"nodeSelectorTerms": [{}]}},
               "reservedFor": [{"resource": "pods", "name": "p", "uid": "u", "kind": "Pod"}]}})");
  EXPECT_EQ(unknown(claim),
            (std::vector<std::string>{"spec.devices.requests[1].deviceClassName",
                                      "spec.devices.requests[1].firstAvailable[0].adminAccess",
                                      "status.reservedFor[0].kind"}));
  const json tmpl = json::parse(R"({
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
    "metadata": {"name": "t"},
    "spec": {"metadata": {"labels": {"a": "b"}}, "spec": {"devices": {"requests": []}},
             "devices": {}}})");
  EXPECT_EQ(unknown(tmpl), std::vector<std::string>{"spec.devices"});
  const json cls = json::parse(R"({
    "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "g"},
    "spec": {"selectors": [{"cel": {"expression": "true", "expresion": "false"}}],
             "extendedResourceName": "example.com/gpu"}})");
  EXPECT_EQ(unknown(cls), std::vector<std::string>{"spec.selectors[0].cel.expresion"});
}

TEST(UnknownFields, NumatopologyAsItsCrd) {
  // Maps keyed by resource and CPU id are free-form; their values are not.
  const json t = json::parse(R"({
    "apiVersion": "nodeinfo.volcano.sh/v1alpha1", "kind": "Numatopology",
    "metadata": {"name": "n1"},
    "spec": {"policies": {"CPUManagerPolicy": "static"},
             "numares": {"cpu": {"allocatable": "0-3", "capacity": 4, "alocatable": "0"}},
             "cpuDetail": {"0": {"numa": 0, "socket": 0, "core": 0, "cores": 1}},
             "podAllocations": [{"name": "p", "containerAllocations": [{"name": "c"}]}],
             "resreserved": {}}})");
  EXPECT_EQ(unknown(t),
            (std::vector<std::string>{"spec.cpuDetail.0.cores", "spec.numares.cpu.alocatable",
                                      "spec.resreserved"}));
}

TEST(UnknownFields, HyperNodeAsItsCrd) {
  // matchLabels is free-form; a misspelt selector kind or status field is not.
  const json t = json::parse(R"({
    "apiVersion": "topology.volcano.sh/v1alpha1", "kind": "HyperNode",
    "metadata": {"name": "rack-1"},
    "spec": {"tier": 1, "tierName": "rack",
             "members": [{"type": "Node", "selector": {"exactMatch": {"name": "n1"}}},
                         {"type": "Node", "selector": {"regexMatch": {"pattern": "^n"}}},
                         {"type": "Node", "selector": {"labelMatch": {
                             "matchLabels": {"anything": "goes"},
                             "matchExpressions": [{"key": "k", "operator": "In"}]}}},
                         {"type": "Node", "selector": {"exactMacth": {"name": "n2"}}}]},
    "status": {"nodeCount": 3, "nodecount": 3}})");
  EXPECT_EQ(unknown(t),
            (std::vector<std::string>{"spec.members[3].selector.exactMacth", "status.nodecount"}));
}

TEST(UnknownFields, NestedPathsAsTheApiServerWritesThem) {
  const json p = json::parse(R"({
    "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-0"},
    "spec": {
      "containers": [
        {"name": "a", "image": "x"},
        {"name": "b", "resouces": {"requests": {"cpu": "1"}},
         "env": [{"name": "E"},
                 {"name": "F", "valueFrom": {"fieldRef": {"fieldpath": "metadata.name"}}}]}],
      "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
          "nodeSelectorTerms": [{"matchExpression": []}]}}}}})");
  EXPECT_EQ(unknown(p),
            (std::vector<std::string>{"spec.affinity.nodeAffinity."
                                      "requiredDuringSchedulingIgnoredDuringExecution."
                                      "nodeSelectorTerms[0].matchExpression",
                                      "spec.containers[1].env[1].valueFrom.fieldRef.fieldpath",
                                      "spec.containers[1].resouces"}));
}

TEST(UnknownFields, UnderAMapOfObjects) {
  // A Volcano Job's status.taskStatusCount: task name -> {phase: {...}}.
  const json job = json::parse(R"({
    "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "j"},
    "status": {"taskStatusCount": {"ps": {"phase": {"Running": 1}},
                                   "worker": {"phses": {"Running": 2}}}}})");
  EXPECT_EQ(unknown(job), (std::vector<std::string>{"status.taskStatusCount.worker.phses"}));
}

TEST(UnknownFields, InAJobsPodTemplate) {
  const json job = json::parse(R"({
    "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "j"},
    "spec": {"minAvailble": 1,
             "tasks": [{"name": "a", "replicas": 1},
                       {"name": "b",
                        "template": {"metadata": {"labels": {"x": "y"}, "generateName": "b-"},
                                     "spec": {"containers": [{"name": "c",
                                                              "imagePullPolcy": "Always"}]}}}]}})");
  // The CRD's template metadata has name, namespace, labels, annotations
  // and finalizers only: the API server prunes generateName there.
  EXPECT_EQ(unknown(job), (std::vector<std::string>{
                              "spec.minAvailble", "spec.tasks[1].template.metadata.generateName",
                              "spec.tasks[1].template.spec.containers[0].imagePullPolcy"}));
}

TEST(UnknownFields, FreeFormPlacesAreNotChecked) {
  const json p = json::parse(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "web-0",
                 "labels": {"anything.example.com/at-all": "x"},
                 "annotations": {"scoria.io/arrival": "3", "notAField": "y"},
                 "managedFields": [{"manager": "kubectl", "fieldsType": "FieldsV1",
                                    "fieldsV1": {"f:spec": {"f:containers": {
                                        "k:{\"name\":\"c\"}": {".": {}}}}}}]},
    "spec": {"nodeSelector": {"any/key": "v", "kubernetes.io/hostname": "n"},
             "overhead": {"example.com/thing": "1"},
             "containers": [{"name": "c",
                             "resources": {"requests": {"nvidia.com/gpu": "1", "cpu": "1"},
                                           "limits": {"example.com/foo": "2"}}}]}})");
  EXPECT_TRUE(unknown(p).empty());
  const json group = json::parse(R"({
    "apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": {"name": "g"},
    "spec": {"minResources": {"cpu": "1", "example.com/any": "3"},
             "minTaskMember": {"worker": 2}}})");
  EXPECT_TRUE(unknown(group).empty());
  const json queue = json::parse(R"({
    "apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": "q"},
    "spec": {"capability": {"any/resource": "1"}}})");
  EXPECT_TRUE(unknown(queue).empty());
  const json job = json::parse(R"({
    "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "j"},
    "spec": {"plugins": {"ssh": [], "anything": ["--x"]}}})");
  EXPECT_TRUE(unknown(job).empty());
}

TEST(UnknownFields, AMappingsKeysInTheirOrderAndItemsInTheirs) {
  const json p = pod({{"zeta", 1}, {"containers", {{{"b", 1}}, {{"a", 2}}}}, {"alpha", 2}});
  EXPECT_EQ(unknown(p), (std::vector<std::string>{"spec.alpha", "spec.containers[0].b",
                                                  "spec.containers[1].a", "spec.zeta"}));
}

TEST(UnknownFields, TopLevelAndKeysThatAreNotWords) {
  json p = pod(json::object());
  p["sepc"] = json::object();
  p["spec"]["foo.bar/baz"] = 1;
  EXPECT_EQ(unknown(p), (std::vector<std::string>{"sepc", "spec.foo.bar/baz"}));
}

TEST(UnknownFields, SuggestsTheFieldItLikelyMeant) {
  json p = pod({{"nodeselector", {{"a", "b"}}},
                {"containers", {{{"name", "c"}, {"resouces", json::object()}, {"xyzzy", 1}}}}});
  p["metadata"]["lables"] = json::object();
  const std::vector<UnknownField> found = find_unknown_fields(p);
  ASSERT_EQ(found.size(), 4u);
  EXPECT_EQ(found[0].path, "metadata.lables");
  EXPECT_EQ(found[0].suggestion, "labels");
  EXPECT_EQ(found[1].path, "spec.containers[0].resouces");
  EXPECT_EQ(found[1].suggestion, "resources");
  EXPECT_EQ(found[2].path, "spec.containers[0].xyzzy");
  EXPECT_EQ(found[2].suggestion, "");
  EXPECT_EQ(found[3].path, "spec.nodeselector");
  EXPECT_EQ(found[3].suggestion, "nodeSelector");
}

TEST(UnknownFields, ValuesOfTheWrongShapeAreNotUnknownFields) {
  EXPECT_TRUE(unknown(pod("oops")).empty());
  EXPECT_TRUE(unknown(pod({{"containers", "oops"}}), "").empty());
  EXPECT_TRUE(unknown(pod({{"containers", {1, "two", nullptr, json::array()}}})).empty());
  json p = pod(json::object());
  p["metadata"] = 5;
  EXPECT_TRUE(unknown(p).empty());
  EXPECT_TRUE(unknown(json::array()).empty());
  EXPECT_TRUE(unknown(json("Pod")).empty());
}

TEST(UnknownFields, KindFromTheObjectOrTheListsItems) {
  const json item = {{"metadata", {{"name", "a"}}}, {"spec", {{"unschedulable", true}}}};
  EXPECT_TRUE(unknown(item).empty());  // no kind: nothing to check against
  EXPECT_EQ(unknown(item, "Pod"), (std::vector<std::string>{"spec.unschedulable"}));
  EXPECT_TRUE(unknown(item, "Node").empty());
  json other = item;
  other["apiVersion"] = "apps/v1";
  other["kind"] = "Deployment";
  EXPECT_TRUE(unknown(other, "Pod").empty());
  other["apiVersion"] = "batch/v1";
  other["kind"] = "Job";
  EXPECT_TRUE(unknown(other).empty());
}

TEST(UnknownFields, AtMostAHundredAsTheApiServer) {
  json spec = json::object();
  for (int i = 0; i < 150; ++i) spec["unknown" + std::to_string(1000 + i)] = i;
  json p = pod(spec);
  EXPECT_EQ(find_unknown_fields(p).size(), kMaxUnknownFields);
  // Every one is removed all the same.
  EXPECT_EQ(remove_unknown_fields(p).size(), kMaxUnknownFields);
  EXPECT_EQ(p["spec"], json::object());
}

TEST(UnknownFields, RemovingLeavesEverythingElse) {
  json p = pod({{"containers",
                 {{{"name", "c"}, {"image", "x"}, {"resouces", {{"requests", {{"cpu", "1"}}}}}}}},
                {"nodeName", "n"}});
  p["metadata"]["labels"] = {{"app", "web"}};
  p["status"] = {{"phase", "Pending"}, {"phse", "x"}};
  json want = p;
  want["spec"]["containers"][0].erase("resouces");
  want["status"].erase("phse");
  EXPECT_EQ(paths(remove_unknown_fields(p)),
            (std::vector<std::string>{"spec.containers[0].resouces", "status.phse"}));
  EXPECT_EQ(p, want);
  EXPECT_TRUE(remove_unknown_fields(p).empty());
}

TEST(UnknownFields, RealObjectsHaveNone) {
  // The scenario's objects: a Node, Namespace, PriorityClass, Queue,
  // PodGroup, a Pod with most of what a PodSpec and PodStatus hold, and a
  // Volcano Job, as a cluster serves them.
  const char* source = std::getenv("SCORIA_SOURCE_DIR");
  ASSERT_NE(source, nullptr);
  const std::filesystem::path file = std::filesystem::path(source) /
                                     "tests/scenarios/unknown-fields-none-in-real-objects/"
                                     "cluster.yaml";
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  const std::vector<input::Document> docs =
      input::read_documents(text.str(), "cluster.yaml", input::kFileLimits);
  ASSERT_EQ(docs.size(), 7u);
  for (const input::Document& d : docs) {
    ASSERT_NE(find_kind("", d.value.value("kind", "")), nullptr) << d.number;
    EXPECT_EQ(unknown(d.value), std::vector<std::string>()) << "document " << d.number;
  }
  // The pod is as full as it looks: a typo anywhere in it is found.
  json p = docs[5].value;
  ASSERT_EQ(p.value("kind", ""), "Pod");
  p["spec"]["containers"][0]["livenessProbe"]["httpGet"]["prot"] = 1;
  p["status"]["containerStatuses"][0]["user"]["linux"]["gids"] = 1;
  EXPECT_EQ(unknown(p), (std::vector<std::string>{"spec.containers[0].livenessProbe.httpGet.prot",
                                                  "status.containerStatuses[0].user.linux.gids"}));
}

TEST(FieldValidationNames, AsTheQueryParameterWritesThem) {
  EXPECT_EQ(parse_field_validation("Strict"), FieldValidation::kStrict);
  EXPECT_EQ(parse_field_validation("Warn"), FieldValidation::kWarn);
  EXPECT_EQ(parse_field_validation("Ignore"), FieldValidation::kIgnore);
  EXPECT_EQ(parse_field_validation("strict"), std::nullopt);
  EXPECT_EQ(parse_field_validation(""), std::nullopt);
}

}  // namespace
}  // namespace scoria::schema
