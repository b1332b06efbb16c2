#include "store/object_reader.h"

namespace scoria::store {

ObjectReader::ObjectReader(const std::filesystem::path& path)
    : db_(path, SqliteDb::Mode::ReadOnly) {}

std::vector<std::optional<StoredObject>> ObjectReader::get(std::string_view kind,
                                                           std::span<const std::string> keys) {
  std::vector<std::optional<StoredObject>> out;
  out.reserve(keys.size());
  // One read transaction, not one per object (each would take and drop the
  // WAL's read lock); read-only, so its end commits nothing.
  db_.exec("BEGIN");
  try {
    auto q = db_.cached("SELECT version, json FROM objects WHERE kind = ?1 AND key = ?2");
    for (const std::string& key : keys) {
      q.bind(1, kind).bind(2, key);
      if (q.step())
        out.emplace_back(StoredObject{std::string(kind), key, q.column_int(0), q.column_text(1)});
      else
        out.emplace_back();
      q.reset();
    }
  } catch (...) {
    db_.exec("ROLLBACK");
    throw;
  }
  db_.exec("COMMIT");
  return out;
}

}  // namespace scoria::store
