// Plugins and the service: only what the config names is loaded, plugin
// files anyone else could replace are refused, `scoria plugins` survives a
// file that crashes when loaded, and a hung plugin is caught by the
// session watchdog without keeping SIGTERM from ending the process.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <thread>

#include "serve_process.h"

namespace scoria::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const fs::path kFixtures = SCORIA_SERVE_FIXTURES;

// A directory of its own holding a copy of one fixture, mode 0755 (or as
// told), for permission tests.
fs::path plugin_dir(const fs::path& under, const std::string& fixture) {
  const fs::path dir = under / ("plugins-" + fixture);
  fs::create_directories(dir);
  fs::permissions(dir, fs::perms(0755));
  const fs::path file = dir / ("scoria-" + fixture + ".so");
  fs::copy_file(kFixtures / fixture / ("scoria-" + fixture + ".so"), file);
  fs::permissions(file, fs::perms(0755));
  return dir;
}

TEST(Plugins, ServeLoadsOnlyWhatTheConfigNames) {
  TempDir dir;
  const fs::path crashing = plugin_dir(dir.path(), "crash_on_load");
  ServeProcess serve(dir.path() / "state",
                     {"--config", copy_config(dir.path()).string(), "--plugin-dir",
                      crashing.string(), "--schedule-period", "100"});
  EXPECT_EQ(http(serve.port(), "GET", "/healthz").status, 200u);
  EXPECT_TRUE(eventually([&] { return http(serve.port(), "GET", "/readyz").status == 200; }))
      << serve.log();
}

TEST(Plugins, ListingSurvivesAFileThatCrashesWhenLoaded) {
  TempDir dir;
  const fs::path crashing = plugin_dir(dir.path(), "crash_on_load");
  const Exit listed = run_scoria({"plugins", "--plugin-dir", crashing.string()});
  ASSERT_TRUE(WIFEXITED(listed.status)) << listed.err;
  EXPECT_EQ(WEXITSTATUS(listed.status), 0);
}

TEST(Plugins, ListingNamesTheCrashingFileAndListsTheRest) {
  TempDir dir;
  const fs::path crashing = plugin_dir(dir.path(), "crash_on_load");
  const fs::path out = dir.path() / "out";
  const std::string cmd = std::string(SCORIA_BINARY) + " plugins --plugin-dir " +
                          crashing.string() + " > " + out.string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  std::stringstream text;
  text << std::ifstream(out).rdbuf();
  ASSERT_TRUE(WIFEXITED(status)) << text.str();
  EXPECT_EQ(WEXITSTATUS(status), 0) << text.str();
  EXPECT_NE(text.str().find("scoria-crash_on_load.so: crashed while loading"), std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("allocate"), std::string::npos) << text.str();
}

// A config naming a file that hangs or crashes while loading: serve and
// check-config refuse it, as a trial process found it, and end with the
// status of bad input instead of hanging or dying.
void expect_refused_at_start(const std::string& fixture, const std::string& why) {
  TempDir dir;
  const std::string tier = "\n[[tiers]]\nplugins = [{ name = \"" + fixture + "\" }]\n";
  const fs::path config = copy_config(dir.path(), tier);
  const std::string named = "plugin \"" + fixture + "\" cannot be used: ";
  const std::string plugins = (kFixtures / fixture).string();
  // Both at once: a hanging file holds each for the trial's whole limit.
  std::future<Exit> checking = std::async(std::launch::async, [&] {
    return run_scoria({"check-config", config.string(), "--plugin-dir", plugins});
  });
  const Exit served = run_scoria({"serve", "--config", config.string(), "--plugin-dir", plugins,
                                  "--port", "0", "--state-dir", (dir.path() / "state").string()});
  const Exit checked = checking.get();
  ASSERT_TRUE(WIFEXITED(served.status)) << served.err;
  EXPECT_EQ(WEXITSTATUS(served.status), 2) << served.err;
  EXPECT_NE(served.err.find(named), std::string::npos) << served.err;
  EXPECT_NE(served.err.find(why), std::string::npos) << served.err;
  ASSERT_TRUE(WIFEXITED(checked.status)) << checked.err;
  EXPECT_EQ(WEXITSTATUS(checked.status), 2) << checked.err;
  EXPECT_NE(checked.err.find(named), std::string::npos) << checked.err;
  EXPECT_NE(checked.err.find(why), std::string::npos) << checked.err;
}

