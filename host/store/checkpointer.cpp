#include "store/checkpointer.h"

#include <sqlite3.h>

#include <optional>
#include <utility>

#include "log/log.h"
#include "store/sqlite_db.h"

namespace scoria::store {

Checkpointer::Checkpointer(std::filesystem::path path)
    : path_(std::move(path)), thread_([this] { run(); }) {}

Checkpointer::~Checkpointer() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void Checkpointer::request() {
  {
    const std::lock_guard lock(mutex_);
    if (requested_) return;
    requested_ = true;
  }
  wake_.notify_one();
}

size_t Checkpointer::done() const {
  const std::lock_guard lock(mutex_);
  return done_;
}

void Checkpointer::run() {
  std::optional<SqliteDb> db;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return requested_ || stopping_; });
      if (stopping_) return;
      requested_ = false;
    }
    try {
      if (!db) db.emplace(path_);
      const int rc = sqlite3_wal_checkpoint_v2(db->raw(), nullptr, SQLITE_CHECKPOINT_PASSIVE,
                                               nullptr, nullptr);
      // Busy: another checkpoint is under way (the last connection's, at
      // close); the next request tries again.
      if (rc != SQLITE_OK && rc != SQLITE_BUSY)
        log::write(log::kWarning, "store",
                   path_.string() + ": a checkpoint of the write-ahead log failed: " +
                       sqlite3_errmsg(db->raw()));
    } catch (const StoreError& e) {
      log::write(log::kWarning, "store", e.what());
    }
    const std::lock_guard lock(mutex_);
    ++done_;
  }
}

}  // namespace scoria::store
