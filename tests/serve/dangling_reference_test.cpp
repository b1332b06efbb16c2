// `scoria serve` with stored objects that name missing ones: the job that
// names them waits with a reason, every other pod is bound, the service stays
// ready, and the job schedules once the missing object arrives.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "serve_process.h"

namespace scoria::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace std::chrono_literals;

constexpr const char* kStrandedJobCluster = R"(kind: Node
apiVersion: v1
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "20"}}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: stranded, namespace: ml}
spec: {minMember: 1, queue: q9}
---
kind: Pod
apiVersion: v1
metadata:
  name: stranded-0
  namespace: ml
  annotations: {scheduling.k8s.io/group-name: stranded}
spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
---
kind: Pod
apiVersion: v1
metadata: {name: unrelated, namespace: web}
spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
)";

bool bound_on_watch(unsigned short port, const std::string& pod) {
  bool bound = false;
  watch_until(
      port, 0,
      [&](const std::string& line) {
        const json e = json::parse(line);
        bound = bound || (e["type"] == "BOUND" && e["key"] == pod);
        return bound;
      },
      20s);
  return bound;
}

TEST(ServeDangling, PodGroupNamingAMissingQueueDoesNotStopOtherPods) {
  TempDir dir;
  const fs::path conf = dir.path() / "scheduler.toml";
  fs::copy_file(fs::path(SCORIA_SOURCE_DIR) / "config/scheduler.toml", conf);
  ServeProcess serve(dir.path() / "state", {"--config", conf.string(), "--schedule-period", "100"});
  const HttpResult applied = http(serve.port(), "POST", "/api/v1/objects", kStrandedJobCluster);
  ASSERT_EQ(applied.status, 200u) << applied.body;

  EXPECT_TRUE(bound_on_watch(serve.port(), "web/unrelated")) << serve.log();
  EXPECT_EQ(http(serve.port(), "GET", "/readyz").status, 200u) << serve.log();
  const json stranded = json::parse(http(serve.port(), "GET", "/api/v1/pods/ml/stranded-0").body);
  EXPECT_FALSE(stranded["spec"].contains("nodeName"));
  const HttpResult why = http(serve.port(), "GET", "/api/v1/podgroups/ml/stranded/describe");
  ASSERT_EQ(why.status, 200u);
  EXPECT_NE(json::parse(why.body).value("reason", "").find("queue \"q9\" does not exist"),
            std::string::npos)
      << why.body;

  // The queue arrives: the stranded job is scheduled too.
  const HttpResult queue = http(serve.port(), "POST", "/api/v1/objects",
                                "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\n"
                                "metadata: {name: q9}\nspec: {weight: 1}\n");
  ASSERT_EQ(queue.status, 200u) << queue.body;
  EXPECT_TRUE(bound_on_watch(serve.port(), "ml/stranded-0")) << serve.log();
  EXPECT_EQ(http(serve.port(), "GET", "/readyz").status, 200u);
}

}  // namespace
}  // namespace scoria::test
