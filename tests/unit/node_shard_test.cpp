// Volcano's NodeShard: decoded (and refused where its CRD refuses it), the
// instance's working set in the cache (its nodesDesired less what other
// shards have in use), the snapshot's view of it, and the status due.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cache/cluster_cache.h"
#include "objects_from_text.h"
#include "source/object_loader.h"

namespace scoria::cache {
namespace {

using test_support::parse;
using test_support::parse_error;

std::string shard(std::string_view name, std::string_view body) {
  return "---\napiVersion: shard.volcano.sh/v1alpha1\nkind: NodeShard\nmetadata: {name: " +
         std::string(name) + "}\n" + std::string(body);
}

std::string nodes(int count) {
  std::string out;
  for (int i = 0; i < count; ++i)
    out += "---\napiVersion: v1\nkind: Node\nmetadata: {name: n" + std::to_string(i) +
           "}\nstatus: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n";
  return out;
}

TEST(NodeShardDecoder, ReadsSpecAndStatusSortedAndUnique) {
  const auto objects = parse(shard("a",
                                   "spec: {nodesDesired: [n2, n1, n2]}\n"
                                   "status: {nodesInUse: [n1], nodesToAdd: [n2], lastUpdateTime: "
                                   "\"2026-01-01T00:00:00Z\"}\n"));
  ASSERT_EQ(objects.node_shards.size(), 1u);
  const model::NodeShard& s = objects.node_shards[0];
  EXPECT_EQ(s.name, "a");
  EXPECT_EQ(s.nodes_desired, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(s.status.nodes_in_use, (std::vector<std::string>{"n1"}));
  EXPECT_EQ(s.status.nodes_to_add, (std::vector<std::string>{"n2"}));
  EXPECT_TRUE(s.status.nodes_to_remove.empty());
}

TEST(NodeShardDecoder, RefusesWhatItsCrdRefuses) {
  EXPECT_NE(parse_error(shard("a", "spec: {}\n"))
                .find("(NodeShard a): field spec.nodesDesired: is missing"),
            std::string::npos);
  EXPECT_NE(parse_error(shard("a", "spec: {nodesDesired: n1}\n")).find("not a list"),
            std::string::npos);
  EXPECT_NE(parse_error(shard("a", "spec: {nodesDesired: [{name: n1}]}\n"))
                .find("field spec.nodesDesired[0]: is a mapping, not a node name"),
            std::string::npos);
  EXPECT_NE(parse_error(shard("a", "spec: {nodesDesired: [N_1]}\n")).find("is not a valid name"),
            std::string::npos);
}

ClusterCache loaded(const std::string& text, model::Sharding sharding) {
  ClusterCache cache;
  cache.set_sharding(std::move(sharding));
  model::ClusterObjects objects;
  source::parse_objects(text, "cluster.yaml", objects);
  cache.reset(std::move(objects));
  return cache;
}

std::vector<std::string> in_shard(ClusterCache& cache) {
  const cycle::Snapshot& s = cache.refresh_snapshot(0);
  std::vector<std::string> out;
  for (size_t i = 0; i < s.nodes.size(); ++i)
    if (s.in_shard.at(i) != 0) out.push_back(s.nodes[i].spec->name);
  return out;
}

const model::Sharding kHardA{model::ShardingMode::Hard, "a"};

TEST(NodeShardInTheCache, WorkingSetLeavesOutWhatOtherShardsUse) {
  ClusterCache cache = loaded(nodes(4) + shard("a", "spec: {nodesDesired: [n0, n1, n2]}\n") +
                                  shard("b",
                                        "spec: {nodesDesired: [n3]}\n"
                                        "status: {nodesInUse: [n2, n3]}\n"),
                              kHardA);
  EXPECT_EQ(cache.shard_working_set(), (std::vector<std::string>{"n0", "n1"}));
  EXPECT_EQ(in_shard(cache), (std::vector<std::string>{"n0", "n1"}));
  EXPECT_EQ(cache.refresh_snapshot(0).sharding, model::ShardingMode::Hard);
  // Its own status is not read: only the others'.
  const auto due = cache.shard_status_due();
  ASSERT_TRUE(due.has_value());
  EXPECT_EQ(due->nodes_in_use, (std::vector<std::string>{"n0", "n1"}));
  EXPECT_EQ(due->nodes_to_add, (std::vector<std::string>{"n2"}));
  EXPECT_TRUE(due->nodes_to_remove.empty());
}

TEST(NodeShardInTheCache, AShardChangeReachesTheNextSnapshot) {
  ClusterCache cache = loaded(nodes(3) + shard("a", "spec: {nodesDesired: [n0]}\n"), kHardA);
  EXPECT_EQ(in_shard(cache), (std::vector<std::string>{"n0"}));
  model::ClusterObjects changed;
  source::parse_objects(shard("a", "spec: {nodesDesired: [n1, n2]}\n"), "x.yaml", changed);
  std::vector<ObjectChange> changes;
  changes.push_back(
      {ObjectChange::Type::Upsert, Kind::NodeShard, "a", std::move(changed.node_shards[0])});
  cache.apply_changes(changes);
  EXPECT_EQ(in_shard(cache), (std::vector<std::string>{"n1", "n2"}));
  // Gone: no node is in the shard (sharding fails closed), nothing is due.
  changes.clear();
  changes.push_back({ObjectChange::Type::Delete, Kind::NodeShard, "a", {}});
  cache.apply_changes(changes);
  EXPECT_TRUE(in_shard(cache).empty());
  EXPECT_EQ(cache.own_shard(), nullptr);
  EXPECT_FALSE(cache.shard_status_due().has_value());
}

TEST(NodeShardInTheCache, NothingIsDueOnceTheStatusShowsIt) {
  ClusterCache cache = loaded(nodes(2) + shard("a",
                                               "spec: {nodesDesired: [n0, n1]}\n"
                                               "status: {nodesInUse: [n1, n0]}\n"),
                              kHardA);
  EXPECT_FALSE(cache.shard_status_due().has_value());
}

TEST(NodeShardInTheCache, WithoutAModeEveryNodeAndNoShardIsRead) {
  ClusterCache cache = loaded(nodes(2) + shard("volcano", "spec: {nodesDesired: [n0]}\n"), {});
  const cycle::Snapshot& s = cache.refresh_snapshot(0);
  EXPECT_EQ(s.sharding, model::ShardingMode::None);
  EXPECT_TRUE(s.in_shard.empty());
  EXPECT_EQ(cache.own_shard(), nullptr);
  EXPECT_FALSE(cache.shard_status_due().has_value());
}

}  // namespace
}  // namespace scoria::cache
