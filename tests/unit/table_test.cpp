// Server-side printing for kubectl get: ages as Kubernetes words them, and
// the Table's shape.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "api/resources.h"
#include "api/table.h"

namespace scoria::api {
namespace {

using Clock = std::chrono::system_clock;

Clock::time_point at(const char* rfc3339) {
  std::tm tm{};
  strptime(rfc3339, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return Clock::from_time_t(timegm(&tm));
}

TEST(Age, AsKubernetesHumanDurationWordsIt) {
  const char* created = "2026-01-01T00:00:00Z";
  EXPECT_EQ(age(created, at("2026-01-01T00:00:45Z")), "45s");
  EXPECT_EQ(age(created, at("2026-01-01T00:01:59Z")), "119s");
  EXPECT_EQ(age(created, at("2026-01-01T00:03:12Z")), "3m12s");
  EXPECT_EQ(age(created, at("2026-01-01T00:05:00Z")), "5m");
  EXPECT_EQ(age(created, at("2026-01-01T02:30:00Z")), "150m");
  EXPECT_EQ(age(created, at("2026-01-01T05:20:00Z")), "5h20m");
  EXPECT_EQ(age(created, at("2026-01-02T10:00:00Z")), "34h");
  EXPECT_EQ(age(created, at("2026-01-04T03:00:00Z")), "3d3h");
  EXPECT_EQ(age(created, at("2026-03-01T00:00:00Z")), "59d");
  EXPECT_EQ(age(created, at("2025-12-31T23:59:59Z")), "0s");
  EXPECT_EQ(age("", at("2026-01-01T00:00:00Z")), "<unknown>");
}

TEST(Table, WantedOnlyWhenTheFirstAcceptedTypeIsOne) {
  EXPECT_TRUE(wants_table("application/json;as=Table;v=v1;g=meta.k8s.io,application/json"));
  EXPECT_FALSE(wants_table("application/json"));
  EXPECT_FALSE(wants_table("application/json, application/json;as=Table;v=v1;g=meta.k8s.io"));
  EXPECT_FALSE(include_object("Everything").has_value());
  EXPECT_EQ(include_object(std::nullopt), IncludeObject::Metadata);
}

TEST(Table, PodRowsCarryThePrinterCellsAndTheMetadata) {
  const nlohmann::json pods = nlohmann::json::array(
      {{{"metadata",
         {{"name", "p"}, {"namespace", "ns"}, {"creationTimestamp", "2026-01-01T00:00:00Z"}}},
        {"spec", {{"nodeName", "n1"}, {"containers", nlohmann::json::array({{{"name", "c"}}})}}},
        {"status",
         {{"phase", "Running"},
          {"containerStatuses",
           nlohmann::json::array({{{"ready", true}, {"restartCount", 2}}})}}}}});
  const auto t = table(*find_kind("Pod"), pods, {{"resourceVersion", "7"}}, IncludeObject::Metadata,
                       at("2026-01-01T00:00:10Z"));
  EXPECT_EQ(t["kind"], "Table");
  EXPECT_EQ(t["metadata"]["resourceVersion"], "7");
  EXPECT_EQ(t["columnDefinitions"][0]["name"], "Name");
  const auto& cells = t["rows"][0]["cells"];
  EXPECT_EQ(cells[0], "p");
  EXPECT_EQ(cells[1], "1/1");
  EXPECT_EQ(cells[2], "Running");
  EXPECT_EQ(cells[3], "2");
  EXPECT_EQ(cells[4], "10s");
  EXPECT_EQ(cells[6], "n1");  // Node, a wide column
  EXPECT_EQ(t["rows"][0]["object"]["kind"], "PartialObjectMetadata");
  EXPECT_EQ(t["rows"][0]["object"]["metadata"]["namespace"], "ns");
}

/// The column names and the first row's cells of `objects` of `kind`.
std::pair<std::vector<std::string>, nlohmann::json> printed(std::string_view kind,
                                                            const nlohmann::json& objects) {
  const auto t = table(*find_kind(kind), nlohmann::json::array({objects}), nlohmann::json::object(),
                       IncludeObject::None, at("2026-01-01T00:00:10Z"));
  std::vector<std::string> names;
  for (const auto& c : t["columnDefinitions"]) {
    std::string name = c["name"];
    if (c["priority"] == 1) name += " (wide)";
    names.push_back(name);
  }
  return {names, t["rows"][0]["cells"]};
}

TEST(Table, StoragePrintersAsKubeApiserversShowThem) {
  using nlohmann::json;
  const json created = {{"creationTimestamp", "2026-01-01T00:00:00Z"}};
  json pv = json::parse(R"({"metadata": {"name": "pv-1"},
    "spec": {"capacity": {"storage": "10Gi"},
             "accessModes": ["ReadWriteOncePod", "ReadWriteOnce", "ReadOnlyMany"],
             "claimRef": {"namespace": "shop", "name": "data"}, "storageClassName": "fast"}})");
  pv["metadata"].update(created);
  auto [columns, cells] = printed("PersistentVolume", pv);
  EXPECT_EQ(columns,
            (std::vector<std::string>{"Name", "Capacity", "Access Modes", "Reclaim Policy",
                                      "Status", "Claim", "StorageClass", "VolumeAttributesClass",
                                      "Reason", "Age", "VolumeMode (wide)"}));
  EXPECT_EQ(cells, json::parse(R"(["pv-1", "10Gi", "RWO,ROX,RWOP", "Retain", "Bound",
                                   "shop/data", "fast", "<unset>", "", "10s", "<unset>"])"));
  pv["spec"].erase("claimRef");
  pv["spec"]["volumeMode"] = "Block";
  cells = printed("PersistentVolume", pv).second;
  EXPECT_EQ(cells[4], "Available");
  EXPECT_EQ(cells[5], "");
  EXPECT_EQ(cells[10], "Block");
  pv["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:05Z";
  EXPECT_EQ(printed("PersistentVolume", pv).second[4], "Terminating");

  json pvc = json::parse(R"({"metadata": {"name": "data", "namespace": "shop"},
    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
             "storageClassName": "fast"}})");
  pvc["metadata"].update(created);
  std::tie(columns, cells) = printed("PersistentVolumeClaim", pvc);
  EXPECT_EQ(columns, (std::vector<std::string>{
                         "Name", "Status", "Volume", "Capacity", "Access Modes", "StorageClass",
                         "VolumeAttributesClass", "Age", "VolumeMode (wide)"}));
  // Unbound: no capacity nor modes yet.
  EXPECT_EQ(cells, json::parse(R"(["data", "Pending", "", "", "", "fast", "<unset>", "10s",
                                   "<unset>"])"));
  pvc["spec"]["volumeName"] = "pv-1";
  pvc["status"] = {
      {"phase", "Bound"}, {"capacity", {{"storage", "10Gi"}}}, {"accessModes", {"ReadWriteOnce"}}};
  EXPECT_EQ(printed("PersistentVolumeClaim", pvc).second,
            json::parse(R"(["data", "Bound", "pv-1", "10Gi", "RWO", "fast", "<unset>", "10s",
                            "<unset>"])"));

