// A parsed CEL expression: its nodes in one array, children by index, each
// with its byte offset in the source for messages.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cel/value.h"

namespace scoria::cel {

struct Expr {
  enum class Kind : uint8_t {
    Literal,        // `literal`
    Ident,          // `name`
    Select,         // args[0].name
    Index,          // args[0][args[1]]
    Call,           // name(args...), or args[0].name(args[1...]) when `member`
    ListOf,         // [args...]
    MapOf,          // {args[0]: args[1], ...}
    Not,            // !args[0]
    Negate,         // -args[0]
    And,            // args[0] && args[1]
    Or,             // args[0] || args[1]
    Ternary,        // args[0] ? args[1] : args[2]
    Binary,         // args[0] `name` args[1]: == != < <= > >= in + - * / %
    Has,            // has(args[0].name)
    Comprehension,  // args[0].name(var, args[1] [, args[2]]): all, exists, exists_one, map, filter
  };
  Kind kind = Kind::Literal;
  uint32_t at = 0;
  std::string name;
  std::string var;  // a comprehension's variable
  bool member = false;
  Value literal;
  std::vector<uint32_t> args;
};

struct Ast {
  std::vector<Expr> nodes;
  uint32_t root = 0;
};

}  // namespace scoria::cel
