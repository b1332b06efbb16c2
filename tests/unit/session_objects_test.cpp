// Objects plugins read whole (PodDisruptionBudget, ResourceQuota,
// Numatopology): from the
// loader through the cache's changes to a session, and out through the host
// table's session_object_count and session_object_json, by namespace then
// name.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "abi/host_api.h"
#include "cache/cluster_cache.h"
#include "session/session.h"
#include "source/object_loader.h"

namespace scoria::cache {
namespace {

std::string budget(std::string_view ns, std::string_view name) {
  return "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {namespace: " +
         std::string(ns) + ", name: " + std::string(name) + "}\nspec: {minAvailable: 1}\n";
}

std::string quota(std::string_view ns, std::string_view name) {
  return "apiVersion: v1\nkind: ResourceQuota\nmetadata: {namespace: " + std::string(ns) +
         ", name: " + std::string(name) + "}\nspec: {hard: {pods: \"1\"}}\n";
}

/// What the host table hands a plugin of `kind` in a session on `cache`.
std::vector<std::string> through_the_abi(const ClusterCache& cache, std::string_view kind) {
  const cycle::Snapshot snap = cache.snapshot();
  const config::SchedulerConfig config;
  session::Session ssn(snap, config, nullptr);
  const scoria_host_api* api = abi::host_api();
  const auto* handle = reinterpret_cast<const scoria_session*>(&ssn);
  const scoria_str k{kind.data(), kind.size()};
  std::vector<std::string> out;
  const size_t n = api->session_object_count(handle, k);
  for (size_t i = 0; i < n; ++i) {
    const scoria_str json = api->session_object_json(handle, k, i);
    out.emplace_back(json.data, json.len);
  }
  EXPECT_EQ(api->session_object_json(handle, k, n).len, 0u);  // past the end: empty
  return out;
}

/// metadata.namespace/name of each JSON text.
std::vector<std::string> names(const std::vector<std::string>& objects) {
  std::vector<std::string> out;
  for (const std::string& text : objects) {
    const auto meta = nlohmann::json::parse(text).at("metadata");
    out.push_back(meta.value("namespace", "") + "/" + meta.value("name", ""));
  }
  return out;
}

TEST(SessionObjects, ByNamespaceThenNameWhateverTheOrderTheyCameIn) {
  model::ClusterObjects objects;
  source::parse_objects(budget("shop", "web") + "---\n" + budget("a-b", "x") + "---\n" +
                            budget("a", "z") + "---\n" + budget("shop", "api") + "---\n" +
                            quota("ml", "compute"),
                        "objects.yaml", objects);
  source::complete_objects(objects);
  ClusterCache cache;
  cache.reset(std::move(objects));
  // "a" before "a-b": by namespace first, not by the "ns/name" key.
  EXPECT_EQ(names(through_the_abi(cache, "PodDisruptionBudget")),
            (std::vector<std::string>{"a/z", "a-b/x", "shop/api", "shop/web"}));
  EXPECT_EQ(names(through_the_abi(cache, "ResourceQuota")),
            (std::vector<std::string>{"ml/compute"}));
  EXPECT_TRUE(through_the_abi(cache, "ConfigMap").empty());
  EXPECT_TRUE(through_the_abi(cache, "resourcequota").empty());  // kinds are exact
}

TEST(SessionObjects, ChangesReplaceAndDeleteInPlace) {
  ClusterCache cache;
  cache.reset({});
  const auto decoded = [](const std::string& text) {
    model::ClusterObjects o;
    source::parse_objects(text, "change.yaml", o);
    return o;
  };
  std::vector<ObjectChange> changes;
  changes.push_back(ObjectChange::upsert(decoded(budget("shop", "web")).disruption_budgets.at(0)));
  changes.push_back(ObjectChange::upsert(decoded(quota("ml", "compute")).resource_quotas.at(0)));
  cache.apply_changes(changes);
  EXPECT_EQ(changes[0].key, "shop/web");
  EXPECT_EQ(changes[0].kind, Kind::PodDisruptionBudget);
  ASSERT_EQ(through_the_abi(cache, "PodDisruptionBudget").size(), 1u);

  // A modified budget replaces the old one; a deleted quota is gone.
  auto changed = decoded(budget("shop", "web")).disruption_budgets.at(0);
  changed.json = R"({"metadata":{"namespace":"shop","name":"web"},"spec":{"minAvailable":3}})";
  std::vector<ObjectChange> more;
  more.push_back(ObjectChange::upsert(std::move(changed)));
  more.push_back(ObjectChange::remove(Kind::ResourceQuota, "ml/compute"));
  cache.apply_changes(more);
  const auto budgets = through_the_abi(cache, "PodDisruptionBudget");
  ASSERT_EQ(budgets.size(), 1u);
  EXPECT_NE(budgets[0].find("\"minAvailable\":3"), std::string::npos);
  EXPECT_TRUE(through_the_abi(cache, "ResourceQuota").empty());
  EXPECT_EQ(kind_from_name("PodDisruptionBudget"), Kind::PodDisruptionBudget);
  EXPECT_EQ(kind_name(Kind::ResourceQuota), "ResourceQuota");
}

TEST(SessionObjects, NumatopologiesByNodeNameAddedChangedAndDeleted) {
  const auto topology = [](std::string_view name, std::string_view allocatable) {
    return "apiVersion: nodeinfo.volcano.sh/v1alpha1\nkind: Numatopology\nmetadata: {name: " +
           std::string(name) + "}\nspec: {numares: {cpu: {allocatable: \"" +
           std::string(allocatable) + "\"}}}\n";
  };
  model::ClusterObjects objects;
  source::parse_objects(topology("n2", "0-3") + "---\n" + topology("n1", "0-7"), "numa.yaml",
                        objects);
  source::complete_objects(objects);
  ClusterCache cache;
  cache.reset(std::move(objects));
  EXPECT_EQ(names(through_the_abi(cache, "Numatopology")),
            (std::vector<std::string>{"/n1", "/n2"}));

  // The exporter's update replaces the node's topology; a deleted one is gone.
  model::ClusterObjects changed;
  source::parse_objects(topology("n2", "2-3"), "change.yaml", changed);
  std::vector<ObjectChange> changes;
  changes.push_back(ObjectChange::upsert(std::move(changed.numa_topologies.at(0))));
  changes.push_back(ObjectChange::remove(Kind::Numatopology, "n1"));
  cache.apply_changes(changes);
  EXPECT_EQ(changes[0].key, "n2");
  const auto left = through_the_abi(cache, "Numatopology");
  ASSERT_EQ(left.size(), 1u);
  EXPECT_NE(left[0].find("\"2-3\""), std::string::npos);
  EXPECT_EQ(kind_from_name("Numatopology"), Kind::Numatopology);
}

}  // namespace
}  // namespace scoria::cache
