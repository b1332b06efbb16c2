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
#include "decode/object_decoder.h"
#include "http/server.h"
#include "serve/kube_api.h"
#include "serve/local_cluster.h"
#include "serve/watch_hub.h"
#include "store/object_store.h"

namespace scoria::serve {
namespace {

namespace fs = std::filesystem;
using test_support::snapshot_text;

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

/// A pod and a PodGroup of its name for it: groups named in order, so
/// that the cache's order of arrival is the store's order of keys.
std::string pod(const std::string& name, const std::string& extra = "") {
  return "kind: PodGroup\napiVersion: scheduling.volcano.sh/v1beta1\nmetadata: {name: " + name +
         ", namespace: ns}\nspec: {minMember: 1}\n---\n"
         "kind: Pod\napiVersion: v1\nmetadata: {name: " +
         name + ", namespace: ns, annotations: {scheduling.k8s.io/group-name: " + name +
         "}}\nspec: {containers: [{name: c, resources: {requests: {cpu: \"1\"" + extra + "}}}]}\n";
}

/// A pod without extended resources, as JSON.
std::string pod_json(const std::string& name) {
  return R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":")" + name +
         R"(","namespace":"ns"},"spec":{"containers":[{"name":"c"}]}})";
}

/// A PodGroup status as a session reports it.
cycle::Outcome::PodGroupStatus group_status(const std::string& key, model::PodGroupPhase phase) {
  cycle::Outcome::PodGroupStatus status;
  status.key = key;
  status.phase = phase;
  return status;
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
  EXPECT_EQ(incremental.find("task ns/a "), std::string::npos) << incremental;
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
  EXPECT_EQ(text.find("task ns/a "), std::string::npos) << text;
  EXPECT_EQ(text, relisted());
}

TEST_F(LocalRefresh, WhatASessionDecidedIsAppliedInPlace) {
  LocalCluster cluster(store_);
  cache::ClusterCache cache;
  cluster.apply(std::string(kNode) + "---\n" + pod("a") + "---\n" + pod("b"), "test");
  cluster.refresh(cache);
  cycle::Outcome outcome;
  outcome.binds.push_back({"ns/a", "n1"});
  outcome.evictions.push_back("ns/b");
  outcome.pod_groups.push_back(group_status("ns/a", model::PodGroupPhase::Running));
  cluster.record(outcome, cache);
  const uint64_t generation = cache.generation();
  cluster.refresh(cache);  // nothing new to read
  EXPECT_EQ(cache.generation(), generation);
  const std::string text = snapshot_text(cache);
  EXPECT_NE(text.find("task ns/a group=a status=16 node=0"), std::string::npos) << text;
  EXPECT_EQ(text.find("task ns/b"), std::string::npos) << text;
  EXPECT_EQ(text, relisted());
}

// Writes through the Kubernetes API leave what they decoded to for the
// refresh, which takes it instead of decoding the stored text; an entry
// whose text is not what the log holds (a version handed out again after a
// rolled-back group) is never taken.
TEST_F(LocalRefresh, WhatTheApiDecodedIsTakenOnlyWhenItIsWhatWasStored) {
  LocalCluster cluster(store_);
  cache::ClusterCache cache;
  WatchHub hub(store_);
  KubeApi api(store_, hub, cluster.written());
  const auto post = [&](const std::string& path, const nlohmann::json& body) {
    http::Request request(boost::beast::http::verb::post, path, 11);
    request.set(boost::beast::http::field::content_type, "application/json");
    request.body() = body.dump();
    request.prepare_payload();
    const auto reply = api.handle(request, path, "");
    ASSERT_TRUE(reply.has_value());
    ASSERT_EQ(reply->response.result_int(), 201u) << reply->response.body();
  };
  cluster.refresh(cache);
  post("/api/v1/nodes", nlohmann::json::parse(R"({"kind":"Node","apiVersion":"v1",
      "metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"8","memory":"16Gi","pods":"20"}}})"));
  post("/api/v1/namespaces/ns/pods", nlohmann::json::parse(R"({"kind":"Pod","apiVersion":"v1",
      "metadata":{"name":"a","annotations":{"scheduling.k8s.io/group-name":"a"}},"spec":
      {"containers":[{"name":"c","resources":{"requests":{"cpu":"1","example.com/fpga":"2"}}}]}})"));
  // The node, namespace ns (made for the pod, as NamespaceAutoProvision
  // makes it) and the pod.
  EXPECT_EQ(cluster.written().size(), 3u);
  cluster.refresh(cache);
  EXPECT_EQ(cluster.written().size(), 0u);
  std::string text = snapshot_text(cache);
  EXPECT_NE(text.find("example.com/fpga"), std::string::npos) << text;
  EXPECT_EQ(text, relisted());

  // A stale entry: right kind, key and version, other text and another
  // meaning (no fpga). The refresh must decode the log's text instead.
  post("/api/v1/namespaces/ns/pods", nlohmann::json::parse(R"({"kind":"Pod","apiVersion":"v1",
      "metadata":{"name":"b","annotations":{"scheduling.k8s.io/group-name":"b"}},"spec":
      {"containers":[{"name":"c","resources":{"requests":{"cpu":"1","example.com/fpga":"3"}}}]}})"));
  const auto stored = store_.get("Pod", "ns/b");
  ASSERT_TRUE(stored.has_value());
  std::vector<decode::Decoded> other;
  decode::decode_document(nlohmann::json::parse(pod_json("b")), "test", 1, other);
  cluster.written().remember("Pod", "ns/b", stored->resource_version, "{}", std::move(other));
  cluster.refresh(cache);
  text = snapshot_text(cache);
  EXPECT_NE(text.find("example.com/fpga"), std::string::npos) << text;
  EXPECT_EQ(text, relisted());
}

