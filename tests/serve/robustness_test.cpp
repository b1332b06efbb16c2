// `scoria serve` robustness, end to end: one writer per state directory,
// the state directory's mode and errors, names for --listen, watch version
// bounds, browser-shaped requests, readiness on store failures, config
// reloads that name a missing plugin directory, and a mounted ConfigMap's
// update followed as the kubelet makes it.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "serve_process.h"

namespace scoria::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace std::chrono_literals;

std::string node(const std::string& name) {
  return "kind: Node\napiVersion: v1\nmetadata: {name: " + name +
         "}\nstatus: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"10\"}}\n";
}

// A raw request with the headers given, Connection: close; the response.
std::string raw(unsigned short port, const std::string& head, const std::string& body = "") {
  RawConnection c(port);
  c.send(head + "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" +
         body);
  return c.read_until_closed(10s);
}

int lines_in(const std::string& text) {
  int n = 0;
  for (const char c : text) n += c == '\n';
  return n;
}

// --- the state directory -------------------------------------------------------

TEST(StateDir, SecondServeOnTheSameDirectoryExits2NamingTheHolder) {
  TempDir dir;
  const fs::path config = copy_config(dir.path());
  ServeProcess first(dir.path() / "state", base_args(config));
  const Exit second = run_scoria({"serve", "--config", config.string(), "--state-dir",
                                  (dir.path() / "state").string(), "--port", "0"});
  ASSERT_TRUE(WIFEXITED(second.status)) << second.err;
  EXPECT_EQ(WEXITSTATUS(second.status), 2) << second.err;
  EXPECT_EQ(lines_in(second.err), 1) << second.err;
  EXPECT_NE(second.err.find("pid " + std::to_string(first.pid())), std::string::npos) << second.err;
  // The first goes on undisturbed.
  EXPECT_EQ(http(first.port(), "GET", "/healthz").status, 200u);
}

TEST(StateDir, TheLockGoesWithTheProcessEvenAfterKill9) {
  TempDir dir;
  const fs::path config = copy_config(dir.path());
  {
    ServeProcess first(dir.path() / "state", base_args(config));
    first.signal(SIGKILL);
    first.wait();
  }
  ServeProcess again(dir.path() / "state", base_args(config));
  EXPECT_EQ(http(again.port(), "GET", "/healthz").status, 200u);
}

TEST(StateDir, CreatedWithMode0700) {
  TempDir dir;
  const fs::path state = dir.path() / "fresh" / "state";
  {
    std::vector<std::string> args = base_args(copy_config(dir.path()));
    args.insert(args.end(), {"--state-dir", state.string()});
    ServeProcess serve(dir.path() / "log", args, {}, false);
    EXPECT_EQ(http(serve.port(), "GET", "/healthz").status, 200u);
  }
  ASSERT_TRUE(fs::is_directory(state));
  struct stat st {};
  ASSERT_EQ(::stat(state.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

// Every start that fails is one line naming the cause, exit 2, and leaves
// nothing behind: the config and the address are checked before the state
// directory is created.
TEST(Startup, EachFailureIsOneLineExit2AndWritesNothing) {
  TempDir dir;
  const fs::path config = copy_config(dir.path());
  ServeProcess first(dir.path() / "first", base_args(config));
  const fs::path state = dir.path() / "never";
  const std::string busy = "127.0.0.1:" + std::to_string(first.port());
  const std::string missing_config = (dir.path() / "missing.toml").string();
  std::ofstream(dir.path() / "bad.toml") << "actions = [\"allocate\"\n";
  const std::string bad_config = (dir.path() / "bad.toml").string();
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"--config", config.string(), "--listen", busy}, "cannot listen on " + busy},
      {{"--config", missing_config, "--port", "0"}, missing_config + ": cannot open it"},
      {{"--config", bad_config, "--port", "0"}, "bad.toml"},
      {{"--config", config.string(), "--port", "0", "--plugin-dir",
        (dir.path() / "no-plugins").string()},
       "no-plugins does not exist"},
      {{"--config", config.string(), "--listen", "0.0.0.0:0"}, "give a bearer token"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"serve", "--state-dir", state.string()};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const Exit done = run_scoria(args);
    ASSERT_TRUE(WIFEXITED(done.status)) << done.err;
    EXPECT_EQ(WEXITSTATUS(done.status), 2) << done.err;
    EXPECT_EQ(lines_in(done.err), 1) << done.err;
    EXPECT_NE(done.err.find(c.says), std::string::npos) << done.err;
    EXPECT_FALSE(fs::exists(state)) << c.says;
  }
}

