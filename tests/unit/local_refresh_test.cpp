// The local source brings the cache up to the store from the change log:
// what it builds change by change is what a relist of the same store builds;
// an object that does not decode is skipped, never the feed; a log compacted
// past what was applied makes it relist; what a session decided is not read
// back.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cache/cluster_cache.h"
#include "cache_snapshot_text.h"
#include "serve/local_cluster.h"
#include "store/object_store.h"

namespace scoria::serve {
namespace {

namespace fs = std::filesystem;
using testing::snapshot_text;

class LocalRefresh : public ::testing::Test {
 protected:
  LocalRefresh()
      : dir_(fs::temp_directory_path() /
             ("scoria-refresh-test-" + std::to_string(::getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name())),
        store_((fs::remove_all(dir_), fs::create_directories(dir_), dir_ / "store.db")) {}
  ~LocalRefresh() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  /// A relist of the store as it is now, in a cache of its own.
  std::string relisted() {
    cache::ClusterCache fresh;
    LocalCluster other(store_);
    other.refresh(fresh);
    return snapshot_text(fresh);
  }

  fs::path dir_;
  store::ObjectStore store_;
};

std::string pod(const std::string& name, const std::string& extra = "") {
  return "kind: Pod\napiVersion: v1\nmetadata: {name: " + name +
         ", namespace: ns}\nspec: {containers: [{name: c, resources: {requests: {cpu: \"1\"" +
         extra + "}}}]}\n";
}

constexpr const char* kNode =
    "kind: Node\napiVersion: v1\nmetadata: {name: n1}\n"
    "status: {allocatable: {cpu: \"8\", memory: 16Gi, pods: \"20\"}}\n";

TEST_F(LocalRefresh, ChangeByChangeMatchesARelist) {
  LocalCluster cluster(store_);
  cache::ClusterCache cache;
  cluster.apply(std::string(kNode) + "---\n" + pod("a") + "---\n" + pod("b"), "test");
  cluster.refresh(cache);  // the first load is a relist
  EXPECT_EQ(snapshot_text(cache), relisted());

  cluster.apply(pod("c", ", example.com/fpga: \"1\""), "test");
  cluster.apply(
      "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\n"
      "metadata: {name: g, namespace: ns}\nspec: {minMember: 1, queue: q9}\n",
      "test");
  cluster.apply(
      "kind: Pod\napiVersion: v1\nmetadata:\n  name: d\n  namespace: ns\n"
      "  annotations: {scheduling.k8s.io/group-name: g}\nspec: {containers: [{name: c}]}\n",
      "test");
  ASSERT_TRUE(cluster.remove(*kind_by_name("Pod"), "ns/a"));
  ASSERT_TRUE(cluster.set_pod_phase("ns/b", "Running"));
  cluster.refresh(cache);
  const std::string incremental = snapshot_text(cache);
  EXPECT_EQ(incremental, relisted());
  EXPECT_NE(incremental.find("example.com/fpga"), std::string::npos) << incremental;
  EXPECT_NE(incremental.find("queue \"q9\" does not exist"), std::string::npos) << incremental;
  EXPECT_EQ(incremental.find("ns/a "), std::string::npos) << incremental;
}

TEST_F(LocalRefresh, AnObjectThatDoesNotDecodeIsSkippedNotTheFeed) {
  LocalCluster cluster(store_);
  cache::ClusterCache cache;
  cluster.apply(std::string(kNode) + "---\n" + pod("a"), "test");
  cluster.refresh(cache);
  // Written behind the API's back: a pod the decoders refuse.
  const store::ObjectWrite bad{"Pod", "ns/bad",
                               R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"bad",)"
                               R"("namespace":"ns"},"spec":{"containers":"nope"}})"};
  store_.apply({&bad, 1});
  cluster.apply(pod("after"), "test");
  cluster.refresh(cache);
  const std::string text = snapshot_text(cache);
  EXPECT_NE(text.find("ns/after"), std::string::npos) << text;
  EXPECT_EQ(text.find("ns/bad"), std::string::npos) << text;
  EXPECT_EQ(text, relisted());
}

TEST_F(LocalRefresh, ALogCompactedPastTheLastAppliedVersionRelists) {
  LocalCluster cluster(store_);
  cache::ClusterCache cache;
  cluster.apply(std::string(kNode) + "---\n" + pod("a"), "test");
  cluster.refresh(cache);
  for (int i = 0; i < 5; ++i) cluster.apply(pod("p" + std::to_string(i)), "test");
  ASSERT_TRUE(cluster.remove(*kind_by_name("Pod"), "ns/a"));
  store_.compact_events(2);
  cluster.refresh(cache);
  const std::string text = snapshot_text(cache);
  EXPECT_NE(text.find("ns/p0"), std::string::npos) << text;
  EXPECT_EQ(text.find("ns/a "), std::string::npos) << text;
  EXPECT_EQ(text, relisted());
}

TEST_F(LocalRefresh, WhatASessionDecidedIsAppliedInPlace) {
  LocalCluster cluster(store_);
  cache::ClusterCache cache;
  cluster.apply(std::string(kNode) + "---\n" + pod("a") + "---\n" + pod("b"), "test");
  cluster.refresh(cache);
  session::Outcome outcome;
  outcome.binds.push_back({"ns/a", "n1"});
  outcome.evictions.push_back("ns/b");
  session::Outcome::PodGroupStatus status;
  status.key = "ns/a";
  status.phase = model::PodGroupPhase::Running;
  outcome.pod_groups.push_back(status);
  cluster.record(outcome, cache);
  const uint64_t generation = cache.generation();
  cluster.refresh(cache);  // nothing new to read
  EXPECT_EQ(cache.generation(), generation);
  const std::string text = snapshot_text(cache);
  EXPECT_NE(text.find("task ns/a group=a status=16 node=0"), std::string::npos) << text;
  EXPECT_EQ(text.find("ns/b"), std::string::npos) << text;
  EXPECT_EQ(text, relisted());
}

}  // namespace
}  // namespace scoria::serve
