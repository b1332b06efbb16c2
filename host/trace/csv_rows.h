// Comma-separated rows as RFC 4180 writes them (quoted fields may hold
// commas, quotes doubled, line ends), each with the line it starts on, for
// messages that point at it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace scoria::trace {

struct CsvRow {
  size_t line;  // 1-based
  std::vector<std::string> fields;
};

/// The rows of `text`; blank lines are skipped. Throws InputError naming
/// `file` and the line of a quoted field that never ends.
std::vector<CsvRow> csv_rows(std::string_view text, const std::string& file);

}  // namespace scoria::trace
