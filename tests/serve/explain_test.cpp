// Explaining a pending pod through the service: GET /api/v1/explain/{ns}/{name}
// waits for the next session, which records every plugin's answer for that
// pod on every node; `scoria ctl explain` shows it as a table.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "serve_process.h"

namespace scoria::test {
namespace {

// n1 is too small for "big"; n2 is big enough but tainted.
constexpr const char* kSmallAndTaintedNodes = R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
spec:
  taints: [{key: dedicated, value: infra, effect: NoSchedule}]
status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: big, namespace: default}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: "4"}}}]
)";

class Explain : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(http(serve.port(), "POST", "/api/v1/objects", kSmallAndTaintedNodes).status, 200u);
  }
  TempDir dir;
  ServeProcess serve{dir.path() / "state",
                     {"--config", std::string(SCORIA_SOURCE_DIR) + "/config/scheduler.toml",
                      "--schedule-period", "100"}};
};

TEST_F(Explain, APendingPodIsExplainedNodeByNode) {
  const HttpResult r = http(serve.port(), "GET", "/api/v1/explain/default/big");
  ASSERT_EQ(r.status, 200u) << r.body;
  const auto x = nlohmann::json::parse(r.body);
  EXPECT_EQ(x["pod"], "default/big");
  EXPECT_EQ(x["action"], "allocate");
  EXPECT_TRUE(x["chosen"].is_null());
  EXPECT_EQ(x["outcome"].get<std::string>().rfind("not placed (Unschedulable): 0/2 nodes are "
                                                  "available",
                                                  0),
            0u)
      << x["outcome"];
  ASSERT_EQ(x["nodes"].size(), 2u);
  EXPECT_EQ(x["nodes"][0]["node"], "n1");
  EXPECT_EQ(x["nodes"][0]["fits"], false);
  EXPECT_EQ(x["nodes"][0]["resources"], "Insufficient cpu");
  EXPECT_EQ(x["nodes"][0]["result"], "refused: Insufficient cpu");
  EXPECT_EQ(x["nodes"][1]["node"], "n2");
  EXPECT_EQ(x["nodes"][1]["fits"], false);
  EXPECT_EQ(x["nodes"][1]["result"], "refused by predicates: node(s) had untolerated taint");
}

TEST_F(Explain, CtlShowsTheTable) {
  const std::string out = (dir.path() / "explain.txt").string();
  const std::string cmd = std::string(SCORIA_BINARY) +
                          " ctl --server http://127.0.0.1:" + std::to_string(serve.port()) +
                          " explain big > " + out + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::string text;
  {
    FILE* f = std::fopen(out.c_str(), "r");
    ASSERT_NE(f, nullptr);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    std::fclose(f);
  }
  EXPECT_NE(text.find("EXPLAIN default/big (job default/podgroup-"), std::string::npos) << text;
  EXPECT_NE(text.find("examined by allocate"), std::string::npos) << text;
  EXPECT_NE(text.find("\nn1    resources: Insufficient cpu"), std::string::npos) << text;
  EXPECT_NE(text.find("refused by predicates: node(s) had untolerated taint\n"), std::string::npos)
      << text;
}

TEST_F(Explain, AnUnknownPodIsNotFound) {
  const HttpResult r = http(serve.port(), "GET", "/api/v1/explain/default/nobody");
  EXPECT_EQ(r.status, 404u) << r.body;
  EXPECT_EQ(nlohmann::json::parse(r.body)["error"], "no pod default/nobody in the cluster");
}

}  // namespace
}  // namespace scoria::test
