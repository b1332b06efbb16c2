// The storage kinds in the cluster cache: loaded whole (reset, replace) and
// changed one by one, each kind in its map by its key, and storage_version()
// moving on with every change of any of them and with nothing else.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cache/cluster_cache.h"
#include "source/object_loader.h"

namespace scoria::cache {
namespace {

constexpr std::string_view kStorage = R"(
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: ebs.csi.aws.com
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: ebs.csi.aws.com}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: n1}
spec: {drivers: [{name: ebs.csi.aws.com, nodeID: i-1}]}
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {namespace: kube-system, name: cap}
storageClassName: fast
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-1}
spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce]}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {namespace: shop, name: data}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
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

TEST(StorageKindsInTheCache, LoadedWholeEachByItsKey) {
  ClusterCache cache;
  cache.reset(decoded(kStorage));
  EXPECT_EQ(keys(cache.storage_classes()), std::vector<std::string>{"fast"});
  EXPECT_EQ(keys(cache.csi_drivers()), std::vector<std::string>{"ebs.csi.aws.com"});
  EXPECT_EQ(keys(cache.csi_nodes()), std::vector<std::string>{"n1"});
  EXPECT_EQ(keys(cache.storage_capacities()), std::vector<std::string>{"kube-system/cap"});
  EXPECT_EQ(keys(cache.persistent_volumes()), std::vector<std::string>{"pv-1"});
  EXPECT_EQ(keys(cache.volume_claims()), std::vector<std::string>{"shop/data"});
  EXPECT_EQ(cache.volume_claims().at("shop/data").request, 1024.0 * 1024 * 1024);

  // A relist replaces them all.
  std::vector<ObjectChange> relist;
  relist.push_back(ObjectChange::upsert(decoded(kStorage).volumes.at(0)));
  cache.replace(std::move(relist));
  EXPECT_EQ(keys(cache.persistent_volumes()), std::vector<std::string>{"pv-1"});
  EXPECT_TRUE(cache.volume_claims().empty());
  EXPECT_TRUE(cache.storage_classes().empty());
}

TEST(StorageKindsInTheCache, EveryChangeOfOneMovesTheStorageVersionAndNothingElseDoes) {
  ClusterCache cache;
  cache.reset(decoded(kStorage));
  uint64_t version = cache.storage_version();

  // A node, a pod: not storage.
  model::ClusterObjects others = decoded(
      "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\n"
      "apiVersion: v1\nkind: Pod\nmetadata: {namespace: shop, name: p}\n");
  std::vector<ObjectChange> changes;
  changes.push_back(ObjectChange::upsert(std::move(others.nodes.at(0))));
  changes.push_back(ObjectChange::upsert(std::move(others.pods.at(0))));
  cache.apply_changes(changes);
  EXPECT_EQ(cache.storage_version(), version);

  // A claim bound: changed in place.
  model::ClusterObjects fresh = decoded(kStorage);
  model::PersistentVolumeClaim bound = fresh.claims.at(0);
  bound.volume_name = "pv-1";
  bound.phase = model::ClaimPhase::Bound;
  changes.clear();
  changes.push_back(ObjectChange::upsert(std::move(bound)));
  EXPECT_EQ(changes[0].kind, Kind::PersistentVolumeClaim);
  EXPECT_EQ(changes[0].key, "shop/data");
  cache.apply_changes(changes);
  EXPECT_GT(cache.storage_version(), version);
  version = cache.storage_version();
  EXPECT_EQ(cache.volume_claims().at("shop/data").volume_name, "pv-1");

  // Each kind deleted by its key.
  const std::vector<std::pair<Kind, std::string>> gone = {
      {Kind::PersistentVolume, "pv-1"},     {Kind::PersistentVolumeClaim, "shop/data"},
      {Kind::StorageClass, "fast"},         {Kind::CSINode, "n1"},
      {Kind::CSIDriver, "ebs.csi.aws.com"}, {Kind::CSIStorageCapacity, "kube-system/cap"}};
  for (const auto& [kind, key] : gone) {
    changes.clear();
    changes.push_back(ObjectChange::remove(kind, key));
    cache.apply_changes(changes);
    EXPECT_GT(cache.storage_version(), version) << kind_name(kind);
    version = cache.storage_version();
  }
  EXPECT_TRUE(cache.persistent_volumes().empty());
  EXPECT_TRUE(cache.volume_claims().empty());
  EXPECT_TRUE(cache.storage_classes().empty());
  EXPECT_TRUE(cache.csi_nodes().empty());
  EXPECT_TRUE(cache.csi_drivers().empty());
  EXPECT_TRUE(cache.storage_capacities().empty());

  // Back again, in any order.
  changes.clear();
  for (auto& c : fresh.storage_capacities) changes.push_back(ObjectChange::upsert(std::move(c)));
  for (auto& v : fresh.volumes) changes.push_back(ObjectChange::upsert(std::move(v)));
  cache.apply_changes(changes);
  EXPECT_GT(cache.storage_version(), version);
  EXPECT_EQ(cache.persistent_volumes().size(), 1u);
  EXPECT_EQ(cache.storage_capacities().size(), 1u);
}

TEST(StorageKindsInTheCache, KindNamesBothWays) {
  for (Kind kind : {Kind::PersistentVolume, Kind::PersistentVolumeClaim, Kind::StorageClass,
                    Kind::CSINode, Kind::CSIDriver, Kind::CSIStorageCapacity})
    EXPECT_EQ(kind_from_name(kind_name(kind)), kind);
  EXPECT_EQ(kind_name(Kind::CSIStorageCapacity), "CSIStorageCapacity");
}

}  // namespace
}  // namespace scoria::cache
