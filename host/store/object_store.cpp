#include "store/object_store.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace scoria::store {

namespace {

// WAL pages after which a commit asks for a checkpoint (SQLite's default),
// and after which it checkpoints itself: a checkpoint that runs beside
// writes cannot always catch up with them, and the log must not grow
// without bound under a steady stream of writes.
constexpr int kCheckpointPages = 1000;
constexpr int kCheckpointInlinePages = 20000;

}  // namespace

ObjectStore::ObjectStore(const std::filesystem::path& path) : db_(path), checkpointer_(path) {
  db_.exec("PRAGMA journal_mode=WAL");
  // The log is synced after each commit by sync(), not by SQLite (which
  // would do it on the committing thread); checkpoints still sync.
  db_.exec("PRAGMA synchronous=NORMAL");
  // Checkpoints run on the checkpointer's thread, not in the committing
  // one (this hook replaces SQLite's own automatic checkpoints).
  sqlite3_wal_hook(
      db_.raw(),
      [](void* checkpointer, sqlite3* db, const char* name, int pages) {
        if (pages >= kCheckpointInlinePages)
          sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
        else if (pages >= kCheckpointPages)
          static_cast<Checkpointer*>(checkpointer)->request();
        return SQLITE_OK;
      },
      &checkpointer_);
  db_.exec(
      "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);"
      "CREATE TABLE IF NOT EXISTS objects(kind TEXT NOT NULL, key TEXT NOT NULL,"
      " version INTEGER NOT NULL, json TEXT NOT NULL, PRIMARY KEY(kind, key)) WITHOUT ROWID;"
      "CREATE TABLE IF NOT EXISTS events(version INTEGER PRIMARY KEY, type TEXT NOT NULL,"
      " kind TEXT NOT NULL, key TEXT NOT NULL, json TEXT NOT NULL);");
  auto schema = db_.prepare("SELECT value FROM meta WHERE key = 'schema'");
  if (schema.step()) {
    const int64_t found = schema.column_int(0);
    if (found != kSchemaVersion)
      throw StoreError(path.string() + ": the store has schema version " + std::to_string(found) +
                       ", this scoria reads version " + std::to_string(kSchemaVersion) +
                       "; use the scoria that wrote it, or start from an empty state directory");
  } else {
    Transaction tx(db_);
    db_.prepare("INSERT INTO meta(key, value) VALUES('schema', ?1)").bind(1, kSchemaVersion).run();
    db_.prepare("INSERT OR IGNORE INTO meta(key, value) VALUES('version', 0)").run();
    tx.commit();
  }
  // The log exists once the store has been read in WAL mode, as above.
  const std::string wal = path.string() + "-wal";
  wal_fd_ = ::open(wal.c_str(), O_RDONLY | O_CLOEXEC);
  if (wal_fd_ < 0)
    throw StoreError(wal + ": cannot open the write-ahead log to sync it: " + std::strerror(errno));
}

ObjectStore::~ObjectStore() {
  if (wal_fd_ >= 0) ::close(wal_fd_);
}

void ObjectStore::sync() const {
  if (::fdatasync(wal_fd_) != 0)
    throw StoreError(db_.path() + "-wal: cannot sync the write-ahead log: " + std::strerror(errno));
}

/// A write: a transaction of its own, or a savepoint inside the open write
/// group. The version counter is read when a transaction opens (the write
/// lock is held from then on, so no other connection moves it) and written
/// back once when it commits, not once per change.
class ObjectStore::Write {
 public:
  explicit Write(ObjectStore& store)
      : store_(store), outermost_(!store.db_.in_transaction()), tx_(store.db_) {
    if (outermost_) store_.load_version();
  }
  void commit() {
    if (outermost_) store_.save_version();
    tx_.commit();
    if (outermost_) store_.sync();
  }

 private:
  ObjectStore& store_;
  bool outermost_;
  Transaction tx_;
};

void ObjectStore::load_version() {
  auto q = db_.cached("SELECT value FROM meta WHERE key = 'version'");
  if (!q.step()) throw StoreError("the store has lost its version counter");
  version_ = q.column_int(0);
}