TEST(Plugins, AFileThatHangsWhileLoadingIsRefusedAtStart) {
  expect_refused_at_start("hang_on_load",
                          "did not finish loading within 10000ms (in a trial process)");
}

TEST(Plugins, AFileThatCrashesWhileLoadingIsRefusedAtStart) {
  expect_refused_at_start("crash_on_load", "crashed while loading (signal 11");
}

// A reload into a config naming a file that hangs while loading: the
// loop answers while the trial runs, the config is rejected naming the
// file, and scheduling goes on with the last good one.
TEST(Plugins, AReloadIntoAFileThatHangsWhileLoadingKeepsTheLoopAndTheLastConfig) {
  TempDir dir;
  const fs::path config = copy_config(dir.path());
  ServeProcess serve(dir.path() / "state",
                     {"--config", config.string(), "--plugin-dir",
                      (kFixtures / "hang_on_load").string(), "--schedule-period", "100"});
  std::ofstream(config, std::ios::app) << "\n[[tiers]]\nplugins = [{ name = \"hang_on_load\" }]\n";
  // The trial gives up after its limit; until then the loop answers.
  for (int i = 0; i < 20; ++i) {
    ASSERT_EQ(http(serve.port(), "GET", "/healthz").status, 200u) << serve.log();
    ASSERT_EQ(http(serve.port(), "GET", "/api/v1/nodes").status, 200u) << serve.log();
    std::this_thread::sleep_for(100ms);
  }
  // Had the loop waited for the trial, those answers came after it.
  EXPECT_EQ(serve.log().find("config rejected"), std::string::npos) << serve.log();
  ASSERT_TRUE(
      eventually([&] { return serve.log().find("config rejected") != std::string::npos; }, 30s))
      << serve.log();
  EXPECT_NE(serve.log().find("plugin \"hang_on_load\" cannot be used: "), std::string::npos)
      << serve.log();
  EXPECT_NE(serve.log().find("did not finish loading within 10000ms (in a trial process)"),
            std::string::npos)
      << serve.log();
  expect_still_scheduling(serve.port());
}

TEST(Plugins, GroupWritableFilesAndDirectoriesUpTheTreeAreRefused) {
  TempDir dir;
  const std::string tier = "\n[[tiers]]\nplugins = [{ name = \"hang\" }]\n";
  const fs::path config = copy_config(dir.path(), tier);
  const auto serve_with = [&](const fs::path& plugins) {
    return run_scoria({"serve", "--config", config.string(), "--state-dir",
                       (dir.path() / "state").string(), "--port", "0", "--plugin-dir",
                       plugins.string()});
  };
  // The file itself.
  const fs::path direct = plugin_dir(dir.path(), "hang");
  fs::permissions(direct / "scoria-hang.so", fs::perms::group_write, fs::perm_options::add);
  const Exit file = serve_with(direct);
  ASSERT_TRUE(WIFEXITED(file.status)) << file.err;
  EXPECT_EQ(WEXITSTATUS(file.status), 2) << file.err;
  EXPECT_NE(file.err.find("writable by its group"), std::string::npos) << file.err;
  EXPECT_NE(file.err.find("chmod g-w " + (direct / "scoria-hang.so").string()), std::string::npos)
      << file.err;

  // A directory above the plugin directory.
  const fs::path parent = dir.path() / "shared";
  const fs::path nested = plugin_dir(parent, "hang");
  fs::permissions(parent, fs::perms(0775));
  const Exit up = serve_with(nested);
  ASSERT_TRUE(WIFEXITED(up.status)) << up.err;
  EXPECT_EQ(WEXITSTATUS(up.status), 2) << up.err;
  EXPECT_NE(up.err.find(parent.string() + ": writable by its group"), std::string::npos) << up.err;

  // The same with the plugin safe: it loads (and the service starts).
  fs::permissions(parent, fs::perms(0755));
  ServeProcess fine(dir.path() / "state", {"--config", config.string(), "--plugin-dir",
                                           nested.string(), "--schedule-period", "100"});
  EXPECT_EQ(http(fine.port(), "GET", "/healthz").status, 200u);
}

