#include "store/sqlite_db.h"

#include <sqlite3.h>

#include <utility>

namespace scoria::store {

SqliteDb::SqliteDb(const std::filesystem::path& path, Mode mode) : path_(path.string()) {
  const int access =
      mode == Mode::ReadOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  const int rc = sqlite3_open_v2(path_.c_str(), &db_, access | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    const std::string why = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw StoreError(path_ + ": cannot open the store: " + why);
  }
  sqlite3_busy_timeout(db_, 5000);
}

SqliteDb::~SqliteDb() {
  for (auto& [sql, c] : cache_) sqlite3_finalize(c.stmt);
  sqlite3_close(db_);
}

void SqliteDb::fail(std::string_view what) const {
  throw StoreError(path_ + ": " + std::string(what) + ": " + sqlite3_errmsg(db_));
}

void SqliteDb::exec(std::string_view sql) {
  char* message = nullptr;
  const std::string text(sql);
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string why = message != nullptr ? message : "unknown error";
    sqlite3_free(message);
    throw StoreError(path_ + ": " + why + " (in: " + text.substr(0, 60) + ")");
  }
}

SqliteStatement SqliteDb::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) !=
      SQLITE_OK)
    fail("cannot prepare a statement");
  return SqliteStatement(*this, stmt);
}

SqliteStatement SqliteDb::cached(std::string_view sql) {
  auto it = cache_.find(sql);
  if (it == cache_.end()) {
    SqliteStatement fresh = prepare(sql);
    it = cache_.emplace(std::string(sql), Cached{std::exchange(fresh.stmt_, nullptr), false}).first;
  }
  if (it->second.in_use) return prepare(sql);
  it->second.in_use = true;
  return SqliteStatement(*this, it->second.stmt, &it->second.in_use);
}

int64_t SqliteDb::changes() const { return sqlite3_changes64(db_); }

bool SqliteDb::in_transaction() const { return sqlite3_get_autocommit(db_) == 0; }

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : db_(other.db_),
      stmt_(std::exchange(other.stmt_, nullptr)),
      in_use_(std::exchange(other.in_use_, nullptr)) {}

SqliteStatement::~SqliteStatement() {
  if (in_use_ == nullptr) {
    sqlite3_finalize(stmt_);
    return;
  }
  reset();
  *in_use_ = false;
}

SqliteStatement& SqliteStatement::bind(int index, std::string_view text) {
  if (sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()),
                        SQLITE_TRANSIENT) != SQLITE_OK)
    db_->fail("cannot bind a value");
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) db_->fail("cannot bind a value");
  return *this;
}

bool SqliteStatement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_->fail("a statement failed");
}

void SqliteStatement::run() {
  while (step()) {
  }
  reset();
}

void SqliteStatement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t SqliteStatement::column_int(int index) const { return sqlite3_column_int64(stmt_, index); }

std::string SqliteStatement::column_text(int index) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, index));
  return text != nullptr
             ? std::string(text, static_cast<size_t>(sqlite3_column_bytes(stmt_, index)))
             : std::string();
}

// The statements are prepared once (cached): a write group runs one
// savepoint per request.
Transaction::Transaction(SqliteDb& db) : db_(db), nested_(db.in_transaction()) {
  db_.cached(nested_ ? "SAVEPOINT nested" : "BEGIN IMMEDIATE").run();
}

Transaction::~Transaction() {
  if (done_) return;
  try {
    if (nested_) {
      db_.cached("ROLLBACK TO nested").run();
      db_.cached("RELEASE nested").run();
    } else {
      db_.cached("ROLLBACK").run();
    }
  } catch (const StoreError&) {
    // Nothing more can be done: SQLite rolls back on close as well.
  }
}

void Transaction::commit() {
  db_.cached(nested_ ? "RELEASE nested" : "COMMIT").run();
  done_ = true;
}

}  // namespace scoria::store
