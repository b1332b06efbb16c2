#include "trace/csv_rows.h"

#include <utility>

#include "model/error.h"

namespace scoria::trace {

CsvReader::CsvReader(std::istream& in, std::string file)
    : in_(*in.rdbuf()), file_(std::move(file)) {}

std::optional<CsvRow> CsvReader::next() {
  using Traits = std::streambuf::traits_type;
  for (;;) {
    if (Traits::eq_int_type(in_.sgetc(), Traits::eof())) return std::nullopt;
    CsvRow row{line_, {}};
    std::string field;
    size_t bytes = 0;
    bool quoted = false, end = false;
    while (!end) {
      const Traits::int_type got = in_.sbumpc();
      if (Traits::eq_int_type(got, Traits::eof())) break;
      const char c = Traits::to_char_type(got);
      if (++bytes > kMaxCsvRowBytes)
        throw InputError(file_ + ": line " + std::to_string(row.line) + ": a row longer than " +
                         std::to_string(kMaxCsvRowBytes) +
                         " bytes; is a quote left open? Rows end at a line end");
      if (quoted) {
        if (c == '"' && Traits::eq_int_type(in_.sgetc(), Traits::to_int_type('"'))) {
          field += '"';
          in_.sbumpc();
        } else if (c == '"') {
          quoted = false;
        } else {
          if (c == '\n') ++line_;
          field += c;
        }
      } else if (c == '"' && field.empty()) {
        quoted = true;
      } else if (c == ',') {
        row.fields.push_back(std::move(field));
        field.clear();
      } else if (c == '\n') {
        ++line_;
        end = true;
      } else if (c != '\r') {
        field += c;
      }
    }
    if (quoted)
      throw InputError(file_ + ": line " + std::to_string(row.line) +
                       ": a quoted field is not closed; end it with \"");
    row.fields.push_back(std::move(field));
    if (row.fields.size() == 1 && row.fields[0].empty()) continue;  // a blank line
    return row;
  }
}

}  // namespace scoria::trace
