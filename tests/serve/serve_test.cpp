// `scoria serve` end to end: real processes, ephemeral loopback ports,
// temporary state directories.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "serve_process.h"

namespace scoria::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace std::chrono_literals;

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path source(const std::string& relative) { return fs::path(SCORIA_SOURCE_DIR) / relative; }

// Applies the bundled example and sees, on the watch stream, the binds the
// scheduler makes: the three train pods and the two infer pods, never huge.
TEST(Serve, AppliedClusterIsBoundAndBindsAppearOnTheWatch) {
  TempDir dir;
  ServeProcess serve(dir.path() / "state", base_args(copy_config(dir.path())));
  const HttpResult applied = http(serve.port(), "POST", "/api/v1/objects",
                                  read_file(source("config/examples/cluster.yaml")));
  ASSERT_EQ(applied.status, 200u) << applied.body;
  std::set<std::string> bound;
  const auto lines = watch_until(
      serve.port(), 0,
      [&](const std::string& line) {
        const json e = json::parse(line);
        if (e["type"] == "BOUND") bound.insert(e["key"].get<std::string>());
        return bound.size() == 5;
      },
      20s);
  EXPECT_EQ(bound, (std::set<std::string>{"ml/train-0", "ml/train-1", "ml/train-2", "web/infer-0",
                                          "web/infer-1"}));
  // The store says the same, and the gang that cannot fit explains why.
  const json pod = json::parse(http(serve.port(), "GET", "/api/v1/pods/ml/train-0").body);
  EXPECT_TRUE(pod["spec"].contains("nodeName"));
  const json huge = json::parse(http(serve.port(), "GET", "/api/v1/pods/ml/huge-0").body);
  EXPECT_FALSE(huge["spec"].contains("nodeName"));
  const HttpResult why = http(serve.port(), "GET", "/api/v1/podgroups/ml/huge/describe");
  ASSERT_EQ(why.status, 200u);
  EXPECT_NE(json::parse(why.body).value("reason", "").find("Insufficient cpu"), std::string::npos)
      << why.body;
}

// A write starts the next session soon, whatever the period: with a period
// of an hour, a pod created after the first session is bound all the same.
// With --schedule-on-change false, Volcano's fixed cadence: it waits.
TEST(Serve, AWriteStartsTheNextSessionUnlessTheCadenceIsFixed) {
  const std::string cluster =
      "kind: Node\napiVersion: v1\nmetadata: {name: n1}\n"
      "status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"10\"}}\n---\n"
      "kind: Pod\napiVersion: v1\nmetadata: {name: p, namespace: default}\n"
      "spec: {schedulerName: volcano, containers: [{name: c, resources: {requests: {cpu: "
      "\"1\"}}}]}\n";
  for (const bool on_change : {true, false}) {
    TempDir dir;
    ServeProcess serve(dir.path() / "state",
                       {"--config", copy_config(dir.path()).string(), "--schedule-period",
                        "3600000", "--schedule-on-change", on_change ? "true" : "false"});
    // The first session runs at start; wait for it (readiness says so).
    for (int i = 0; i < 200 && http(serve.port(), "GET", "/readyz").status != 200; ++i)
      std::this_thread::sleep_for(20ms);
    ASSERT_EQ(http(serve.port(), "GET", "/readyz").status, 200u);
    ASSERT_EQ(http(serve.port(), "POST", "/api/v1/objects", cluster).status, 200u);
    bool bound = false;
    watch_until(
        serve.port(), 0,
        [&](const std::string& line) {
          bound = bound || json::parse(line)["type"] == "BOUND";
          return bound;
        },
        on_change ? 20s : 2s);
    EXPECT_EQ(bound, on_change) << "--schedule-on-change " << on_change;
  }
}