// systemd's notify socket, played by the test.
class NotifySocket {
 public:
  explicit NotifySocket(const fs::path& path) : path_(path) {
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
    ::bind(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  }
  ~NotifySocket() { ::close(fd_); }
  /// The datagrams received so far, concatenated.
  std::string drain() {
    std::string out;
    char buf[4096];
    for (ssize_t n; (n = ::recv(fd_, buf, sizeof buf, 0)) > 0;) {
      out.append(buf, static_cast<size_t>(n));
      out += '\n';
    }
    return out;
  }

 private:
  fs::path path_;
  int fd_ = -1;
};

TEST(Watchdog, AHungPluginIsNamedStopsThePingsAndSigtermStillEnds) {
  TempDir dir;
  const std::string tier = "\n[[tiers]]\nplugins = [{ name = \"hang\" }]\n";
  const fs::path config = copy_config(dir.path(), tier);
  const fs::path hang_file = dir.path() / "hang-now";
  NotifySocket notify(dir.path() / "notify");
  const std::string notify_path = (dir.path() / "notify").string();
  const std::string hang_path = hang_file.string();
  ServeProcess serve(dir.path() / "state",
                     {"--config", config.string(), "--plugin-dir", (kFixtures / "hang").string(),
                      "--schedule-period", "100", "--watchdog-periods", "5"},
                     [notify_path, hang_path] {
                       ::setenv("NOTIFY_SOCKET", notify_path.c_str(), 1);
                       ::setenv("SCORIA_TEST_HANG_FILE", hang_path.c_str(), 1);
                     });
  std::string seen;
  ASSERT_TRUE(eventually([&] {
    seen += notify.drain();
    return seen.find("WATCHDOG=1") != std::string::npos;
  })) << seen;

  std::ofstream(hang_file) << "now\n";
  ASSERT_TRUE(eventually([&] {
    return serve.log().find("plugin hang hook on_session_open has run for") != std::string::npos;
  })) << serve.log();
  EXPECT_EQ(http(serve.port(), "GET", "/healthz").status, 503u);
  // The API still answers while the session thread is stuck.
  EXPECT_EQ(http(serve.port(), "GET", "/api/v1/nodes").status, 200u);
  // No ping after the report: ten periods of silence.
  notify.drain();
  std::this_thread::sleep_for(1s);
  EXPECT_EQ(notify.drain().find("WATCHDOG=1"), std::string::npos);

  serve.signal(SIGTERM);
  const int status = serve.wait_for(20s);
  ASSERT_NE(status, -1) << "SIGTERM did not end a service with a hung session";
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_NE(WEXITSTATUS(status), 0);
  EXPECT_NE(serve.log().find("exiting with a hung session, in plugin hang hook on_session_open"),
            std::string::npos)
      << serve.log();
}

// A predicate that spins is named by its own plugin and hook: the session
// thread is only known to be in allocate's on_execute, which called it.
TEST(Watchdog, APredicateThatSpinsIsNamedByItsOwnHook) {
  TempDir dir;
  const std::string tier = "\n[[tiers]]\nplugins = [{ name = \"spin\" }]\n";
  const fs::path config = copy_config(dir.path(), tier);
  const fs::path hang_file = dir.path() / "hang-now";
  const std::string hang_path = hang_file.string();
  ServeProcess serve(dir.path() / "state",
                     {"--config", config.string(), "--plugin-dir", (kFixtures / "spin").string(),
                      "--schedule-period", "100", "--watchdog-periods", "5"},
                     [hang_path] { ::setenv("SCORIA_TEST_HANG_FILE", hang_path.c_str(), 1); });
  ASSERT_EQ(http(serve.port(), "POST", "/api/v1/objects",
                 "kind: Node\napiVersion: v1\nmetadata: {name: n1}\n"
                 "status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"10\"}}\n")
                .status,
            200u);
  std::ofstream(hang_file) << "now\n";
  ASSERT_EQ(http(serve.port(), "POST", "/api/v1/objects",
                 "kind: Pod\napiVersion: v1\nmetadata: {name: p, namespace: ns}\n"
                 "spec: {schedulerName: volcano, containers: [{name: c, image: x, "
                 "resources: {requests: {cpu: \"1\"}}}]}\n")
                .status,
            200u);
  ASSERT_TRUE(eventually([&] {
    return serve.log().find(
               "plugin spin hook on_predicate (called from plugin "
               "allocate hook on_execute) has run for") != std::string::npos;
  })) << serve.log();
  serve.signal(SIGTERM);
  ASSERT_NE(serve.wait_for(20s), -1) << "SIGTERM did not end a service with a hung session";
}

// simulate has serve's watchdog: a callback that never returns ends it with
// status 70, naming the plugin and hook, instead of hanging forever.
TEST(Watchdog, SimulateStopsAtAHungPluginAndSaysWhere) {
  TempDir dir;
  const fs::path config = copy_config(dir.path(), "\n[[tiers]]\nplugins = [{ name = \"hang\" }]\n");
  const fs::path cluster = dir.path() / "cluster.yaml";
  std::ofstream(cluster) << "kind: Node\napiVersion: v1\nmetadata: {name: n1}\n"
                            "status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"10\"}}\n";
  const fs::path hang_file = dir.path() / "hang-now";
  std::ofstream(hang_file) << "now\n";
  const fs::path out = dir.path() / "simulate.out";
  const std::string cmd = "SCORIA_TEST_HANG_FILE=" + hang_file.string() + " " +
                          std::string(SCORIA_BINARY) + " simulate --watchdog 1 --config " +
                          config.string() + " --plugin-dir " + (kFixtures / "hang").string() + " " +
                          cluster.string() + " > " + out.string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  std::stringstream text;
  text << std::ifstream(out).rdbuf();
  ASSERT_TRUE(WIFEXITED(status)) << text.str();
  EXPECT_EQ(WEXITSTATUS(status), 70) << text.str();
  EXPECT_NE(text.str().find("plugin hang hook on_session_open has run for"), std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("over --watchdog 1s; simulate stops"), std::string::npos) << text.str();
}

// The node a pod is bound to, or "" while it is not.
std::string node_of(unsigned short port, const std::string& pod) {
  const HttpResult r = http(port, "GET", "/api/v1/namespaces/ns/pods/" + pod);
  if (r.status != 200) return "";
  const auto object = nlohmann::json::parse(r.body);
  return object["spec"].value("nodeName", "");
}

// A plugin upgraded under a running service: the new build copied over the
// installed file (in place, as `cp` and package managers that do not
// rename do it) and the config reloaded. The service survives the overwrite,
// the next pod goes where the new build says, and the log names both builds.
TEST(Plugins, AnUpgradeInstalledOverTheLoadedFileTakesEffectOnReload) {
  TempDir dir;
  const fs::path plugins = dir.path() / "plugins";
  fs::create_directories(plugins);
  fs::permissions(plugins, fs::perms(0755));
  const fs::path installed = plugins / "scoria-upgrade.so";
  fs::copy_file(kFixtures / "upgrade_v1" / "scoria-upgrade.so", installed);
  const fs::path config = dir.path() / "scheduler.toml";
  std::ofstream(config) << "actions = [\"enqueue\", \"allocate\"]\n"
                           "[[tiers]]\nplugins = [{ name = \"gang\" }, { name = \"upgrade\" }]\n";
  ServeProcess serve(dir.path() / "state", {"--config", config.string(), "--plugin-dir",
                                            plugins.string(), "--schedule-period", "100"});
  const auto node = [](const std::string& name) {
    return "kind: Node\napiVersion: v1\nmetadata: {name: " + name +
           "}\nstatus: {allocatable: {cpu: \"8\", memory: 8Gi, pods: \"10\"}}\n---\n";
  };
  const auto pod = [](const std::string& name) {
    return "kind: Pod\napiVersion: v1\nmetadata: {name: " + name +
           ", namespace: ns}\nspec: {containers: [{name: c, resources: {requests: {cpu: "
           "\"1\"}}}]}\n";
  };
  ASSERT_EQ(
      http(serve.port(), "POST", "/api/v1/objects", node("n1") + node("n2") + pod("a")).status,
      200u);
  ASSERT_TRUE(eventually([&] { return !node_of(serve.port(), "a").empty(); })) << serve.log();
  EXPECT_EQ(node_of(serve.port(), "a"), "n1");

  fs::copy_file(kFixtures / "upgrade_v2" / "scoria-upgrade.so", installed,
                fs::copy_options::overwrite_existing);
  serve.signal(SIGHUP);
  ASSERT_TRUE(eventually([&] {
    return serve.log().find("plugin upgrade reloaded from a new build") != std::string::npos;
  })) << serve.log();
  EXPECT_NE(serve.log().find("version 1.0.0 (sha256 "), std::string::npos) << serve.log();
  EXPECT_NE(serve.log().find(") -> 2.0.0 (sha256 "), std::string::npos) << serve.log();
  ASSERT_EQ(http(serve.port(), "POST", "/api/v1/objects", pod("b")).status, 200u);
  ASSERT_TRUE(eventually([&] { return !node_of(serve.port(), "b").empty(); })) << serve.log();
  EXPECT_EQ(node_of(serve.port(), "b"), "n2");
  EXPECT_EQ(http(serve.port(), "GET", "/healthz").status, 200u);
}

// A plugin that crashes in a hook takes the process down (plugins share it
// and cannot be isolated), but the last line names the plugin and the hook,
// and the next start on the state directory reports it, counted.
TEST(Crash, APluginsCrashIsNamedAndTheNextStartReportsIt) {
  TempDir dir;
  const std::string tier = "\n[[tiers]]\nplugins = [{ name = \"crash_in_hook\" }]\n";
  const fs::path config = copy_config(dir.path(), tier);
  {
    ServeProcess serve(dir.path() / "state",
                       {"--config", config.string(), "--plugin-dir",
                        (kFixtures / "crash_in_hook").string(), "--schedule-period", "100"});
    const std::string cluster =
        "kind: Node\napiVersion: v1\nmetadata: {name: n1}\n"
        "status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"10\"}}\n---\n"
        "kind: Pod\napiVersion: v1\nmetadata: {name: p, namespace: ns}\n"
        "spec: {containers: [{name: c, resources: {requests: {cpu: \"1\"}}}]}\n";
    http(serve.port(), "POST", "/api/v1/objects", cluster);
    const int status = serve.wait_for(20s);
    ASSERT_NE(status, -1) << "the crashing plugin did not end the process\n" << serve.log();
    ASSERT_TRUE(WIFSIGNALED(status)) << serve.log();
    EXPECT_EQ(WTERMSIG(status), SIGSEGV);
    EXPECT_NE(serve.log().find("fatal signal SIGSEGV in plugin crash_in_hook, hook on_predicate"),
              std::string::npos)
        << serve.log();
  }
  // Restarted, as systemd would, without the plugin.
  ServeProcess again(dir.path() / "state", {"--config", copy_config(dir.path()).string()});
  EXPECT_NE(again.log().find("restarted after a crash (1 so far in this state directory): fatal "
                             "signal SIGSEGV in plugin crash_in_hook, hook on_predicate"),
            std::string::npos)
      << again.log();
  EXPECT_EQ(http(again.port(), "GET", "/healthz").status, 200u);
}

// A plugin calling `how` (exit or _exit) in a hook: serve ends non-zero
// (so systemd's Restart=on-failure restarts it) naming the plugin, the next
// start reports it like a crash, and simulate says so and fails.
void expect_exit_attributed(const std::string& how) {
  TempDir dir;
  const std::string tier = "\n[[tiers]]\nplugins = [{ name = \"exit_in_hook\" }]\n";
  const fs::path config = copy_config(dir.path(), tier);
  const fs::path exit_file = dir.path() / "exit-now";
  const std::string exit_path = exit_file.string();
  const std::string named = "plugin exit_in_hook called " + how + "() in hook on_session_open";
  {
    ServeProcess serve(dir.path() / "state",
                       {"--config", config.string(), "--plugin-dir",
                        (kFixtures / "exit_in_hook").string(), "--schedule-period", "100"},
                       [exit_path, how] {
                         ::setenv("SCORIA_TEST_HANG_FILE", exit_path.c_str(), 1);
                         ::setenv("SCORIA_TEST_EXIT", how.c_str(), 1);
                       });
    std::ofstream(exit_file) << "now\n";
    const int status = serve.wait_for(20s);
    ASSERT_NE(status, -1) << "the plugin's exit did not end the process\n" << serve.log();
    ASSERT_TRUE(WIFEXITED(status)) << serve.log();
    EXPECT_EQ(WEXITSTATUS(status), 70) << serve.log();
    EXPECT_NE(serve.log().find(named), std::string::npos) << serve.log();
  }
  ServeProcess again(dir.path() / "state", {"--config", copy_config(dir.path()).string()});
  EXPECT_NE(
      again.log().find("restarted after a crash (1 so far in this state directory): " + named),
      std::string::npos)
      << again.log();

  const fs::path cluster = dir.path() / "cluster.yaml";
  std::ofstream(cluster) << "kind: Node\napiVersion: v1\nmetadata: {name: n1}\n"
                            "status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"10\"}}\n"
                            "---\nkind: Pod\napiVersion: v1\nmetadata: {name: p, namespace: ns}\n"
                            "spec: {containers: [{name: c, image: x}]}\n";
  const fs::path out = dir.path() / "simulate.out";
  // The restart above wrote the config again without the plugin.
  fs::create_directories(dir.path() / "simulate");
  const fs::path with_plugin = copy_config(dir.path() / "simulate", tier);
  const std::string cmd = "SCORIA_TEST_EXIT=" + how + " " + std::string(SCORIA_BINARY) +
                          " simulate --config " + with_plugin.string() + " --plugin-dir " +
                          (kFixtures / "exit_in_hook").string() + " " + cluster.string() + " > " +
                          out.string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  std::stringstream text;
  text << std::ifstream(out).rdbuf();
  ASSERT_TRUE(WIFEXITED(status)) << text.str();
  EXPECT_EQ(WEXITSTATUS(status), 70) << text.str();
  EXPECT_NE(text.str().find(named), std::string::npos) << text.str();
}

TEST(Crash, APluginThatExitsIsNamedAndTheStatusIsAFailure) { expect_exit_attributed("exit"); }

// _exit skips exit handlers: the host's own _exit, which plugins bind to,
// says who called it.
TEST(Crash, APluginThatCallsUnderscoreExitIsNamedAndTheStatusIsAFailure) {
  expect_exit_attributed("_exit");
}

}  // namespace
}  // namespace scoria::test
