// A thin RAII layer over SQLite's C API: a connection and prepared
// statements that finalize themselves. Failures throw StoreError with
// SQLite's message.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace scoria::store {

/// A failure of the durable store (I/O, corruption, a schema it cannot read).
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class SqliteStatement;

class SqliteDb {
 public:
  explicit SqliteDb(const std::filesystem::path& path);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  /// Runs statements that return no rows.
  void exec(std::string_view sql);
  SqliteStatement prepare(std::string_view sql);
  int64_t changes() const;
  sqlite3* raw() const { return db_; }
  [[noreturn]] void fail(std::string_view what) const;

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

class SqliteStatement {
 public:
  SqliteStatement(SqliteDb& db, sqlite3_stmt* stmt) : db_(&db), stmt_(stmt) {}
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&&) = delete;
  ~SqliteStatement();

  SqliteStatement& bind(int index, std::string_view text);
  SqliteStatement& bind(int index, int64_t value);
  /// Advances; false when there are no more rows.
  bool step();
  /// Steps to completion (for statements without rows) and resets.
  void run();
  void reset();
  int64_t column_int(int index) const;
  std::string column_text(int index) const;

 private:
  SqliteDb* db_;
  sqlite3_stmt* stmt_;
};

/// BEGIN IMMEDIATE ... COMMIT, rolled back unless committed.
class Transaction {
 public:
  explicit Transaction(SqliteDb& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  SqliteDb& db_;
  bool done_ = false;
};

}  // namespace scoria::store