void ObjectStore::save_version() {
  db_.cached("UPDATE meta SET value = ?1 WHERE key = 'version'").bind(1, version_).run();
}

int64_t ObjectStore::next_version() {
  // Versions handed out in a savepoint that rolls back are not reused
  // within its transaction; a transaction that rolls back leaves the stored
  // counter as it was, and its versions are handed out again (nothing saw
  // them: watchers are sent only what is committed).
  return ++version_;
}

void ObjectStore::hold() {
  if (holding_) return;
  db_.exec("BEGIN IMMEDIATE");
  try {
    load_version();
  } catch (...) {
    db_.exec("ROLLBACK");
    throw;
  }
  holding_ = true;
}

void ObjectStore::flush(Sync sync) {
  if (!holding_) return;
  holding_ = false;
  try {
    save_version();
    db_.exec("COMMIT");
  } catch (const StoreError&) {
    // The group is lost as a whole; nothing of it was acknowledged.
    if (db_.in_transaction()) {
      try {
        db_.exec("ROLLBACK");
      } catch (const StoreError&) {
        // SQLite has rolled back already.
      }
    }
    throw;
  }
  if (sync == Sync::Now) this->sync();
}

void ObjectStore::log(int64_t version, std::string_view type, std::string_view kind,
                      std::string_view key, std::string_view json) {
  db_.cached("INSERT INTO events(version, type, kind, key, json) VALUES(?1, ?2, ?3, ?4, ?5)")
      .bind(1, version)
      .bind(2, type)
      .bind(3, kind)
      .bind(4, key)
      .bind(5, json)
      .run();
}

int64_t ObjectStore::upsert(const ObjectWrite& o, Likely likely) {
  const int64_t version = next_version();
  // The likely case is one statement; the other, two. Each says whether it
  // wrote the row.
  const auto row = [&](std::string_view sql) {
    db_.cached(sql).bind(1, o.kind).bind(2, o.key).bind(3, version).bind(4, o.json).run();
    return db_.changes() == 1;
  };
  const auto update = [&] {
    return row("UPDATE objects SET version = ?3, json = ?4 WHERE kind = ?1 AND key = ?2");
  };
  const auto insert = [&] {
    return row(
        "INSERT INTO objects(kind, key, version, json) VALUES(?1, ?2, ?3, ?4)"
        " ON CONFLICT(kind, key) DO NOTHING");
  };
  bool had = false;
  if (likely == Likely::Existing) {
    had = update();
    if (!had && !insert()) throw StoreError("the store changed under a write of " + o.key);
  } else {
    had = !insert();
    if (had && !update()) throw StoreError("the store changed under a write of " + o.key);
  }
  log(version, had ? "MODIFIED" : "ADDED", o.kind, o.key, o.json);
  return version;
}

std::optional<int64_t> ObjectStore::erase(std::string_view kind, std::string_view key) {
  auto old = db_.cached("SELECT json FROM objects WHERE kind = ?1 AND key = ?2");
  old.bind(1, kind).bind(2, key);
  if (!old.step()) return std::nullopt;
  const std::string json = old.column_text(0);
  db_.cached("DELETE FROM objects WHERE kind = ?1 AND key = ?2").bind(1, kind).bind(2, key).run();
  const int64_t version = next_version();
  log(version, "DELETED", kind, key, json);
  return version;
}

int64_t ObjectStore::apply(std::span<const ObjectWrite> objects) {
  Write tx(*this);
  int64_t version = latest_version();
  for (const ObjectWrite& o : objects) version = upsert(o, Likely::New);
  tx.commit();
  return version;
}

std::optional<int64_t> ObjectStore::remove(std::string_view kind, std::string_view key) {
  Write tx(*this);
  const auto version = erase(kind, key);
  if (version) tx.commit();
  return version;
}

