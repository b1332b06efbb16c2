// Text that is not YAML (or JSON) at all.
#pragma once

#include <string>
#include <utility>

#include "model/error.h"

namespace scoria::input {

/// The parser's complaint with where it gave up (1-based; 0 when it could
/// not say), for readers that word their own messages.
class SyntaxError : public InputError {
 public:
  SyntaxError(const std::string& message, int line, int column, std::string detail)
      : InputError(message), line_(line), column_(column), detail_(std::move(detail)) {}
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& detail() const { return detail_; }

 private:
  int line_;
  int column_;
  std::string detail_;
};

}  // namespace scoria::input