// A write that lands while a session runs: the session's record then finds
// the cache behind the store. The next refresh reads the write and, of the
// record's own entries, those for objects the write changed too; the
// cache ends as a relist of the store has it (pod a bound and relabelled,
// b bound).
TEST_F(LocalRefresh, AWriteDuringTheSessionAndTheSessionsRecordBothLand) {
  LocalCluster cluster(store_);
  cache::ClusterCache cache;
  cluster.apply(std::string(kNode) + "---\n" + pod("a") + "---\n" + pod("b"), "test");
  cluster.refresh(cache);
  cluster.apply(
      "kind: Pod\napiVersion: v1\nmetadata: {name: a, namespace: ns, labels: {late: \"yes\"}}\n"
      "spec: {containers: [{name: c, resources: {requests: {cpu: \"1\"}}}]}\n",
      "test");
  cycle::Outcome outcome;
  outcome.binds.push_back({"ns/a", "n1"});
  outcome.binds.push_back({"ns/b", "n1"});
  for (const char* group : {"ns/a", "ns/b"})
    outcome.pod_groups.push_back(group_status(group, model::PodGroupPhase::Running));
  cluster.record(outcome, cache);
  cluster.refresh(cache);
  const std::string text = snapshot_text(cache);
  EXPECT_EQ(text, relisted());
  const auto a = store_.get("Pod", "ns/a");
  ASSERT_TRUE(a.has_value());
  EXPECT_NE(a->json.find("late"), std::string::npos) << a->json;
  EXPECT_NE(a->json.find("\"nodeName\":\"n1\""), std::string::npos) << a->json;
  EXPECT_NE(text.find("task ns/a group=a status=16 node=0"), std::string::npos) << text;
  EXPECT_NE(text.find("task ns/b group=b status=16 node=0"), std::string::npos) << text;
}

// After a restart the scheduler knows what it reported from the store: a
// PodGroup status that has not changed is not written again (at 87,000 jobs
// that rewrite was most of the first session), and one that has changed
// (an Unschedulable condition that no longer holds) is.
TEST_F(LocalRefresh, ARestartDoesNotRewriteStatusesThatHaveNotChanged) {
  const auto group = [](const std::string& name, const std::string& status) {
    return "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: " + name +
           ", namespace: ns}\nspec: {minMember: 1}\nstatus: " + status + "\n";
  };
  {
    LocalCluster first(store_);
    first.apply(std::string(kNode) + "---\n" + group("run", "{phase: Running}") + "---\n" +
                    group("stuck",
                          "{phase: Pending, conditions: [{type: Unschedulable, "
                          "status: \"True\", message: \"old news\"}]}"),
                "test");
  }
  LocalCluster restarted(store_);
  cache::ClusterCache cache;
  restarted.refresh(cache);
  const int64_t run_version = store_.get("PodGroup", "ns/run")->resource_version;
  cycle::Outcome outcome;
  outcome.pod_groups.push_back(group_status("ns/run", model::PodGroupPhase::Running));
  outcome.pod_groups.push_back(group_status("ns/stuck", model::PodGroupPhase::Pending));
  // The unchanged status does not even reach the loop: pruned on the
  // session's thread. The changed one stays.
  restarted.prepare(outcome, cache);
  ASSERT_EQ(outcome.pod_groups.size(), 1u);
  EXPECT_EQ(outcome.pod_groups[0].key, "ns/stuck");
  restarted.record(outcome, cache);
  EXPECT_EQ(store_.get("PodGroup", "ns/run")->resource_version, run_version);
  const std::string stuck = store_.get("PodGroup", "ns/stuck")->json;
  EXPECT_EQ(stuck.find("old news"), std::string::npos) << stuck;
}

}  // namespace
}  // namespace scoria::serve
