#include "trace/csv_rows.h"

#include "model/error.h"

namespace scoria::trace {

std::vector<CsvRow> csv_rows(std::string_view text, const std::string& file) {
  std::vector<CsvRow> rows;
  size_t line = 1, i = 0;
  while (i < text.size()) {
    CsvRow row{line, {}};
    std::string field;
    bool quoted = false, end = false;
    for (; i < text.size() && !end; ++i) {
      const char c = text[i];
      if (quoted) {
        if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else if (c == '"') {
          quoted = false;
        } else {
          if (c == '\n') ++line;
          field += c;
        }
      } else if (c == '"' && field.empty()) {
        quoted = true;
      } else if (c == ',') {
        row.fields.push_back(std::move(field));
        field.clear();
      } else if (c == '\n') {
        ++line;
        end = true;
      } else if (c != '\r') {
        field += c;
      }
    }
    if (quoted)
      throw InputError(file + ": line " + std::to_string(row.line) +
                       ": a quoted field is not closed; end it with \"");
    row.fields.push_back(std::move(field));
    if (row.fields.size() == 1 && row.fields[0].empty()) continue;  // a blank line
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace scoria::trace