PutResult ObjectStore::put(const ObjectWrite& object, const Precondition& pre) {
  Write tx(*this);
  auto q = db_.cached("SELECT version FROM objects WHERE kind = ?1 AND key = ?2");
  q.bind(1, object.kind).bind(2, object.key);
  const bool exists = q.step();
  const int64_t current = exists ? q.column_int(0) : 0;
  if (exists && pre.must_not_exist) return {PutResult::Exists, current};
  if (!exists && pre.must_exist) return {PutResult::Missing, 0};
  if (pre.version && (!exists || *pre.version != current)) return {PutResult::Conflict, current};
  const int64_t version = upsert(object, exists ? Likely::Existing : Likely::New);
  tx.commit();
  return {PutResult::Written, version};
}

PutResult ObjectStore::remove_if(std::string_view kind, std::string_view key,
                                 std::optional<int64_t> version) {
  Write tx(*this);
  auto q = db_.cached("SELECT version FROM objects WHERE kind = ?1 AND key = ?2");
  q.bind(1, kind).bind(2, key);
  if (!q.step()) return {PutResult::Missing, 0};
  const int64_t current = q.column_int(0);
  if (version && *version != current) return {PutResult::Conflict, current};
  const auto gone = erase(kind, key);
  tx.commit();
  return {PutResult::Written, gone.value_or(0)};
}

int64_t ObjectStore::commit(const Batch& batch) {
  Write tx(*this);
  for (const ObjectWrite& o : batch.upserts) upsert(o, Likely::Existing);
  for (const ObjectWrite& o : batch.inserts) upsert(o, Likely::New);
  for (const auto& [kind, key] : batch.deletes) erase(kind, key);
  for (const EventWrite& e : batch.events) log(next_version(), e.type, e.kind, e.key, e.json);
  tx.commit();
  return latest_version();
}

std::optional<StoredObject> ObjectStore::get(std::string_view kind, std::string_view key) {
  auto q = db_.cached("SELECT version, json FROM objects WHERE kind = ?1 AND key = ?2");
  q.bind(1, kind).bind(2, key);
  if (!q.step()) return std::nullopt;
  return StoredObject{std::string(kind), std::string(key), q.column_int(0), q.column_text(1)};
}

std::optional<int64_t> ObjectStore::version_of(std::string_view kind, std::string_view key) {
  auto q = db_.cached("SELECT version FROM objects WHERE kind = ?1 AND key = ?2");
  q.bind(1, kind).bind(2, key);
  if (!q.step()) return std::nullopt;
  return q.column_int(0);
}

std::vector<StoredObject> ObjectStore::list(std::string_view kind) {
  std::vector<StoredObject> out;
  auto q = db_.cached("SELECT key, version, json FROM objects WHERE kind = ?1 ORDER BY key");
  q.bind(1, kind);
  while (q.step())
    out.push_back({std::string(kind), q.column_text(0), q.column_int(1), q.column_text(2)});
  return out;
}

int64_t ObjectStore::append_events(std::span<const EventWrite> events) {
  Write tx(*this);
  int64_t version = latest_version();
  for (const EventWrite& e : events) {
    version = next_version();
    log(version, e.type, e.kind, e.key, e.json);
  }
  tx.commit();
  return version;
}

std::vector<Event> ObjectStore::events_since(int64_t after, size_t limit) {
  std::vector<Event> out;
  auto q = db_.cached(
      "SELECT version, type, kind, key, json FROM events WHERE version > ?1"
      " ORDER BY version LIMIT ?2");
  q.bind(1, after).bind(2, static_cast<int64_t>(limit));
  while (q.step())
    out.push_back(
        {q.column_int(0), q.column_text(1), q.column_text(2), q.column_text(3), q.column_text(4)});
  return out;
}

int64_t ObjectStore::latest_version() {
  // Inside a write the counter runs ahead of the stored one.
  if (db_.in_transaction()) return version_;
  auto q = db_.cached("SELECT value FROM meta WHERE key = 'version'");
  return q.step() ? q.column_int(0) : 0;
}

int64_t ObjectStore::oldest_event_version() {
  auto q = db_.cached("SELECT MIN(version) FROM events");
  return q.step() ? q.column_int(0) : 0;
}

void ObjectStore::compact_events(size_t keep) {
  Write tx(*this);
  db_.cached("DELETE FROM events WHERE version <= ?1")
      .bind(1, latest_version() - static_cast<int64_t>(keep))
      .run();
  tx.commit();
}

}  // namespace scoria::store
