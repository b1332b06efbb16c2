// `scoria serve`'s connections are bounded: idle and slow clients are
// closed after the timeouts without stopping anyone else, framing faults
// get their 4xx, the connection limit answers 503, and a watcher that does
// not read is cut off instead of growing the server's memory.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "serve_process.h"

namespace scoria::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace std::chrono_literals;

std::vector<std::string> args_with(const TempDir& dir, std::vector<std::string> extra) {
  const fs::path conf = dir.path() / "scheduler.toml";
  fs::copy_file(fs::path(SCORIA_SOURCE_DIR) / "config/scheduler.toml", conf,
                fs::copy_options::overwrite_existing);
  std::vector<std::string> args = {"--config", conf.string(), "--schedule-period", "100"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

bool eventually_logged(const ServeProcess& serve, const std::string& text) {
  for (int i = 0; i < 400; ++i) {
    if (serve.log().find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(50ms);
  }
  return false;
}

TEST(Connections, IdleAndSlowClientsDoNotStopHealthzAndAreClosedAfterTheTimeouts) {
  TempDir dir;
  ServeProcess serve(
      dir.path() / "state",
      args_with(dir, {"--header-timeout", "1s", "--body-timeout", "1s", "--idle-timeout", "2s"}));
  std::vector<std::unique_ptr<RawConnection>> idle;
  for (int i = 0; i < 200; ++i) {
    idle.push_back(std::make_unique<RawConnection>(serve.port()));
    ASSERT_TRUE(idle.back()->connected()) << i;
  }
  // Slowloris: a header line now and then, never the end of the headers.
  RawConnection slow(serve.port());
  ASSERT_TRUE(slow.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
  std::atomic<bool> slow_refused{false};
  std::thread trickle([&] {
    for (int i = 0; i < 100 && !slow_refused; ++i) {
      if (!slow.send("X-Slow: " + std::to_string(i) + "\r\n")) break;
      std::this_thread::sleep_for(100ms);
    }
  });
  // A kept-alive client that goes quiet after one request.
  RawConnection kept(serve.port());
  ASSERT_TRUE(kept.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));

  EXPECT_EQ(http(serve.port(), "GET", "/healthz").status, 200u);

  const std::string slow_answer = slow.read_until_closed(20s);
  slow_refused = true;
  trickle.join();
  EXPECT_EQ(status_of(slow_answer), 408u) << slow_answer;
  EXPECT_TRUE(slow.closed());

  const std::string kept_answer = kept.read_until_closed(20s);
  EXPECT_EQ(status_of(kept_answer), 200u) << kept_answer;
  EXPECT_TRUE(kept.closed()) << "the idle timeout did not close a kept-alive connection";

  for (auto& c : idle) {
    const std::string got = c->read_until_closed(20s);
    EXPECT_TRUE(c->closed());
    EXPECT_TRUE(got.empty()) << got;  // sent nothing, told nothing
  }
  EXPECT_EQ(http(serve.port(), "GET", "/healthz").status, 200u);
}

TEST(Connections, FramingFaultsGetTheirStatus) {
  TempDir dir;
  ServeProcess serve(dir.path() / "state", args_with(dir, {"--body-timeout", "1s"}));
  const auto answer = [&](const std::string& bytes) {
    RawConnection c(serve.port());
    c.send(bytes);
    return status_of(c.read_until_closed(20s));
  };
  EXPECT_EQ(answer("NOT HTTP AT ALL\r\n\r\n"), 400u);
  EXPECT_EQ(answer("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n"), 400u);
  EXPECT_EQ(answer("POST /api/v1/objects HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n"
                   "Content-Length: 6\r\n\r\nhello!"),
            400u);
  EXPECT_EQ(answer("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " +
                   std::string(64 << 10, 'a') + "\r\n\r\n"),
            431u);
  // Refused from the Content-Length alone, before any of the body.
  EXPECT_EQ(answer("POST /api/v1/objects HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                   "Content-Length: 1000000000\r\n\r\n"),
            413u);
  // A body that stops coming.
  EXPECT_EQ(answer("POST /api/v1/objects HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                   "Content-Length: 100\r\n\r\nkind: No"),
            408u);
}

TEST(Connections, BeyondTheLimitNewOnesGet503) {
  TempDir dir;
  ServeProcess serve(dir.path() / "state", args_with(dir, {"--max-connections", "4"}));
  std::vector<std::unique_ptr<RawConnection>> held;
  for (int i = 0; i < 4; ++i) held.push_back(std::make_unique<RawConnection>(serve.port()));
  // Each is accepted before the next connects; an answer proves the first.
  ASSERT_TRUE(held[0]->send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  RawConnection extra(serve.port());
  const std::string refused = extra.read_until_closed(20s);
  EXPECT_EQ(status_of(refused), 503u) << refused;
  EXPECT_TRUE(extra.closed());
  held.clear();
  // Room again once they are gone.
  unsigned status = 0;
  for (int i = 0; i < 100 && status != 200; ++i) {
    status = http(serve.port(), "GET", "/healthz").status;
    if (status != 200) std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(status, 200u);
}

// CPU time (user + system) the process has used, in clock ticks.
long cpu_ticks(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::string field;
  long ticks = 0;
  // Fields 14 and 15 (utime, stime); the text after ")" starts at field 3.
  for (int i = 3; i <= 15 && fields >> field; ++i)
    if (i >= 14) ticks += std::atol(field.c_str());
  return ticks;
}

// Out of file descriptors (a tiny limit, and a connection limit set above
// what it leaves): accept backs off instead of spinning, and takes
// connections again once descriptors are free.
TEST(Connections, AcceptBacksOffWhenOutOfDescriptors) {
  TempDir dir;
  ServeProcess serve(dir.path() / "state", args_with(dir, {"--max-connections", "1000"}), [] {
    const rlimit limit{40, 40};
    ::setrlimit(RLIMIT_NOFILE, &limit);
  });
  std::vector<std::unique_ptr<RawConnection>> held;
  for (int i = 0; i < 60; ++i) held.push_back(std::make_unique<RawConnection>(serve.port()));
  ASSERT_TRUE(eventually_logged(serve, "cannot accept connections")) << serve.log();
  // Two seconds out of descriptors: a loop re-arming accept at once would
  // burn both seconds of CPU.
  const long before = cpu_ticks(serve.pid());
  std::this_thread::sleep_for(2s);
  const long used = cpu_ticks(serve.pid()) - before;
  EXPECT_LT(used, ::sysconf(_SC_CLK_TCK) / 2) << "ticks used while out of descriptors";
  held.clear();
  unsigned status = 0;
  for (int i = 0; i < 200 && status != 200; ++i) {
    status = http(serve.port(), "GET", "/healthz").status;
    if (status != 200) std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(status, 200u);
}

// A watcher that never reads: the server queues at most --watch-buffer for
// it, then ends its stream with the version to resume from.
// The same 64 nodes applied again, batch `b` of them: the store stays
// small, the change log (what a watcher is sent) grows by 512 KiB a batch.
unsigned apply_padded_nodes(unsigned short port, int b) {
  const std::string pad(8 << 10, 'x');
  std::string docs;
  for (int i = 0; i < 64; ++i)
    docs += "kind: Node\napiVersion: v1\nmetadata: {name: n" + std::to_string(i) +
            ", annotations: {pad: " + pad + ", batch: \"" + std::to_string(b) +
            "\"}}\nstatus: {allocatable: {cpu: \"1\"}}\n---\n";
  return http(port, "POST", "/api/v1/objects", docs).status;
}

TEST(Connections, AWatcherThatDoesNotReadIsCutOffAndMemoryStaysBounded) {
  TempDir dir;
  ServeProcess serve(dir.path() / "state", args_with(dir, {"--watch-buffer", "1Mi"}));
  const auto batch = [&](int b) { return apply_padded_nodes(serve.port(), b); };
  ASSERT_EQ(batch(0), 200u);
  const long before = serve.rss_kib();
  ASSERT_GT(before, 0);

  RawConnection watcher(serve.port(), 4096);
  ASSERT_TRUE(
      watcher.send("GET /api/v1/watch?resourceVersion=0 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  // About 32 MiB of events, far more than the socket buffers hold.
  for (int b = 1; b <= 64; ++b) ASSERT_EQ(batch(b), 200u) << b;
  const long after = serve.rss_kib();
  EXPECT_LT(after - before, 16 * 1024) << "RSS grew from " << before << " KiB to " << after;
  std::fprintf(stderr, "rss %ld -> %ld KiB\n", before, after);

  // Read now: what was queued, then a last line naming where to resume.
  const std::string got = watcher.read_until_closed(60s);
  EXPECT_TRUE(watcher.closed());
  const size_t last_start = got.rfind("{\"object\"");
  ASSERT_NE(last_start, std::string::npos)
      << got.size() << " bytes: " << got.substr(0, 300) << " ... "
      << got.substr(got.size() > 300 ? got.size() - 300 : 0);
  const size_t end = got.find('\n', last_start);
  const json last = json::parse(got.substr(last_start, end - last_start));
  EXPECT_EQ(last["type"], "ERROR") << last.dump();
  const long long resume = last["resourceVersion"].get<long long>();
  EXPECT_GT(resume, 0);
  // Resuming from it gives the next event.
  const auto lines = watch_until(
      serve.port(), resume, [](const std::string&) { return true; }, 10s);
  ASSERT_FALSE(lines.empty());
  EXPECT_GT(json::parse(lines.front())["resourceVersion"].get<long long>(), resume);
}

// Many watchers that never read: together they hold about --watch-memory
// (each alone would fill its --watch-buffer, 48 MiB in all here), the ones
// cut off are told why, and what they held is given back to the system
// once they are gone.
TEST(Connections, ManyWatchersThatDoNotReadShareOneMemoryBudget) {
  TempDir dir;
  ServeProcess serve(dir.path() / "state",
                     args_with(dir, {"--watch-buffer", "2Mi", "--watch-memory", "4Mi"}));
  const auto batch = [&](int b) { return apply_padded_nodes(serve.port(), b); };
  ASSERT_EQ(batch(0), 200u);
  const long before = serve.rss_kib();
  ASSERT_GT(before, 0);

  std::vector<std::unique_ptr<RawConnection>> watchers;
  for (int i = 0; i < 24; ++i) {
    watchers.push_back(std::make_unique<RawConnection>(serve.port(), 4096));
    ASSERT_TRUE(watchers.back()->send(
        "GET /api/v1/watch?resourceVersion=0 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  }
  // About 32 MiB of events.
  for (int b = 1; b <= 64; ++b) ASSERT_EQ(batch(b), 200u) << b;
  const long during = serve.rss_kib();
  std::fprintf(stderr, "rss %ld -> %ld KiB\n", before, during);
  EXPECT_LT(during - before, 36 * 1024) << "RSS grew from " << before << " KiB to " << during;

  // Each is closed in the end, one way or the other; some say the budget.
  size_t told = 0;
  for (auto& w : watchers) {
    const std::string got = w->read_until_closed(60s);
    EXPECT_TRUE(w->closed());
    told += got.find("--watch-memory") != std::string::npos;
  }
  EXPECT_GT(told, 0u);
  watchers.clear();
  // Given back: within a few seconds of the clients going.
  long after = during;
  for (int i = 0; i < 50 && after - before >= 24 * 1024; ++i) {
    std::this_thread::sleep_for(100ms);
    after = serve.rss_kib();
  }
  std::fprintf(stderr, "rss after the watchers went: %ld KiB\n", after);
  EXPECT_LT(after - before, 24 * 1024);
}

}  // namespace
}  // namespace scoria::test
