// The durable store: objects, versions, the change log, reopening, a crash
// in the middle of a burst of writes, and a schema it does not know.
#include "store/object_store.h"

#include "store/object_reader.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace scoria::store {
namespace {

namespace fs = std::filesystem;

/// A fresh directory for one test's store, removed afterwards.
class StoreDir {
 public:
  StoreDir() {
    dir_ = fs::temp_directory_path() /
           ("scoria-store-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~StoreDir() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path db() const { return dir_ / "store.db"; }

 private:
  fs::path dir_;
};

std::vector<ObjectWrite> one(std::string kind, std::string key, std::string json) {
  return {ObjectWrite{std::move(kind), std::move(key), std::move(json)}};
}

TEST(ObjectStore, AppliesGetsListsAndRemovesWithRisingVersions) {
  StoreDir dir;
  ObjectStore store(dir.db());
  EXPECT_EQ(store.latest_version(), 0);
  const int64_t v1 = store.apply(one("Node", "node-b", R"({"n":"b"})"));
  const int64_t v2 = store.apply(one("Node", "node-a", R"({"n":"a"})"));
  const int64_t v3 = store.apply(one("Node", "node-b", R"({"n":"b2"})"));
  EXPECT_LT(v1, v2);
  EXPECT_LT(v2, v3);

  const auto b = store.get("Node", "node-b");
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->json, R"({"n":"b2"})");
  EXPECT_EQ(b->resource_version, v3);

  const auto nodes = store.list("Node");
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].key, "node-a");
  EXPECT_EQ(nodes[1].key, "node-b");
  EXPECT_TRUE(store.list("Pod").empty());

  const auto removed = store.remove("Node", "node-a");
  ASSERT_TRUE(removed.has_value());
  EXPECT_GT(*removed, v3);
  EXPECT_FALSE(store.get("Node", "node-a").has_value());
  EXPECT_FALSE(store.remove("Node", "node-a").has_value());
  EXPECT_EQ(store.latest_version(), *removed);
}

TEST(ObjectStore, ABatchWritesItsUpsertsAtTheVersionsItPromises) {
  StoreDir dir;
  ObjectStore store(dir.db());
  store.apply(one("Pod", "ns/a", "{}"));
  const int64_t before = store.latest_version();
  Batch batch;
  batch.upserts = {{"Pod", "ns/a", R"({"a":1})"}, {"Pod", "ns/b", R"({"b":1})"}};
  batch.inserts = {{"Event", "ns/e", "{}"}};
  batch.events = {{"BOUND", "Pod", "ns/a", "{}"}};
  EXPECT_EQ(store.commit(batch), before + 4);
  EXPECT_EQ(store.version_of("Pod", "ns/a"), before + 1);
  EXPECT_EQ(store.version_of("Pod", "ns/b"), before + 2);
  EXPECT_EQ(store.version_of("Event", "ns/e"), before + 3);
  EXPECT_FALSE(store.version_of("Pod", "ns/c").has_value());
}

TEST(ObjectStore, AReaderSeesWhatIsCommittedAndNotAnOpenGroup) {
  StoreDir dir;
  ObjectStore store(dir.db());
  store.apply(one("Pod", "ns/a", R"({"a":1})"));
  ObjectReader reader(store.path());
  const std::vector<std::string> keys = {"ns/a", "ns/b"};
  auto got = reader.get("Pod", keys);
  ASSERT_EQ(got.size(), 2u);
  ASSERT_TRUE(got[0].has_value());
  EXPECT_EQ(got[0]->json, R"({"a":1})");
  EXPECT_EQ(got[0]->resource_version, store.version_of("Pod", "ns/a"));
  EXPECT_FALSE(got[1].has_value());
  // A write group not yet flushed is not seen; once flushed, it is.
  store.hold();
  store.apply(one("Pod", "ns/b", R"({"b":1})"));
  EXPECT_FALSE(reader.get("Pod", keys)[1].has_value());
  store.flush();
  got = reader.get("Pod", keys);
  ASSERT_TRUE(got[1].has_value());
  EXPECT_EQ(got[1]->json, R"({"b":1})");
  EXPECT_THROW(ObjectReader(dir.db().parent_path() / "missing.db"), StoreError);
}

TEST(ObjectStore, TheLogIsCheckpointedBesideTheWriterAndNothingIsLost) {
  StoreDir dir;
  const std::string big = "{\"x\":\"" + std::string(100000, 'x') + "\"}";
  {
    ObjectStore store(dir.db());
    // About 3,000 pages of log in 60 commits: past the checkpoint threshold.
    for (int i = 0; i < 60; ++i) store.apply(one("Node", "n" + std::to_string(i), big));
    for (int wait = 0; wait < 500 && store.checkpoints() == 0; ++wait)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_GT(store.checkpoints(), 0u);
    store.apply(one("Node", "last", "{}"));
  }
  ObjectStore again(dir.db());
  EXPECT_EQ(again.list("Node").size(), 61u);
  EXPECT_EQ(again.get("Node", "n59")->json, big);
}

TEST(ObjectStore, LogsEveryChangeInVersionOrder) {
  StoreDir dir;
  ObjectStore store(dir.db());
  store.apply(one("Pod", "a/p", "{}"));
  store.apply(one("Pod", "a/p", R"({"x":1})"));
  const std::vector<EventWrite> decided = {{"BOUND", "Pod", "a/p", R"({"node":"n1"})"}};
  store.append_events(decided);
  store.remove("Pod", "a/p");

  const auto all = store.events_since(0, 100);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].type, "ADDED");
  EXPECT_EQ(all[1].type, "MODIFIED");
  EXPECT_EQ(all[2].type, "BOUND");
  EXPECT_EQ(all[2].json, R"({"node":"n1"})");
  EXPECT_EQ(all[3].type, "DELETED");
  EXPECT_EQ(all[3].json, R"({"x":1})");  // the object as it was
  for (size_t i = 1; i < all.size(); ++i)
    EXPECT_LT(all[i - 1].resource_version, all[i].resource_version);

  const auto tail = store.events_since(all[1].resource_version, 1);
  ASSERT_EQ(tail.size(), 1u);
  EXPECT_EQ(tail[0].type, "BOUND");
}