// A session that binds more pods than one piece of its record holds
// (256) writes them in pieces, each its own transaction between requests:
// every pod is bound in the store and on the watch all the same, and the
// -v 3 line says how many pieces it took.
TEST(Serve, ALargeRecordIsWrittenInPiecesAndLosesNothing) {
  TempDir dir;
  std::vector<std::string> args = base_args(copy_config(dir.path()));
  args.insert(args.end(), {"-v", "3"});
  ServeProcess serve(dir.path() / "state", args);
  std::string cluster =
      "kind: Node\napiVersion: v1\nmetadata: {name: big}\n"
      "status: {allocatable: {cpu: \"1000\", memory: 1Ti, pods: \"1000\"}}\n";
  constexpr int kPods = 600;
  for (int i = 0; i < kPods; ++i)
    cluster += "---\nkind: Pod\napiVersion: v1\nmetadata: {name: p" + std::to_string(i) +
               ", namespace: default}\nspec: {containers: [{name: c, resources: {requests: "
               "{cpu: 100m}}}]}\n";
  ASSERT_EQ(http(serve.port(), "POST", "/api/v1/objects", cluster).status, 200u);
  std::set<std::string> bound;
  watch_until(
      serve.port(), 0,
      [&](const std::string& line) {
        const json e = json::parse(line);
        if (e["type"] == "BOUND") bound.insert(e["key"].get<std::string>());
        return bound.size() == kPods;
      },
      30s);
  EXPECT_EQ(bound.size(), static_cast<size_t>(kPods));
  const json pods = json::parse(http(serve.port(), "GET", "/api/v1/pods").body);
  int on_node = 0;
  for (const json& p : pods["items"]) on_node += p["spec"].value("nodeName", "") == "big";
  EXPECT_EQ(on_node, kPods);
  EXPECT_NE(serve.log().find("600 binds, 0 evictions"), std::string::npos);
  EXPECT_NE(serve.log().find("in 3 pieces"), std::string::npos) << serve.log().substr(0, 3000);
}

// A watch resumes after the version it names: nothing at or before it.
TEST(Serve, WatchResumesFromAVersion) {
  TempDir dir;
  ServeProcess serve(dir.path() / "state", base_args(copy_config(dir.path())));
  const std::string node =
      "kind: Node\napiVersion: v1\nmetadata: {name: n1}\n"
      "status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"10\"}}\n";
  ASSERT_EQ(http(serve.port(), "POST", "/api/v1/objects", node).status, 200u);
  const long long first = settled_version(serve.port());
  const std::string second =
      "kind: Node\napiVersion: v1\nmetadata: {name: n2}\n"
      "status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"10\"}}\n";
  ASSERT_EQ(http(serve.port(), "POST", "/api/v1/objects", second).status, 200u);
  const auto lines = watch_until(
      serve.port(), first, [](const std::string&) { return true; }, 10s);
  ASSERT_FALSE(lines.empty());
  const json e = json::parse(lines.front());
  EXPECT_EQ(e["key"], "n2");
  EXPECT_GT(e["resourceVersion"].get<long long>(), first);
}

// What `scoria ctl apply` posts makes its namespaces, as a kubectl create
// does (NamespaceAutoProvision): the namespace is listed, Active.
TEST(Serve, AppliedObjectsMakeTheirNamespaces) {
  TempDir dir;
  ServeProcess serve(dir.path() / "state", base_args(copy_config(dir.path())));
  ASSERT_EQ(http(serve.port(), "GET", "/api/v1/namespaces/team-x").status, 404u);
  ASSERT_EQ(http(serve.port(), "POST", "/api/v1/objects",
                 "kind: Pod\napiVersion: v1\nmetadata: {name: p, namespace: team-x}\n"
                 "spec: {containers: [{name: c}]}\n---\n"
                 "kind: Queue\napiVersion: scheduling.volcano.sh/v1beta1\nmetadata: {name: q}\n")
                .status,
            200u);
  const HttpResult ns = http(serve.port(), "GET", "/api/v1/namespaces/team-x");
  ASSERT_EQ(ns.status, 200u) << ns.body;
  EXPECT_EQ(json::parse(ns.body)["status"]["phase"], "Active") << ns.body;
  // A cluster-scoped object names no namespace: none is made for it.
  EXPECT_EQ(http(serve.port(), "GET", "/api/v1/namespaces/q").status, 404u);
}

