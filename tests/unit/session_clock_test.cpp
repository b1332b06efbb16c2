// The session's clock (ABI 1.3): plugins read the snapshot's time through
// session_now_ms, the outcome carries it, and a bind the cache applies
// records it as the pod's PodScheduled time, as the API server's bind does.
// Also the 1.3 views a plugin reads beside it: a node's annotations and a
// queue's whole object.
#include <scoria/scoria.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "abi/host_api.h"
#include "cache/cluster_cache.h"
#include "session/session.h"
#include "session_fixture.h"
#include "source/object_loader.h"

namespace scoria::session {
namespace {

const scoria_host_api& api() { return *abi::host_api(); }
std::string_view text(scoria_str s) { return {s.data, s.len}; }

TEST(SessionClock, PluginsReadTheSnapshotsTimeAndTheOutcomeCarriesIt) {
  test_support::SessionFixture f;
  f.node("n0", 4000, 0);
  f.queue("default");
  f.job("j", 1, 1, 1000);
  f.snap.now_ms = 1767225600123;
  Session ssn(f.snap, f.config, nullptr);
  const auto* handle = reinterpret_cast<const scoria_session*>(&ssn);
  EXPECT_EQ(api().session_now_ms(handle), 1767225600123);
  EXPECT_EQ(api().session_now_ms(nullptr), 0);
  EXPECT_EQ(ssn.close().now_ms, 1767225600123);
}

TEST(SessionClock, ABindTheCacheAppliesIsScheduledAtTheSessionsTime) {
  model::ClusterObjects objects;
  source::parse_objects(R"(apiVersion: v1
kind: Node
metadata:
  name: n0
  annotations: {metrics.example.com/cpu-usage: "0.42"}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: q}
spec:
  weight: 1
  affinity:
    nodeGroupAffinity:
      requiredDuringSchedulingIgnoredDuringExecution: [group-a]
---
apiVersion: v1
kind: Pod
metadata:
  namespace: ns
  name: earlier
  annotations: {scheduling.volcano.sh/queue-name: q}
spec:
  nodeName: n0
  containers:
  - {name: c, image: i, resources: {requests: {cpu: "1"}}}
status:
  phase: Running
  conditions:
  - {type: Initialized, status: "True", lastTransitionTime: "2025-12-31T23:00:00Z"}
  - {type: PodScheduled, status: "True", lastTransitionTime: "2026-01-01T00:00:00Z"}
---
apiVersion: v1
kind: Pod
metadata: {namespace: ns, name: now}
spec:
  containers:
  - {name: c, image: i, resources: {requests: {cpu: "1"}}}
)",
                        "clock.yaml", objects);
  source::complete_objects(objects);
  cache::ClusterCache cache;
  cache.reset(std::move(objects));

  Outcome bound;
  bound.now_ms = 1767225660000;  // 00:01:00
  bound.binds.push_back({"ns/now", "n0"});
  cache.apply(bound);

  Snapshot snap = cache.snapshot();
  snap.now_ms = bound.now_ms;
  const config::SchedulerConfig config;
  Session ssn(snap, config, nullptr);
  std::vector<int64_t> scheduled;
  for (const Task& t : ssn.tasks()) {
    scoria_task_info ti{};
    ti.struct_size = sizeof ti;
    ASSERT_EQ(api().task_info(&t, &ti), SCORIA_OK);
    scheduled.push_back(ti.scheduled_ms);
  }
  std::sort(scheduled.begin(), scheduled.end());
  // earlier: its PodScheduled condition (00:00); now: bound at the session's time.
  EXPECT_EQ(scheduled, (std::vector<int64_t>{1767225600000, 1767225660000}));

  scoria_str value{};
  const scoria_node* node = &ssn.nodes().at(0);
  ASSERT_EQ(api().node_annotation(node, {"metrics.example.com/cpu-usage", 29}, &value), SCORIA_OK);
  EXPECT_EQ(text(value), "0.42");
  EXPECT_EQ(api().node_annotation(node, {"absent", 6}, &value), SCORIA_NOT_FOUND);

  const Queue* q = ssn.find_queue("q");
  ASSERT_NE(q, nullptr);
  EXPECT_NE(text(api().queue_object_json(q)).find("\"group-a\""), std::string_view::npos)
      << text(api().queue_object_json(q));
  const Queue* implicit = ssn.find_queue("default");
  ASSERT_NE(implicit, nullptr);
  EXPECT_EQ(text(api().queue_object_json(implicit)), "");
}

}  // namespace
}  // namespace scoria::session