// Without --state-dir the store goes where systemd or XDG say, never into
// the current directory; with neither, the start is refused.
TEST(Startup, TheDefaultStateDirIsSystemdsOrXdgsNeverTheCurrentOne) {
  TempDir dir;
  const fs::path config = copy_config(dir.path());
  const fs::path cwd = dir.path() / "cwd";
  fs::create_directories(cwd);
  const auto in_env = [&](const char* name, std::string value) {
    return [&cwd, name, value] {
      ::unsetenv("STATE_DIRECTORY");
      ::unsetenv("XDG_STATE_HOME");
      ::unsetenv("HOME");
      if (name != nullptr) ::setenv(name, value.c_str(), 1);
      if (::chdir(cwd.c_str()) != 0) ::_exit(98);
    };
  };
  const Exit none =
      run_scoria({"serve", "--config", config.string(), "--port", "0"}, in_env(nullptr, ""));
  ASSERT_TRUE(WIFEXITED(none.status)) << none.err;
  EXPECT_EQ(WEXITSTATUS(none.status), 2) << none.err;
  EXPECT_NE(none.err.find("no state directory: give --state-dir"), std::string::npos) << none.err;

  const fs::path xdg = dir.path() / "xdg";
  {
    ServeProcess serve(dir.path() / "log-xdg", base_args(config),
                       in_env("XDG_STATE_HOME", xdg.string()), false);
    EXPECT_EQ(http(serve.port(), "GET", "/healthz").status, 200u);
  }
  EXPECT_TRUE(fs::exists(xdg / "scoria" / "store.db"));
  const fs::path systemd = dir.path() / "systemd";
  {
    ServeProcess serve(dir.path() / "log-systemd", base_args(config),
                       in_env("STATE_DIRECTORY", systemd.string() + ":" + xdg.string()), false);
    EXPECT_EQ(http(serve.port(), "GET", "/healthz").status, 200u);
  }
  EXPECT_TRUE(fs::exists(systemd / "store.db"));
  EXPECT_TRUE(fs::is_empty(cwd));
}

// A read-only mount (root: a private mount namespace with a read-only
// tmpfs over the directory; others: a directory without write permission).
TEST(StateDir, ReadOnlyIsReportedAsSuchNotAsCannotListen) {
  TempDir dir;
  const fs::path state = dir.path() / "state";
  fs::create_directories(state);
  const bool root = ::geteuid() == 0;
  if (!root) fs::permissions(state, fs::perms::owner_read | fs::perms::owner_exec);
  const std::string target = state.string();
  const Exit done = run_scoria(
      {"serve", "--config", copy_config(dir.path()).string(), "--state-dir", target, "--port", "0"},
      [root, target] {
        if (!root) return;
        if (::unshare(CLONE_NEWNS) != 0 ||
            ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
            ::mount("tmpfs", target.c_str(), "tmpfs", MS_RDONLY, "size=64k") != 0)
          ::_exit(99);
      });
  if (WIFEXITED(done.status) && WEXITSTATUS(done.status) == 99)
    GTEST_SKIP() << "cannot make a read-only mount here";
  ASSERT_TRUE(WIFEXITED(done.status)) << done.err;
  EXPECT_NE(WEXITSTATUS(done.status), 0);
  EXPECT_NE(done.err.find("cannot write STATE_DIR " + target), std::string::npos) << done.err;
  EXPECT_EQ(done.err.find("cannot listen"), std::string::npos) << done.err;
  if (root) {
    EXPECT_NE(done.err.find("read-only"), std::string::npos) << done.err;
  }
}

// --- --listen names and watch versions --------------------------------------------

TEST(Listen, LocalhostIsResolved) {
  TempDir dir;
  std::vector<std::string> args = base_args(copy_config(dir.path()));
  args.insert(args.end(), {"--listen", "localhost:0"});
  ServeProcess serve(dir.path() / "state", args);
  EXPECT_EQ(http(serve.port(), "GET", "/healthz").status, 200u) << serve.log();
}