// Bad requests get the right 4xx with a message naming what is wrong, and
// leave the store as it was.
TEST(Serve, MalformedRequestsAreRefusedAndChangeNothing) {
  TempDir dir;
  ServeProcess serve(dir.path() / "state", base_args(copy_config(dir.path())));
  const long long before = settled_version(serve.port());

  const HttpResult quantity = http(serve.port(), "POST", "/api/v1/objects",
                                   "kind: Node\napiVersion: v1\nmetadata: {name: n}\n"
                                   "status: {allocatable: {cpu: lots}}\n");
  EXPECT_EQ(quantity.status, 400u);
  EXPECT_NE(quantity.body.find("status.allocatable.cpu"), std::string::npos) << quantity.body;

  const HttpResult kind = http(serve.port(), "POST", "/api/v1/objects",
                               "kind: Gadget\napiVersion: v1\nmetadata: {name: g}\n");
  EXPECT_EQ(kind.status, 400u);
  EXPECT_NE(kind.body.find("Gadget"), std::string::npos) << kind.body;

  const HttpResult yaml = http(serve.port(), "POST", "/api/v1/objects", "kind: [unclosed\n");
  EXPECT_EQ(yaml.status, 400u) << yaml.body;

  const HttpResult dangling = http(serve.port(), "POST", "/api/v1/objects",
                                   "kind: Pod\napiVersion: v1\nmetadata:\n  name: p\n"
                                   "  annotations: {scheduling.k8s.io/group-name: nowhere}\n"
                                   "spec: {containers: [{name: c}]}\n");
  EXPECT_EQ(dangling.status, 400u);
  EXPECT_NE(dangling.body.find("PodGroup default/nowhere"), std::string::npos) << dangling.body;

  const HttpResult status = http(serve.port(), "PUT", "/api/v1/pods/default/p/status", "{not json");
  EXPECT_EQ(status.status, 400u);

  const HttpResult big = http(serve.port(), "POST", "/api/v1/objects", std::string(9u << 20, '#'));
  EXPECT_EQ(big.status, 413u);

  EXPECT_EQ(http(serve.port(), "GET", "/api/v1/gadgets").status, 404u);
  EXPECT_EQ(version_of(serve.port()), before);
}

