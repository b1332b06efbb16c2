// The Dynamic Resource Allocation kinds in the cluster cache: loaded whole
// (reset, replace) and changed one by one, each kind in its map by its key,
// handed to sessions through Snapshot::devices, and devices_version()
// moving on with every change of any of them and with nothing else (as
// storage_version() does for storage), so that what a session kept about
// devices can tell it is stale.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "cache/cluster_cache.h"
#include "source/object_loader.h"

namespace scoria::cache::device_kinds {
namespace {

constexpr std::string_view kDevices = R"(
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpu}
spec:
  driver: gpu.example.com
  pool: {name: n1, resourceSliceCount: 1}
  nodeName: n1
  devices: [{name: gpu-0}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {namespace: ml, name: one-gpu}
spec:
  spec:
    devices:
      requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {namespace: ml, name: shared-gpu}
spec:
  devices:
    requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]
)";

model::ClusterObjects decoded(std::string_view text) {
  model::ClusterObjects objects;
  source::parse_objects(text, "cluster.yaml", objects);
  return objects;
}

template <class Map>
std::vector<std::string> keys(const Map& map) {
  std::vector<std::string> out;
  for (const auto& [key, object] : map) out.push_back(key);
  return out;
}

TEST(DeviceKindsInTheCache, LoadedWholeEachByItsKeyAndSeenBySessions) {
  ClusterCache cache;
  cache.reset(decoded(kDevices));
  EXPECT_EQ(keys(cache.device_classes()), std::vector<std::string>{"gpu.example.com"});
  EXPECT_EQ(keys(cache.resource_slices()), std::vector<std::string>{"n1-gpu"});
  EXPECT_EQ(keys(cache.claim_templates()), std::vector<std::string>{"ml/one-gpu"});
  EXPECT_EQ(keys(cache.resource_claims()), std::vector<std::string>{"ml/shared-gpu"});
  EXPECT_EQ(cache.resource_slices().at("n1-gpu").devices.at(0).name, "gpu-0");

  // Both ways a session is given its input see the cache's maps.
  const cycle::Snapshot whole = cache.snapshot();
  EXPECT_EQ(whole.devices.classes, &cache.device_classes());
  EXPECT_EQ(whole.devices.slices, &cache.resource_slices());
  EXPECT_EQ(whole.devices.claims, &cache.resource_claims());
  EXPECT_EQ(whole.devices.templates, &cache.claim_templates());
  EXPECT_FALSE(whole.devices.empty());
  const cycle::Snapshot& kept = cache.refresh_snapshot(0);
  EXPECT_EQ(kept.devices.slices, &cache.resource_slices());
  EXPECT_EQ(kept.devices.claims->at("ml/shared-gpu").spec.requests.at(0).name, "gpu");

  // A relist replaces them all.
  std::vector<ObjectChange> relist;
  relist.push_back(ObjectChange::upsert(decoded(kDevices).resource_claims.at(0)));
  cache.replace(std::move(relist));
  EXPECT_EQ(keys(cache.resource_claims()), std::vector<std::string>{"ml/shared-gpu"});
  EXPECT_TRUE(cache.device_classes().empty());
  EXPECT_TRUE(cache.resource_slices().empty());
  EXPECT_TRUE(cache.claim_templates().empty());
  EXPECT_TRUE(cache.refresh_snapshot(0).devices.empty());
}