TEST(Listen, AnUnknownNameIsAnErrorNotACrash) {
  TempDir dir;
  const Exit done =
      run_scoria({"serve", "--config", copy_config(dir.path()).string(), "--state-dir",
                  (dir.path() / "state").string(), "--listen", "no-such-host.invalid:0"});
  ASSERT_TRUE(WIFEXITED(done.status)) << done.err;
  EXPECT_EQ(WEXITSTATUS(done.status), 2) << done.err;  // a start that fails
  EXPECT_FALSE(fs::exists(dir.path() / "state"));
  EXPECT_NE(done.err.find("no-such-host.invalid"), std::string::npos) << done.err;
}

TEST(Watch, ResourceVersionIsParsedWithBounds) {
  TempDir dir;
  ServeProcess serve(dir.path() / "state", base_args(copy_config(dir.path())));
  ASSERT_EQ(http(serve.port(), "POST", "/api/v1/objects", node("n1")).status, 200u);
  for (const std::string bad : {"9223372036854775807", "9223372036854775808",
                                "99999999999999999999", "-1", "1e3", "abc", "", "12abc"}) {
    const HttpResult r = http(serve.port(), "GET", "/api/v1/watch?resourceVersion=" + bad);
    EXPECT_EQ(r.status, 400u) << bad << ": " << r.body;
  }
  // A sound version still watches (the queues serve made at start come
  // first).
  const auto lines = watch_until(
      serve.port(), 0, [](const std::string& line) { return json::parse(line)["key"] == "n1"; },
      10s);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(json::parse(lines.back())["key"], "n1");
}

// A watch from a version the store never issued is 504 Timeout with the
// cause ResourceVersionTooLarge, as the API server answers; the largest
// int64 once overflowed the compaction check (found by fuzz/api_fuzz.cpp).
TEST(Watch, AVersionFromTheFutureIsTooLarge) {
  TempDir dir;
  ServeProcess serve(dir.path() / "state", base_args(copy_config(dir.path())));
  ASSERT_EQ(http(serve.port(), "POST", "/api/v1/objects", node("n1")).status, 200u);
  for (const std::string rv : {"9223372036854775807", "1000000"}) {
    const HttpResult r =
        http(serve.port(), "GET", "/api/v1/nodes?watch=true&resourceVersion=" + rv);
    EXPECT_EQ(r.status, 504u) << rv << ": " << r.body;
    const json status = json::parse(r.body, nullptr, false);
    ASSERT_FALSE(status.is_discarded()) << r.body;
    EXPECT_EQ(status.value("reason", ""), "Timeout") << r.body;
    EXPECT_EQ(status["details"]["causes"][0]["reason"], "ResourceVersionTooLarge") << r.body;
  }
}

// A request target is ASCII: a raw byte past it (or a control character)
// is refused with a Status, and %XX that decodes to bytes that are not
// UTF-8 too, on the Kubernetes paths and Scoria's own; the answer is
// always JSON, and the service goes on (found by fuzz/api_fuzz.cpp: the
// 404 message quoted the byte and the answer could not be written).
TEST(Hostile, ATargetThatIsNotUtf8Is400AndTheServiceGoesOn) {
  TempDir dir;
  ServeProcess serve(dir.path() / "state", base_args(copy_config(dir.path())));
  const std::string host = "\r\nHost: 127.0.0.1\r\n";
  for (const std::string target : {"/api/v1/namespaces/ns\xff"
                                   "1/pods",
                                   "/api/v1/nodes/%ff", "/api/v1/nodes/a%c3",
                                   "/api/v1/pods?labelSelector=a%3D%ff", "/api/v1/pods/ns/\xc3"}) {
    const std::string answer = raw(serve.port(), "GET " + target + " HTTP/1.1" + host);
    EXPECT_EQ(status_of(answer), 400u) << target << ": " << answer;
    const size_t body = answer.find("\r\n\r\n");
    ASSERT_NE(body, std::string::npos) << answer;
    const json status = json::parse(answer.substr(body + 4), nullptr, false);
    ASSERT_FALSE(status.is_discarded()) << answer;
    EXPECT_EQ(status.value("reason", ""), "BadRequest") << answer;
  }
  // A control character: the HTTP parser refuses it first.
  EXPECT_EQ(status_of(raw(serve.port(),
                          "GET /api/v1/nodes/a\x01"
                          "b HTTP/1.1" +
                              host)),
            400u);
  EXPECT_EQ(http(serve.port(), "POST", "/api/v1/objects", node("n1")).status, 200u);
  EXPECT_EQ(http(serve.port(), "GET", "/api/v1/nodes/n1").status, 200u);
  EXPECT_EQ(http(serve.port(), "GET", "/healthz").status, 200u);
}

