// CEL's grammar (github.com/google/cel-spec, langdef.md) into an Ast: the
// operators and their precedence, literals of every kind (ints, uints,
// doubles, strings with their escapes and raw and triple-quoted forms,
// bytes, bools, null), lists, maps, member calls and the macros has(),
// all(), exists(), exists_one(), map() and filter(). Message construction
// (`Type{field: ...}`) is not supported: no DRA selector uses it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>

#include "cel/ast.h"

namespace scoria::cel {

struct ParseError {
  std::string message;  // "at 12: expected ')'"-shaped, with the offending text
  size_t at = 0;        // byte offset
};

/// The longest expression parsed (Kubernetes' limit for a DRA selector)
/// and the deepest nesting, so that a hostile one costs little.
/// kMaxNesting counts brackets and prefix operators as written; kMaxDepth
/// the tree (a chain of 300 `+` is 300 deep), which evaluation recurses.
inline constexpr size_t kMaxExpressionBytes = 10 * 1024;
inline constexpr int kMaxNesting = 100;
inline constexpr int kMaxDepth = 250;

std::variant<Ast, ParseError> parse(std::string_view text);

}  // namespace scoria::cel