// kill -9 in the middle of a burst of applies: after a restart every object
// whose apply was acknowledged is there.
TEST(Serve, AcknowledgedAppliesSurviveKill9) {
  TempDir dir;
  const fs::path config = copy_config(dir.path());
  std::atomic<int> acknowledged{-1};
  std::atomic<bool> writer_done{false};
  {
    ServeProcess serve(dir.path() / "state", base_args(config));
    std::thread writer([&] {
      for (int i = 0; i < 100000; ++i) {
        const std::string node = "kind: Node\napiVersion: v1\nmetadata: {name: n" +
                                 std::to_string(i) +
                                 "}\nstatus: {allocatable: {cpu: \"1\", pods: \"1\"}}\n";
        if (http(serve.port(), "POST", "/api/v1/objects", node).status != 200) break;
        acknowledged = i;
      }
      writer_done = true;
    });
    const auto give_up = std::chrono::steady_clock::now() + 60s;
    while (acknowledged < 50 && !writer_done && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(5ms);
    serve.signal(SIGKILL);
    writer.join();
    EXPECT_TRUE(WIFSIGNALED(serve.wait()));
    ASSERT_GE(acknowledged, 50) << "the burst stopped early:\n" << serve.log();
  }
  ServeProcess again(dir.path() / "state", base_args(config));
  const json nodes = json::parse(http(again.port(), "GET", "/api/v1/nodes").body);
  std::set<std::string> names;
  for (const auto& n : nodes["items"]) names.insert(n["metadata"]["name"].get<std::string>());
  for (int i = 0; i <= acknowledged; ++i)
    ASSERT_TRUE(names.contains("n" + std::to_string(i))) << "lost n" << i << " of " << acknowledged;
}

// A broken config written while serving is refused (log line, metric) and
// scheduling goes on with the last good one.
TEST(Serve, BrokenConfigKeepsTheLastGoodOne) {
  TempDir dir;
  const fs::path config = copy_config(dir.path());
  ServeProcess serve(dir.path() / "state", base_args(config));
  std::ofstream(config) << "actions = [\"enqueue\", \"allocate\"\n[[tiers]]\n";  // cut short
  std::string metrics;
  for (int i = 0; i < 100; ++i) {
    metrics = http(serve.port(), "GET", "/metrics").body;
    if (metrics.find("scoria_config_reloads_total{result=\"failure\"} 1") != std::string::npos)
      break;
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_NE(metrics.find("scoria_config_reloads_total{result=\"failure\"}"), std::string::npos)
      << metrics;
  EXPECT_NE(serve.log().find("config rejected"), std::string::npos) << serve.log();
  expect_still_scheduling(serve.port());
}

// A config whose only fault is a mistyped plugin argument is refused as a
// whole when it is reloaded, with the place and a "did you mean", and the
// service keeps scheduling with the last good one.
TEST(Serve, MistypedArgumentOnReloadKeepsTheLastGoodOne) {
  TempDir dir;
  const fs::path config = copy_config(dir.path());
  ServeProcess serve(dir.path() / "state", base_args(config));
  std::string text;
  {
    std::ifstream in(config);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string good = "{ name = \"nodeorder\" }";
  ASSERT_NE(text.find(good), std::string::npos);
  text.replace(text.find(good), good.size(),
               "{ name = \"nodeorder\", arguments = { \"leastrequsted.weight\" = 2 } }");
  std::ofstream(config) << text;
  ASSERT_TRUE(eventually([&] {
    return serve.log().find(
               "has no argument \"leastrequsted.weight\"; did you mean "
               "\"leastrequested.weight\"?") != std::string::npos;
  })) << serve.log();
  EXPECT_NE(serve.log().find("config rejected"), std::string::npos) << serve.log();
  expect_still_scheduling(serve.port());
}

// /metrics parses as Prometheus text and the session counter advances.
TEST(Serve, MetricsAdvanceWithSessions) {
  TempDir dir;
  ServeProcess serve(dir.path() / "state", base_args(copy_config(dir.path())));
  const auto sessions = [&] {
    const std::string text = http(serve.port(), "GET", "/metrics").body;
    std::istringstream lines(text);
    double value = -1;
    for (std::string line; std::getline(lines, line);) {
      if (line.empty() || line[0] == '#') continue;
      // Every sample line is "name{labels} value".
      const size_t space = line.rfind(' ');
      EXPECT_NE(space, std::string::npos) << line;
      if (line.rfind("scoria_sessions_total ", 0) == 0) value = std::stod(line.substr(space + 1));
    }
    return value;
  };
  const double first = sessions();
  std::this_thread::sleep_for(500ms);
  EXPECT_GT(sessions(), first);
  EXPECT_GE(first, 0);
}

// SIGUSR2 writes a cache dump that parses; SIGTERM then ends the service
// with exit code 0.
TEST(Serve, Sigusr2DumpsAndSigtermExitsCleanly) {
  TempDir dir;
  const fs::path dumps = dir.path() / "dumps";
  fs::create_directories(dumps);
  std::vector<std::string> args = base_args(copy_config(dir.path()));
  args.insert(args.end(), {"--dump-dir", dumps.string()});
  ServeProcess serve(dir.path() / "state", args);
  ASSERT_EQ(http(serve.port(), "POST", "/api/v1/objects",
                 read_file(source("config/examples/cluster.yaml")))
                .status,
            200u);
  std::this_thread::sleep_for(400ms);
  serve.signal(SIGUSR2);
  fs::path dump;
  for (int i = 0; i < 100 && dump.empty(); ++i) {
    for (const auto& e : fs::directory_iterator(dumps)) dump = e.path();
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_FALSE(dump.empty());
  std::this_thread::sleep_for(100ms);
  const json d = json::parse(read_file(dump));
  EXPECT_EQ(d["nodes"].size(), 4u);
  EXPECT_EQ(d["jobs"].size(), 3u);
  EXPECT_TRUE(d["nodes"][0].contains("idle"));
  EXPECT_FALSE(d["queues"].empty());

  serve.signal(SIGTERM);
  const int status = serve.wait();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// Beyond loopback a token is required to start; writes then need it.
TEST(Serve, TokenGuardsWritesBeyondLoopback) {
  TempDir dir;
  const fs::path config = copy_config(dir.path());
  {
    std::vector<std::string> args = base_args(config);
    args.insert(args.end(), {"--listen", "0.0.0.0"});
    EXPECT_THROW(ServeProcess(dir.path() / "refused", args), std::runtime_error);
  }
  const fs::path token = dir.path() / "token";
  std::ofstream(token) << "s3cret\n";
  std::vector<std::string> args = base_args(config);
  args.insert(args.end(), {"--listen", "0.0.0.0", "--token-file", token.string()});
  ServeProcess serve(dir.path() / "state", args);
  const std::string node = "kind: Node\napiVersion: v1\nmetadata: {name: n}\n";
  EXPECT_EQ(http(serve.port(), "POST", "/api/v1/objects", node).status, 401u);
  EXPECT_EQ(http(serve.port(), "POST", "/api/v1/objects", node, "wrong").status, 401u);
  EXPECT_EQ(http(serve.port(), "POST", "/api/v1/objects", node, "s3cret").status, 200u);
  EXPECT_EQ(http(serve.port(), "GET", "/api/v1/nodes").status, 200u);  // reads stay open
  // The Kubernetes paths of the named groups (/apis/...) are writes too.
  const std::string queue = R"({"metadata": {"name": "q1"}})";
  EXPECT_EQ(http(serve.port(), "POST", "/apis/scheduling.volcano.sh/v1beta1/queues", queue).status,
            401u);
  EXPECT_EQ(
      http(serve.port(), "POST", "/apis/scheduling.volcano.sh/v1beta1/queues", queue, "s3cret")
          .status,
      201u);
}

}  // namespace
}  // namespace scoria::test

namespace scoria::test {
namespace {

struct CtlRun {
  int status = -1;
  std::string out;
};

// Runs `scoria ctl --server ... ARGS` and captures standard output.
CtlRun ctl(unsigned short port, const std::string& args) {
  const std::string cmd = std::string(SCORIA_BINARY) +
                          " ctl --server http://127.0.0.1:" + std::to_string(port) + " " + args +
                          " 2>&1";
  CtlRun r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  const int status = ::pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// The ctl commands, shaped like kubectl's output.
TEST(Ctl, AppliesGetsDescribesAndTops) {
  TempDir dir;
  fs::copy_file(fs::path(SCORIA_SOURCE_DIR) / "config/scheduler.toml", dir.path() / "s.toml");
  ServeProcess serve(dir.path() / "state",
                     {"--config", (dir.path() / "s.toml").string(), "--schedule-period", "100"});
  const CtlRun applied = ctl(
      serve.port(), "apply -f " + std::string(SCORIA_SOURCE_DIR) + "/config/examples/cluster.yaml");
  ASSERT_EQ(applied.status, 0) << applied.out;
  EXPECT_NE(applied.out.find("podgroup/huge configured"), std::string::npos) << applied.out;

  // Wait for a session to place the gangs.
  CtlRun groups;
  for (int i = 0; i < 100; ++i) {
    groups = ctl(serve.port(), "get podgroups -n ml");
    if (groups.out.find("train   Running") != std::string::npos) break;
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_NE(groups.out.find("NAMESPACE   NAME    STATUS"), std::string::npos) << groups.out;
  EXPECT_NE(groups.out.find("ml          train   Running   3"), std::string::npos) << groups.out;
  EXPECT_EQ(groups.out.find("infer"), std::string::npos) << groups.out;  // namespace web

  const CtlRun pods = ctl(serve.port(), "get pods -A");
  EXPECT_NE(pods.out.find("web         infer-0"), std::string::npos) << pods.out;

  const CtlRun why = ctl(serve.port(), "describe podgroup huge -n ml");
  EXPECT_EQ(why.status, 0);
  EXPECT_NE(why.out.find("Unschedulable  True"), std::string::npos) << why.out;
  EXPECT_NE(why.out.find("Insufficient cpu"), std::string::npos) << why.out;

  const CtlRun top = ctl(serve.port(), "top queues");
  EXPECT_NE(top.out.find("research   12000m"), std::string::npos) << top.out;

  const CtlRun gone = ctl(serve.port(), "get pod nope -n ml");
  EXPECT_EQ(gone.status, 1);
  EXPECT_NE(gone.out.find("Error from server (404)"), std::string::npos) << gone.out;
}

}  // namespace
}  // namespace scoria::test