// Two Host headers leave which host a request names ambiguous (a proxy and
// the service may each take another): 400, as Go's net/http answers; one is
// served.
TEST(Hostile, TwoHostHeadersAre400) {
  TempDir dir;
  ServeProcess serve(dir.path() / "state", base_args(copy_config(dir.path())));
  const std::string two = raw(serve.port(),
                              "GET /api/v1/nodes HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                              "Host: evil.example\r\n");
  EXPECT_EQ(status_of(two), 400u) << two;
  EXPECT_NE(two.find("too many Host headers"), std::string::npos) << two;
  EXPECT_EQ(status_of(raw(serve.port(), "GET /api/v1/nodes HTTP/1.1\r\nHost: 127.0.0.1\r\n")),
            200u);
}

// A PATCH or DELETE body nested 60,000 deep was parsed by recursion and
// killed the service (SIGSEGV, no log line); POST and PUT already refused
// nesting past 64. Every body is now read under the request limits: 400
// naming the limit, and the service and the object are as they were.
TEST(Hostile, APatchOrDeleteBodyNestedPastTheLimitIs400AndTheServiceGoesOn) {
  TempDir dir;
  ServeProcess serve(dir.path() / "state", base_args(copy_config(dir.path())));
  ASSERT_EQ(http(serve.port(), "POST", "/api/v1/objects", node("n1")).status, 200u);
  std::string deep_object;
  for (int i = 0; i < 60000; ++i) deep_object += "{\"a\":";
  deep_object += "1" + std::string(60000, '}');
  const std::string deep_list = std::string(100000, '[') + std::string(100000, ']');
  const std::string head = "\r\nHost: 127.0.0.1\r\n";
  for (const auto& [request, body] :
       {std::pair{"PATCH /api/v1/nodes/n1 HTTP/1.1" + head +
                      "Content-Type: application/merge-patch+json\r\n",
                  deep_object},
        std::pair{"PATCH /api/v1/nodes/n1 HTTP/1.1" + head +
                      "Content-Type: application/json-patch+json\r\n",
                  deep_list},
        std::pair{"DELETE /api/v1/nodes/n1 HTTP/1.1" + head + "Content-Type: application/json\r\n",
                  deep_object}}) {
    const std::string answer = raw(serve.port(), request, body);
    EXPECT_EQ(status_of(answer), 400u) << request << answer.substr(0, 300);
    EXPECT_NE(answer.find("nested deeper than 64"), std::string::npos) << answer.substr(0, 300);
  }
  const HttpResult n1 = http(serve.port(), "GET", "/api/v1/nodes/n1");
  EXPECT_EQ(n1.status, 200u);
  EXPECT_EQ(json::parse(n1.body).value("/metadata/labels"_json_pointer, json::object()),
            json::object());
  EXPECT_EQ(http(serve.port(), "GET", "/healthz").status, 200u);
}

// --- browser-shaped requests ---------------------------------------------------------

TEST(Guard, CrossOriginFormPostIsRefusedAndStoresNothing) {
  TempDir dir;
  ServeProcess serve(dir.path() / "state", base_args(copy_config(dir.path())));
  const long long before = settled_version(serve.port(), "/api/v1/nodes");
  const std::string refused =
      raw(serve.port(),
          "POST /api/v1/objects HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(serve.port()) +
              "\r\nOrigin: http://evil.example\r\n"
              "Content-Type: text/plain\r\n",
          node("evil"));
  EXPECT_EQ(status_of(refused), 403u) << refused;
  // Without an Origin a form's content type is still no write's.
  const std::string form = raw(serve.port(),
                               "POST /api/v1/objects HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                               "Content-Type: application/x-www-form-urlencoded\r\n",
                               node("form"));
  EXPECT_EQ(status_of(form), 415u) << form;
  EXPECT_EQ(version_of(serve.port(), "/api/v1/nodes"), before);
  EXPECT_EQ(http(serve.port(), "GET", "/api/v1/nodes/evil").status, 404u);

  // The server's own origin and a write type are fine.
  const std::string own =
      raw(serve.port(),
          "POST /api/v1/objects HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(serve.port()) +
              "\r\nOrigin: http://127.0.0.1:" + std::to_string(serve.port()) +
              "\r\nContent-Type: application/yaml\r\n",
          node("own"));
  EXPECT_EQ(status_of(own), 200u) << own;
}

TEST(Guard, ForeignHostOnLoopbackIsRefused) {
  TempDir dir;
  ServeProcess serve(dir.path() / "state", base_args(copy_config(dir.path())));
  const std::string read =
      raw(serve.port(), "GET /api/v1/nodes HTTP/1.1\r\nHost: evil.example\r\n");
  EXPECT_EQ(status_of(read), 403u) << read;
  const std::string write =
      raw(serve.port(),
          "POST /api/v1/objects HTTP/1.1\r\nHost: evil.example:" + std::to_string(serve.port()) +
              "\r\nContent-Type: application/yaml\r\n",
          node("rebound"));
  EXPECT_EQ(status_of(write), 403u) << write;
  EXPECT_EQ(http(serve.port(), "GET", "/api/v1/nodes/rebound").status, 404u);
  for (const std::string host : {"localhost", "127.0.0.1", "[::1]:8080", "LOCALHOST:1"}) {
    const std::string ok = raw(serve.port(), "GET /healthz HTTP/1.1\r\nHost: " + host + "\r\n");
    EXPECT_EQ(status_of(ok), 200u) << host << ": " << ok;
  }
}

// --- readiness and config reloads --------------------------------------------------------

// A full disk, as a file size limit: once the store cannot grow, sessions
// fail, /readyz says so, and the failure is logged once, with a count.
TEST(Readiness, StoreWriteFailureTurnsReadyzAndIsLoggedThrottled) {
  TempDir dir;
  const fs::path state = dir.path() / "state";
  // Nothing is bound while the store fills (enqueue alone writes nothing for
  // pods without a stored PodGroup); allocate comes with a reload once the
  // store is full, so the session's binds are the writes that fail, however
  // fast sessions run.
  const fs::path config = copy_config(dir.path());
  const auto with_actions = [&](const std::string& actions) {
    std::ifstream in(fs::path(SCORIA_SOURCE_DIR) / "config/scheduler.toml");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t at = text.find("actions = [");
    text.replace(at, text.find('\n', at) - at, "actions = " + actions);
    std::ofstream(config) << text;
  };
  with_actions("[\"enqueue\"]");
  ServeProcess serve(state, base_args(config), [] {
    std::signal(SIGXFSZ, SIG_IGN);  // the write fails with EFBIG instead
    const rlimit limit{rlim_t{1} << 20, rlim_t{1} << 20};
    ::setrlimit(RLIMIT_FSIZE, &limit);
  });
  ASSERT_EQ(http(serve.port(), "POST", "/api/v1/objects", node("n")).status, 200u);
  for (int i = 0; i < 100 && http(serve.port(), "GET", "/readyz").status != 200; ++i)
    std::this_thread::sleep_for(50ms);
  ASSERT_EQ(http(serve.port(), "GET", "/readyz").status, 200u);
  // Pods that fit, each big enough that the store soon hits the limit;
  // the writes that fail are refused.
  const std::string pad(16 << 10, 'x');
  int stored = 0;
  for (int i = 0; i < 400; ++i) {
    const std::string pod = "kind: Pod\napiVersion: v1\nmetadata: {name: p" + std::to_string(i) +
                            ", namespace: a, annotations: {pad: " + pad +
                            "}}\nspec: {containers: [{name: c, resources: {requests: "
                            "{cpu: 1m}}}]}\n";
    const HttpResult r = http(serve.port(), "POST", "/api/v1/objects", pod);
    if (r.status != 200) break;
    ++stored;
  }
  with_actions("[\"enqueue\", \"allocate\"]");
  serve.signal(SIGHUP);
  ASSERT_GT(stored, 0);
  unsigned ready = 200;
  for (int i = 0; i < 200 && ready == 200; ++i) {
    ready = http(serve.port(), "GET", "/readyz").status;
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(ready, 503u) << serve.log();
  // Many failing sessions (100ms period), few lines.
  std::this_thread::sleep_for(1500ms);
  const std::string log = serve.log();
  size_t lines = 0;
  for (size_t at = 0; (at = log.find("session failed", at)) != std::string::npos; ++at) ++lines;
  EXPECT_GE(lines, 1u) << log;
  EXPECT_LE(lines, 1u) << log;
  EXPECT_EQ(http(serve.port(), "GET", "/healthz").status, 200u);
}

TEST(ConfigReload, AMissingPluginDirectoryCountsAsAFailure) {
  TempDir dir;
  const fs::path config = copy_config(dir.path());
  ServeProcess serve(dir.path() / "state", base_args(config));
  std::stringstream original;
  original << std::ifstream(config).rdbuf();
  std::ofstream(config) << "plugin_dirs = [\"" << (dir.path() / "no-such-dir").string() << "\"]\n"
                        << original.str();
  std::string metrics;
  for (int i = 0; i < 100; ++i) {
    metrics = http(serve.port(), "GET", "/metrics").body;
    if (metrics.find("scoria_config_reloads_total{result=\"failure\"} 1") != std::string::npos)
      break;
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_NE(metrics.find("scoria_config_reloads_total{result=\"failure\"} 1"), std::string::npos)
      << metrics;
  EXPECT_EQ(metrics.find("scoria_config_reloads_total{result=\"success\"} 1"), std::string::npos)
      << metrics;
  EXPECT_NE(serve.log().find("no-such-dir does not exist"), std::string::npos) << serve.log();
}

// A ConfigMap mounted as a volume, as the kubelet lays it out and updates
// it: the file is a symlink through `..data` to a timestamped directory, and
// an update writes a new directory and renames a fresh `..data` over the old
// one. The service reloads, and the log says what changed.
TEST(ConfigReload, AConfigMapUpdateIsFollowedAndTheLogSaysWhatChanged) {
  TempDir dir;
  const fs::path mount = dir.path() / "config";
  fs::create_directories(mount / "..2026_11_25_01");
  std::stringstream original;
  original << std::ifstream(fs::path(SCORIA_SOURCE_DIR) / "config/scheduler.toml").rdbuf();
  std::ofstream(mount / "..2026_11_25_01" / "scheduler.toml") << original.str();
  fs::create_directory_symlink("..2026_11_25_01", mount / "..data");
  fs::create_symlink("..data/scheduler.toml", mount / "scheduler.toml");
  ServeProcess serve(dir.path() / "state", base_args(mount / "scheduler.toml"));

  std::string changed = original.str();
  const std::string binpack = "{ name = \"binpack\" }";
  ASSERT_NE(changed.find(binpack), std::string::npos);
  changed.replace(changed.find(binpack), binpack.size(),
                  "{ name = \"binpack\", arguments = { \"binpack.weight\" = 10 } }");
  changed.replace(changed.find("\"backfill\""), 10, "\"preempt\", \"backfill\"");
  fs::create_directories(mount / "..2026_11_25_02");
  std::ofstream(mount / "..2026_11_25_02" / "scheduler.toml") << changed;
  fs::create_directory_symlink("..2026_11_25_02", mount / "..data_tmp");
  fs::rename(mount / "..data_tmp", mount / "..data");
  fs::remove_all(mount / "..2026_11_25_01");

  std::string metrics;
  for (int i = 0; i < 100; ++i) {
    metrics = http(serve.port(), "GET", "/metrics").body;
    if (metrics.find("scoria_config_reloads_total{result=\"success\"} 1") != std::string::npos)
      break;
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_NE(metrics.find("scoria_config_reloads_total{result=\"success\"} 1"), std::string::npos)
      << metrics << serve.log();
  const std::string log = serve.log();
  EXPECT_NE(log.find("actions enqueue, allocate, backfill -> enqueue, allocate, preempt, backfill"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("plugin binpack argument binpack.weight = 10 added"), std::string::npos)
      << log;
}

}  // namespace
}  // namespace scoria::test