TEST(DeviceKindsInTheCache, EveryChangeOfOneMovesTheDevicesVersionAndNothingElseDoes) {
  ClusterCache cache;
  cache.reset(decoded(kDevices));
  uint64_t version = cache.devices_version();
  const uint64_t storage = cache.storage_version();
  cache.refresh_snapshot(0);

  // A node, a pod, a PersistentVolume: not devices.
  model::ClusterObjects others = decoded(
      "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\n"
      "apiVersion: v1\nkind: Pod\nmetadata: {namespace: ml, name: p}\n---\n"
      "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv-1}\n"
      "spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce]}\n");
  std::vector<ObjectChange> changes;
  changes.push_back(ObjectChange::upsert(std::move(others.nodes.at(0))));
  changes.push_back(ObjectChange::upsert(std::move(others.pods.at(0))));
  changes.push_back(ObjectChange::upsert(std::move(others.volumes.at(0))));
  cache.apply_changes(changes);
  EXPECT_EQ(cache.devices_version(), version);
  EXPECT_GT(cache.storage_version(), storage);

  // A claim allocated: changed in place, and what the next session reads.
  model::ClusterObjects fresh = decoded(kDevices);
  model::ResourceClaim allocated = fresh.resource_claims.at(0);
  model::DeviceResult given;
  given.request = "gpu";
  given.driver = "gpu.example.com";
  given.pool = "n1";
  given.device = "gpu-0";
  allocated.allocation.emplace().results.push_back(given);
  changes.clear();
  changes.push_back(ObjectChange::upsert(std::move(allocated)));
  EXPECT_EQ(changes[0].kind, Kind::ResourceClaim);
  EXPECT_EQ(changes[0].key, "ml/shared-gpu");
  const uint64_t storage_before = cache.storage_version();
  cache.apply_changes(changes);
  EXPECT_GT(cache.devices_version(), version);
  EXPECT_EQ(cache.storage_version(), storage_before);
  version = cache.devices_version();
  const cycle::Snapshot& next = cache.refresh_snapshot(0);
  ASSERT_TRUE(next.devices.claims->at("ml/shared-gpu").allocation.has_value());
  EXPECT_EQ(next.devices.claims->at("ml/shared-gpu").allocation->results.at(0).device, "gpu-0");

  // Each kind deleted by its key.
  const std::vector<std::pair<Kind, std::string>> gone = {
      {Kind::ResourceClaim, "ml/shared-gpu"},
      {Kind::ResourceClaimTemplate, "ml/one-gpu"},
      {Kind::ResourceSlice, "n1-gpu"},
      {Kind::DeviceClass, "gpu.example.com"}};
  for (const auto& [kind, key] : gone) {
    changes.clear();
    changes.push_back(ObjectChange::remove(kind, key));
    cache.apply_changes(changes);
    EXPECT_GT(cache.devices_version(), version) << kind_name(kind);
    version = cache.devices_version();
  }
  EXPECT_TRUE(cache.device_classes().empty());
  EXPECT_TRUE(cache.resource_slices().empty());
  EXPECT_TRUE(cache.resource_claims().empty());
  EXPECT_TRUE(cache.claim_templates().empty());
  EXPECT_EQ(cache.storage_version(), storage_before);

  // Back again, in any order.
  changes.clear();
  for (auto& s : fresh.resource_slices) changes.push_back(ObjectChange::upsert(std::move(s)));
  for (auto& c : fresh.device_classes) changes.push_back(ObjectChange::upsert(std::move(c)));
  cache.apply_changes(changes);
  EXPECT_GT(cache.devices_version(), version);
  EXPECT_EQ(keys(cache.resource_slices()), std::vector<std::string>{"n1-gpu"});
  EXPECT_EQ(keys(cache.device_classes()), std::vector<std::string>{"gpu.example.com"});
}

TEST(DeviceKindsInTheCache, KindNamesAndKeysBothWays) {
  for (Kind kind :
       {Kind::DeviceClass, Kind::ResourceSlice, Kind::ResourceClaim, Kind::ResourceClaimTemplate})
    EXPECT_EQ(kind_from_name(kind_name(kind)), kind);
  EXPECT_EQ(kind_name(Kind::ResourceClaimTemplate), "ResourceClaimTemplate");
  model::ClusterObjects objects = decoded(kDevices);
  EXPECT_EQ(object_key(Object(objects.claim_templates.at(0))), "ml/one-gpu");
  EXPECT_EQ(object_kind(Object(objects.device_classes.at(0))), Kind::DeviceClass);
  EXPECT_EQ(object_key(Object(objects.resource_slices.at(0))), "n1-gpu");
}

}  // namespace
}  // namespace scoria::cache::device_kinds
