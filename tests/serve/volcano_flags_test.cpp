// A Volcano scheduler Deployment's command line runs as it is: Volcano's
// flags are Scoria's, accepted saying why, or refused saying what to use.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <string>
#include <vector>

#include "serve_process.h"

namespace scoria::test {
namespace {

const std::string kVolcanoConf =
    std::string(SCORIA_SOURCE_DIR) + "/config/examples/volcano-scheduler.conf.yaml";

// installer/volcano-development.yaml at Volcano HEAD: the vc-scheduler
// container's args, with the config file's path ours.
std::vector<std::string> volcano_args() {
  return {"--logtostderr",
          "--scheduler-conf=" + kVolcanoConf,
          "--enable-healthz=true",
          "--enable-metrics=true",
          "--leader-elect=false",
          "--kube-api-qps=2000",
          "--kube-api-burst=2000",
          "--schedule-period=1s",
          "--node-worker-threads=20",
          "-v=3",
          "2>&1"};
}

TEST(VolcanoFlags, TheDeploymentsCommandLineServes) {
  TempDir dir;
  ServeProcess serve(dir.path() / "state", volcano_args());
  EXPECT_EQ(http(serve.port(), "GET", "/healthz").status, 200u);
  EXPECT_EQ(http(serve.port(), "GET", "/metrics").status, 200u);
  const std::string log = serve.log();
  EXPECT_NE(log.find("--enable-healthz (Volcano's flag): accepted; /healthz and /readyz are "
                     "always served, on the --listen address"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("--node-worker-threads (Volcano's flag): accepted;"), std::string::npos)
      << log;
  // --scheduler-conf is --config (the Volcano YAML was loaded); 1s is 1000ms.
  EXPECT_NE(log.find("config " + kVolcanoConf + ": actions enqueue, allocate, backfill"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("a session every 1000ms"), std::string::npos) << log;
}

TEST(VolcanoFlags, WhatWouldChangeSomethingIsRefusedSayingWhatToUse) {
  TempDir dir;
  const struct {
    std::string flag;
    std::string says;
  } cases[] = {
      {"--healthz-address=:11251", "point the probes at the --listen port"},
      {"--default-queue=batch", "name the queue on the PodGroup (spec.queue)"},
      {"--priority-class=false", "PriorityClasses are always honoured"},
      {"--log-dir=/var/log", "Scoria logs to standard error only"},
      {"--enable-pprof", "profile with perf"},
      {"--schedule-period=1d", "give a duration such as 1s or 500ms"},
  };
  for (const auto& c : cases) {
    const Exit exit = run_scoria({"serve", "--scheduler-conf", kVolcanoConf, "--state-dir",
                                  (dir.path() / "state").string(), "--port", "0", c.flag});
    EXPECT_TRUE(WIFEXITED(exit.status) && WEXITSTATUS(exit.status) == 2) << c.flag << exit.err;
    EXPECT_NE(exit.err.find(c.says), std::string::npos) << c.flag << ": " << exit.err;
    EXPECT_EQ(std::count(exit.err.begin(), exit.err.end(), '\n'), 1) << exit.err;
  }
  // Volcano's defaults of flags it refuses otherwise change nothing.
  for (const char* fine : {"--enable-pprof=false", "--disable-default-scheduler-config=false"}) {
    ServeProcess serve(dir.path() / (std::string("ok") + fine),
                       {"--scheduler-conf", kVolcanoConf, fine});
    EXPECT_EQ(http(serve.port(), "GET", "/healthz").status, 200u) << fine;
  }
}

TEST(VolcanoFlags, FeatureGatesTakeQueueAdmissionAndRefuseWhatScoriaCannotChange) {
  TempDir dir;
  // Volcano's gates at the values Scoria behaves as change nothing; the
  // queue-admission gate takes effect and says so.
  ServeProcess serve(dir.path() / "state",
                     {"--scheduler-conf", kVolcanoConf,
                      "--feature-gates=PodDisruptionBudgetsSupport=true,CSIStorage=false,"
                      "SchedulingGatesQueueAdmission=true"});
  EXPECT_NE(serve.log().find("feature gate SchedulingGatesQueueAdmission: pods annotated"),
            std::string::npos)
      << serve.log();
  const struct {
    std::string gates;
    std::string says;
  } cases[] = {
      {"PriorityClass=false",
       "PriorityClass=false: not supported: Scoria always behaves as "
       "PriorityClass=true"},
      {"NoSuchGate=true", "unrecognized feature gate NoSuchGate"},
      {"SchedulingGatesQueueAdmission", "give each gate as NAME=true or NAME=false"},
  };
  for (const auto& c : cases) {
    const Exit exit =
        run_scoria({"serve", "--scheduler-conf", kVolcanoConf, "--state-dir",
                    (dir.path() / "refused").string(), "--port", "0", "--feature-gates", c.gates});
    EXPECT_TRUE(WIFEXITED(exit.status) && WEXITSTATUS(exit.status) == 2) << c.gates << exit.err;
    EXPECT_NE(exit.err.find(c.says), std::string::npos) << c.gates << ": " << exit.err;
  }
}

TEST(VolcanoFlags, NodeSamplingFlagsOverrideTheConfig) {
  TempDir dir;
  ServeProcess serve(dir.path() / "state",
                     {"--scheduler-conf", kVolcanoConf, "--percentage-nodes-to-find=40",
                      "--minimum-feasible-nodes", "7", "--minimum-percentage-nodes-to-find=3"});
  EXPECT_NE(serve.log().find("nodes to find: 40% and at least 7 nodes"), std::string::npos)
      << serve.log();
  ServeProcess adaptive(dir.path() / "adaptive",
                        {"--scheduler-conf", kVolcanoConf, "--minimum-percentage-nodes-to-find=3"});
  EXPECT_NE(adaptive.log().find("nodes to find: adaptive, at least 3% and at least 100 nodes"),
            std::string::npos)
      << adaptive.log();
  const Exit bad = run_scoria({"serve", "--scheduler-conf", kVolcanoConf, "--state-dir",
                               (dir.path() / "bad").string(), "--percentage-nodes-to-find=140"});
  EXPECT_NE(bad.err.find("--percentage-nodes-to-find 140: give a number from 0 to 100"),
            std::string::npos)
      << bad.err;
}

}  // namespace
}  // namespace scoria::test
