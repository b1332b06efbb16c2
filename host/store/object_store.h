// The durable local store behind `scoria serve`'s local source: the cluster's
// objects (nodes, pods, podgroups, queues, priority classes, as JSON) and a
// log of every change with a resource version, in one SQLite file.
//
// Every call is one transaction, committed and its write-ahead log synced to
// disk before it returns, unless a write group is held (hold/flush): then
// the calls join one transaction that flush() commits, one sync for them all
// (group commit), and the sync may be left to a sync() on another thread.
// Either way a write the API acknowledged survives a crash of the process or
// of the machine, since it acknowledges after the sync.
// The resource version is one counter over the whole store (as etcd's
// revision): each object carries the version of its last change, each log
// entry its own, and a watch resumes after a version.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "store/checkpointer.h"
#include "store/sqlite_db.h"

namespace scoria::store {

/// An object to create or replace. `key` is "namespace/name" for namespaced
/// kinds, the name otherwise.
struct ObjectWrite {
  std::string kind;
  std::string key;
  std::string json;
};

struct StoredObject {
  std::string kind;
  std::string key;
  int64_t resource_version = 0;
  std::string json;
};

/// A log entry: ADDED, MODIFIED and DELETED for objects, and what the
/// scheduler decided (BOUND, EVICTED, STATUS) with its details as JSON.
struct EventWrite {
  std::string type;
  std::string kind;
  std::string key;
  std::string json;
};

struct Event {
  int64_t resource_version = 0;
  std::string type;
  std::string kind;
  std::string key;
  std::string json;
};

/// Several changes made as one transaction (a session's decisions).
struct Batch {
  std::vector<ObjectWrite> upserts;  // logged ADDED/MODIFIED; most exist already
  std::vector<ObjectWrite> inserts;  // the same, for objects most likely new (Events)
  std::vector<std::pair<std::string, std::string>> deletes;  // kind, key; logged DELETED
  std::vector<EventWrite> events;                            // logged as given
};

/// When a conditional write may go ahead (the API's create, update and
/// delete): the object must or must not exist, and, when `version` is set,
/// must still be at that version (optimistic concurrency).
struct Precondition {
  bool must_exist = false;
  bool must_not_exist = false;
  std::optional<int64_t> version;
};

/// What a conditional write did: written at `version`, or why not.
struct PutResult {
  enum Status { Written, Exists, Missing, Conflict } status = Written;
  int64_t version = 0;
};

class ObjectStore {
 public:
  /// Opens or creates the store; StoreError if it cannot, or if the file
  /// holds a schema this version does not know.
  explicit ObjectStore(const std::filesystem::path& path);
  ~ObjectStore();
  ObjectStore(const ObjectStore&) = delete;
  ObjectStore& operator=(const ObjectStore&) = delete;

  /// Creates or replaces objects, logging ADDED or MODIFIED for each.
  /// Returns the resource version of the last one.
  int64_t apply(std::span<const ObjectWrite> objects);
  /// Deletes an object, logging DELETED; the version, or nullopt if absent.
  std::optional<int64_t> remove(std::string_view kind, std::string_view key);
  std::optional<StoredObject> get(std::string_view kind, std::string_view key);
  /// The version of an object, without its text; nullopt if absent.
  std::optional<int64_t> version_of(std::string_view kind, std::string_view key);
  /// Creates or replaces `object` if `pre` holds, in one transaction.
  PutResult put(const ObjectWrite& object, const Precondition& pre);
  /// Deletes if the object exists and, when `version` is set, is at it.
  PutResult remove_if(std::string_view kind, std::string_view key, std::optional<int64_t> version);
  /// Objects of a kind, by key.
  std::vector<StoredObject> list(std::string_view kind);

  /// Makes every change of `batch` in one transaction; returns the newest
  /// version. Versions are handed out in order, one per upsert first: the
  /// i-th of `batch.upserts` is written at the version before the commit
  /// plus i + 1.
  int64_t commit(const Batch& batch);
  /// Logs scheduler decisions; returns the version of the last one.
  int64_t append_events(std::span<const EventWrite> events);
  /// Log entries after `after`, oldest first, at most `limit`.
  std::vector<Event> events_since(int64_t after, size_t limit);
  /// The newest resource version (0 for an empty store).
  int64_t latest_version();
  /// The oldest version still in the log (0 if the log is empty); a watch
  /// asking to resume before it must relist, as Kubernetes' 410 Gone says.
  int64_t oldest_event_version();
  /// Drops all but the newest `keep` log entries.
  void compact_events(size_t keep);

  /// Opens a write group, if none is open: every call after it joins one
  /// transaction, seen at once by this store's own reads and durable only
  /// once flush() has committed and synced it. Whoever acknowledges a write
  /// made in a group does so after that.
  void hold();
  /// When flush() syncs what it commits: before it returns, or in a later
  /// sync() (the API's group commit syncs on a thread of its own, so that
  /// the loop goes on with the next requests meanwhile).
  enum class Sync { Now, Later };
  /// Commits the open group, if any. StoreError if it cannot: then every
  /// change of the group is gone, as if it had never been made.
  void flush(Sync sync = Sync::Now);
  /// Syncs the write-ahead log to disk: every commit made before the call
  /// is durable when it returns. Safe from any thread, beside the writer.
  /// StoreError if the disk refuses.
  void sync() const;
  bool holding() const { return holding_; }

  /// Checkpoints of the write-ahead log run beside the writer so far.
  size_t checkpoints() const { return checkpointer_.done(); }

  /// The file the store lives in (an ObjectReader opens it too).
  std::filesystem::path path() const { return db_.path(); }

  static constexpr int64_t kSchemaVersion = 1;

 private:
  class Write;
  void load_version();
  void save_version();
  int64_t next_version();
  // Which a write most likely is, so that it costs one statement.
  enum class Likely { Existing, New };
  int64_t upsert(const ObjectWrite& object, Likely likely);
  std::optional<int64_t> erase(std::string_view kind, std::string_view key);
  void log(int64_t version, std::string_view type, std::string_view kind, std::string_view key,
           std::string_view json);

  SqliteDb db_;
  // The write-ahead log, opened to sync it (SQLite runs with
  // synchronous=NORMAL, which syncs it only at checkpoints; every commit is
  // synced here instead, when and on whichever thread its writer says).
  int wal_fd_ = -1;
  // Declared after db_, so stopped before it closes.
  Checkpointer checkpointer_;
  bool holding_ = false;
  // The version counter while a transaction is open (the stored one is
  // written back at its commit).
  int64_t version_ = 0;
};

}  // namespace scoria::store