  json sc = json::parse(R"({"metadata": {"name": "fast",
    "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
    "provisioner": "ebs.csi.aws.com", "volumeBindingMode": "WaitForFirstConsumer"})");
  sc["metadata"].update(created);
  std::tie(columns, cells) = printed("StorageClass", sc);
  EXPECT_EQ(columns,
            (std::vector<std::string>{"Name", "Provisioner", "ReclaimPolicy", "VolumeBindingMode",
                                      "AllowVolumeExpansion", "Age"}));
  EXPECT_EQ(cells, json::parse(R"j(["fast (default)", "ebs.csi.aws.com", "Delete",
                                    "WaitForFirstConsumer", false, "10s"])j"));

  json node = json::parse(R"({"metadata": {"name": "n1"},
    "spec": {"drivers": [{"name": "a", "nodeID": "1"}, {"name": "b", "nodeID": "1"}]}})");
  node["metadata"].update(created);
  EXPECT_EQ(printed("CSINode", node).second, json::parse(R"(["n1", 2, "10s"])"));

  json driver = json::parse(R"({"metadata": {"name": "d"},
    "spec": {"attachRequired": false, "tokenRequests": [{"audience": "vault"}]}})");
  driver["metadata"].update(created);
  std::tie(columns, cells) = printed("CSIDriver", driver);
  EXPECT_EQ(columns,
            (std::vector<std::string>{"Name", "AttachRequired", "PodInfoOnMount", "StorageCapacity",
                                      "TokenRequests", "RequiresRepublish", "Modes", "Age"}));
  EXPECT_EQ(cells, json::parse(R"(["d", false, false, false, "vault", false, "Persistent",
                                   "10s"])"));

  const json capacity = json::parse(R"({"metadata": {"name": "c", "namespace": "kube-system"},
    "storageClassName": "fast", "capacity": "100Gi"})");
  std::tie(columns, cells) = printed("CSIStorageCapacity", capacity);
  EXPECT_EQ(columns, (std::vector<std::string>{"Name", "StorageClassName", "Capacity"}));
  EXPECT_EQ(cells, json::parse(R"(["c", "fast", "100Gi"])"));
}

