// A second, read-only connection to the store's file, for a thread other
// than the one that writes: the session thread drafts what a session will
// record while the loop goes on answering and writing. In WAL mode it reads
// the last committed state without blocking the writer or waiting for it.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "store/object_store.h"
#include "store/sqlite_db.h"

namespace scoria::store {

class ObjectReader {
 public:
  /// Opens the store at `path` (an ObjectStore has created it) for reading;
  /// StoreError if it cannot.
  explicit ObjectReader(const std::filesystem::path& path);

  /// The objects of `kind` named by `keys`, in their order, all read in one
  /// transaction (one committed state); nullopt where there is none.
  std::vector<std::optional<StoredObject>> get(std::string_view kind,
                                               std::span<const std::string> keys);

 private:
  SqliteDb db_;
};

}  // namespace scoria::store
