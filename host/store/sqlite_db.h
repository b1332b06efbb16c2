// A thin RAII layer over SQLite's C API: a connection and prepared
// statements that finalize themselves (or, for the connection's cached ones,
// reset themselves for the next use). Failures throw StoreError with
// SQLite's message.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>

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
  enum class Mode { ReadWrite, ReadOnly };
  /// Opens `path`, creating it unless `mode` is ReadOnly.
  explicit SqliteDb(const std::filesystem::path& path, Mode mode = Mode::ReadWrite);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  /// Runs statements that return no rows.
  void exec(std::string_view sql);
  SqliteStatement prepare(std::string_view sql);
  /// The statement for `sql`, prepared on first use and kept: what the
  /// store runs per object is parsed once, not per call. Reset and its
  /// bindings cleared when the handle goes. A statement already handed out
  /// (a nested use of the same text) is prepared afresh instead.
  SqliteStatement cached(std::string_view sql);
  int64_t changes() const;
  /// Inside BEGIN ... COMMIT (a Transaction then nests as a savepoint).
  bool in_transaction() const;
  sqlite3* raw() const { return db_; }
  const std::string& path() const { return path_; }
  [[noreturn]] void fail(std::string_view what) const;

 private:
  struct Cached {
    sqlite3_stmt* stmt = nullptr;
    bool in_use = false;
  };
  sqlite3* db_ = nullptr;
  std::string path_;
  // Looked up by the statement's text as given, without a copy of it.
  struct TextHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, Cached, TextHash, std::equal_to<>> cache_;
};

class SqliteStatement {
 public:
  SqliteStatement(SqliteDb& db, sqlite3_stmt* stmt, bool* in_use = nullptr)
      : db_(&db), stmt_(stmt), in_use_(in_use) {}
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
  friend class SqliteDb;
  SqliteDb* db_;
  sqlite3_stmt* stmt_;
  bool* in_use_;  // set for a cached statement: reset, not finalized
};

/// BEGIN IMMEDIATE ... COMMIT, rolled back unless committed; inside a
/// transaction already open, a savepoint released on commit and rolled back
/// to otherwise, so that the outer transaction keeps everything else.
class Transaction {
 public:
  explicit Transaction(SqliteDb& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  SqliteDb& db_;
  bool nested_;
  bool done_ = false;
};

}  // namespace scoria::store
