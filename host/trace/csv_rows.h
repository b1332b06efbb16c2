// Comma-separated rows as RFC 4180 writes them (quoted fields may hold
// commas, quotes doubled, line ends), each with the line it starts on, for
// messages that point at it. Read from a stream a row at a time, so that a
// trace of any length takes the memory of one row.
#pragma once

#include <cstddef>
#include <istream>
#include <optional>
#include <string>
#include <vector>

namespace scoria::trace {

struct CsvRow {
  size_t line;  // 1-based
  std::vector<std::string> fields;
};

/// The longest row read, in bytes: a quote that never closes would
/// otherwise read the rest of the input into one field.
inline constexpr size_t kMaxCsvRowBytes = 1 << 20;

class CsvReader {
 public:
  /// Reads `in`, named `file` in messages; `in` outlives the reader.
  CsvReader(std::istream& in, std::string file);

  /// The next row, or nullopt at the end; blank lines are skipped. Throws
  /// InputError naming the file and the line of a quoted field that never
  /// ends, or of a row longer than kMaxCsvRowBytes.
  std::optional<CsvRow> next();

  const std::string& file() const { return file_; }

 private:
  std::streambuf& in_;
  std::string file_;
  size_t line_ = 1;
};

}  // namespace scoria::trace