TEST(ObjectStore, KeepsEverythingAcrossReopen) {
  StoreDir dir;
  int64_t version = 0;
  {
    ObjectStore store(dir.db());
    version = store.apply(one("Queue", "q1", R"({"w":2})"));
  }
  ObjectStore again(dir.db());
  EXPECT_EQ(again.latest_version(), version);
  ASSERT_TRUE(again.get("Queue", "q1").has_value());
  EXPECT_GT(again.apply(one("Queue", "q2", "{}")), version);
}

// A child process writes objects one transaction at a time and reports each
// acknowledged write through a pipe; it is killed with SIGKILL mid-burst.
// Every write it acknowledged must be in the store afterwards.
TEST(ObjectStore, AcknowledgedWritesSurviveKill9) {
  StoreDir dir;
  { ObjectStore create(dir.db()); }
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(fds[0]);
    ObjectStore store(dir.db());
    for (int i = 0;; ++i) {
      store.apply(one("Pod", "burst/p" + std::to_string(i), "{}"));
      if (::write(fds[1], &i, sizeof i) != sizeof i) ::_exit(1);
    }
  }
  ::close(fds[1]);
  int acknowledged = -1;
  int last = -1;
  while (acknowledged < 200 && ::read(fds[0], &last, sizeof last) == sizeof last)
    acknowledged = last;
  ::kill(child, SIGKILL);
  // What the child acknowledged before the kill, to the last message.
  while (::read(fds[0], &last, sizeof last) == sizeof last) acknowledged = last;
  ::close(fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));

  ObjectStore store(dir.db());
  for (int i = 0; i <= acknowledged; ++i)
    ASSERT_TRUE(store.get("Pod", "burst/p" + std::to_string(i)).has_value()) << "lost p" << i;
}

TEST(ObjectStore, RefusesASchemaItDoesNotKnow) {
  StoreDir dir;
  {
    ObjectStore store(dir.db());
    store.apply(one("Node", "n", "{}"));
  }
  {
    SqliteDb raw(dir.db());
    raw.exec("UPDATE meta SET value = 99 WHERE key = 'schema'");
  }
  try {
    ObjectStore store(dir.db());
    FAIL() << "opened a store of schema 99";
  } catch (const StoreError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("schema version 99"), std::string::npos) << what;
    EXPECT_NE(what.find(dir.db().string()), std::string::npos) << what;
  }
}

TEST(ObjectStore, CompactionKeepsTheNewestLogEntries) {
  StoreDir dir;
  ObjectStore store(dir.db());
  for (int i = 0; i < 10; ++i) store.apply(one("Node", "n" + std::to_string(i), "{}"));
  store.compact_events(3);
  const auto left = store.events_since(0, 100);
  ASSERT_EQ(left.size(), 3u);
  EXPECT_EQ(store.oldest_event_version(), left.front().resource_version);
  EXPECT_EQ(left.back().resource_version, store.latest_version());
  EXPECT_EQ(store.list("Node").size(), 10u);  // objects are not touched
}

// The version counter is kept in memory while a transaction is open and
// stored at its commit: two connections to one file still never hand out
// the same version, and a refused write inside a write group (its savepoint
// rolled back) neither loses the group's other writes nor lets the counter
// go back.
TEST(ObjectStore, VersionsRiseAcrossConnectionsGroupsAndRefusedWrites) {
  StoreDir dir;
  ObjectStore a(dir.db());
  ObjectStore b(dir.db());
  std::vector<int64_t> seen;
  for (int i = 0; i < 3; ++i) {
    seen.push_back(a.apply(one("Node", "a" + std::to_string(i), "{}")));
    seen.push_back(b.apply(one("Node", "b" + std::to_string(i), "{}")));
  }
  for (size_t i = 1; i < seen.size(); ++i) EXPECT_LT(seen[i - 1], seen[i]);
  EXPECT_EQ(b.latest_version(), seen.back());

  a.hold();
  Precondition create;
  create.must_not_exist = true;
  const PutResult first = a.put({"Pod", "ns/p1", "{}"}, create);
  ASSERT_EQ(first.status, PutResult::Written);
  EXPECT_GT(first.version, seen.back());
  EXPECT_EQ(a.latest_version(), first.version);  // the group's own view
  EXPECT_EQ(a.put({"Pod", "ns/p1", "{}"}, create).status, PutResult::Exists);
  Precondition stale;
  stale.version = seen[1];  // b0's version, not a0's
  EXPECT_EQ(a.put({"Node", "a0", R"({"x":1})"}, stale).status, PutResult::Conflict);
  const PutResult second = a.put({"Pod", "ns/p2", "{}"}, create);
  EXPECT_GT(second.version, first.version);
  a.flush();

  EXPECT_EQ(b.latest_version(), second.version);
  EXPECT_TRUE(b.get("Pod", "ns/p1").has_value());
  EXPECT_TRUE(b.get("Pod", "ns/p2").has_value());
  EXPECT_EQ(b.get("Node", "a0")->json, "{}");
  EXPECT_GT(b.apply(one("Node", "b9", "{}")), second.version);
  const auto log = b.events_since(0, 100);
  for (size_t i = 1; i < log.size(); ++i)
    EXPECT_LT(log[i - 1].resource_version, log[i].resource_version);
}

}  // namespace
}  // namespace scoria::store