TEST(Table, DevicePrintersAsKubeApiserversShowThem) {
  using nlohmann::json;
  const json created = {{"creationTimestamp", "2026-01-01T00:00:00Z"}};
  json claim = json::parse(R"({"metadata": {"name": "gpu", "namespace": "ml"},
    "spec": {"devices": {"requests": [{"name": "gpu",
                                       "exactly": {"deviceClassName": "gpu.example.com"}}]}}})");
  claim["metadata"].update(created);
  auto [columns, cells] = printed("ResourceClaim", claim);
  EXPECT_EQ(columns, (std::vector<std::string>{"Name", "State", "Age"}));
  EXPECT_EQ(cells, json::parse(R"(["gpu", "pending", "10s"])"));
  // kube's resourceClaimState: deleted, then allocated and reserved.
  claim["status"]["allocation"] = {{"devices", {{"results", json::array()}}}};
  EXPECT_EQ(printed("ResourceClaim", claim).second[1], "allocated");
  claim["status"]["reservedFor"] = json::array();
  EXPECT_EQ(printed("ResourceClaim", claim).second[1], "allocated");
  claim["status"]["reservedFor"].push_back({{"resource", "pods"}, {"name", "p"}});
  EXPECT_EQ(printed("ResourceClaim", claim).second[1], "allocated,reserved");
  claim["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:05Z";
  EXPECT_EQ(printed("ResourceClaim", claim).second[1], "deleted,allocated,reserved");
  claim["status"].erase("allocation");
  EXPECT_EQ(printed("ResourceClaim", claim).second[1], "deleted");

  json slice = json::parse(R"({"metadata": {"name": "n1-gpu"},
    "spec": {"driver": "gpu.example.com", "pool": {"name": "n1", "generation": 1},
             "nodeName": "n1"}})");
  slice["metadata"].update(created);
  std::tie(columns, cells) = printed("ResourceSlice", slice);
  EXPECT_EQ(columns, (std::vector<std::string>{"Name", "Node", "Driver", "Pool", "Age"}));
  EXPECT_EQ(cells, json::parse(R"(["n1-gpu", "n1", "gpu.example.com", "n1", "10s"])"));
  slice["spec"].erase("nodeName");
  slice["spec"]["allNodes"] = true;
  EXPECT_EQ(printed("ResourceSlice", slice).second[1], "");

  for (const char* kind : {"DeviceClass", "ResourceClaimTemplate"}) {
    json object = {{"metadata", {{"name", "x"}}}};
    object["metadata"].update(created);
    std::tie(columns, cells) = printed(kind, object);
    EXPECT_EQ(columns, (std::vector<std::string>{"Name", "Age"})) << kind;
    EXPECT_EQ(cells, json::parse(R"(["x", "10s"])")) << kind;
  }
}

}  // namespace
}  // namespace scoria::api
