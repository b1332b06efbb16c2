// A plugin answer outside what the ABI defines fails closed: a predicate code
// nobody defined refuses the node, a NaN or infinite score counts 0. Either is
// counted as a plugin error and logged once per session, not once per node.
#include <gtest/gtest.h>

#include <string>

#include "abi/host_api.h"
#include "cache/cluster_cache.h"
#include "config/scheduler_config.h"
#include "plugin/loaded_plugin.h"
#include "plugin/plugin_registry.h"
#include "scheduler/scheduler.h"
#include "source/object_loader.h"

namespace scoria {
namespace {

constexpr const char* kThreeNodesOnePod = R"(
apiVersion: v1
kind: Node
metadata: {name: n0}
status: {allocatable: {cpu: "4", memory: 8Gi}}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {allocatable: {cpu: "4", memory: 8Gi}}
---
apiVersion: v1
kind: Pod
metadata: {namespace: ns, name: p-0}
spec:
  containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]
)";

cache::ClusterCache cluster() {
  model::ClusterObjects objects;
  source::parse_objects(kThreeNodesOnePod, "cluster.yaml", objects);
  source::complete_objects(objects);
  cache::ClusterCache cache;
  cache.reset(std::move(objects));
  return cache;
}

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

struct Sessions {
  cycle::Outcome outcome;
  uint64_t errors = 0;
  std::string log;
};

// Two sessions of `plugin` in a tier of its own behind allocate.
Sessions run_twice(const std::string& plugin) {
  plugin::PluginRegistry registry{scoria::abi::host_api()};
  registry.scan({std::string(SCORIA_ABI_FIXTURES) + "/" + plugin, SCORIA_BUILTIN_PLUGINS});
  auto loaded = registry.find(plugin);
  EXPECT_NE(loaded, nullptr);
  config::SchedulerConfig conf = config::parse_config(
      "actions = [\"allocate\"]\n[[tiers]]\nplugins = [{ name = \"" + plugin + "\" }]\n",
      "undefined.toml");
  scheduler::Scheduler sched(registry, conf, 1);
  cache::ClusterCache cache = cluster();
  Sessions run;
  testing::internal::CaptureStderr();
  run.outcome = sched.run_once(cache.snapshot());
  sched.run_once(cache.snapshot());
  run.log = testing::internal::GetCapturedStderr();
  run.errors = loaded ? loaded->ctx->errors.load() : 0;
  return run;
}

TEST(UndefinedAnswer, PredicateCodeOutsideTheEnumNeverLetsThePodThrough) {
  const Sessions run = run_twice("predicate_undefined_code");
  EXPECT_TRUE(run.outcome.binds.empty());
  EXPECT_TRUE(run.outcome.pipelined.empty());
  // Every node asked is refused and counted ...
  EXPECT_GE(run.errors, 6u);
  // ... but logged once per session: two sessions, two lines.
  EXPECT_EQ(occurrences(run.log, "on_predicate returned 12345"), 2u) << run.log;
  EXPECT_NE(run.log.find("the node is refused"), std::string::npos) << run.log;
}

TEST(UndefinedAnswer, NonFiniteScoresCountZero) {
  const Sessions run = run_twice("score_not_finite");
  ASSERT_EQ(run.outcome.binds.size(), 1u);
  EXPECT_EQ(run.outcome.binds[0].pod, "ns/p-0");
  EXPECT_EQ(run.outcome.binds[0].node, "n1");  // not n0 (NaN) nor n2 (+inf)
  EXPECT_GE(run.errors, 2u);
  // The pod is bound in neither session's snapshot (nothing applies the first
  // outcome), so each session scores it once: one line each.
  EXPECT_EQ(occurrences(run.log, "on_node_order returned the score nan"), 2u) << run.log;
  EXPECT_EQ(occurrences(run.log, "on_node_order returned the score inf"), 0u)
      << "the second non-finite score of the session is counted, not logged again\n"
      << run.log;
}

}  // namespace
}  // namespace scoria
