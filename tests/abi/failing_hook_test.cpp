// A predicate that returns SCORIA_ERROR is counted and refuses the node
// (fail closed); it never stops the session or the host.
#include <gtest/gtest.h>

#include "abi/host_api.h"
#include "cache/cluster_cache.h"
#include "config/scheduler_config.h"
#include "plugin/loaded_plugin.h"
#include "plugin/plugin_registry.h"
#include "scheduler/scheduler.h"
#include "source/object_loader.h"

namespace scoria {
namespace {

constexpr const char* kCluster = R"(
apiVersion: v1
kind: Node
metadata: {name: n0}
status: {allocatable: {cpu: "4", memory: 8Gi}}
---
apiVersion: v1
kind: Pod
metadata: {namespace: ns, name: p-0}
spec:
  containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]
)";

TEST(FailingHook, AFailingPredicateIsCountedAndRefusesTheNode) {
  plugin::PluginRegistry registry{scoria::abi::host_api()};
  registry.scan({std::string(SCORIA_ABI_FIXTURES) + "/hook_returns_error", SCORIA_BUILTIN_PLUGINS});
  auto failing = registry.find("hook_returns_error");
  ASSERT_NE(failing, nullptr);

  config::SchedulerConfig conf = config::parse_config(
      "actions = [\"allocate\"]\n[[tiers]]\nplugins = [{ name = \"hook_returns_error\" }, { name = "
      "\"gang\" }]\n",
      "failing.toml");
  scheduler::Scheduler sched(registry, conf, 1);

  model::ClusterObjects objects;
  source::parse_objects(kCluster, "cluster.yaml", objects);
  source::complete_objects(objects);
  cache::ClusterCache cache;
  cache.reset(std::move(objects));

  // The node fits the pod, but the plugin could not check it: the pod waits,
  // and says why.
  cycle::Outcome out = sched.run_once(cache.snapshot());
  EXPECT_TRUE(out.binds.empty());
  EXPECT_GE(failing->ctx->errors.load(), 1u);
  EXPECT_GE(failing->ctx->reports.load(), 1u);
  std::string why;
  for (const auto& st : out.pod_groups) why += st.unschedulable;
  EXPECT_NE(why.find("node(s) were refused because plugin hook_returns_error failed"),
            std::string::npos)
      << why;
}

}  // namespace
}  // namespace scoria
