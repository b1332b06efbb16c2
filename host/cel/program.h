// A CEL expression, parsed once and evaluated against variables, as a DRA
// device selector is: `device.driver == "gpu.example.com" &&
// device.attributes["gpu.example.com"].memory >= 40`. Evaluation is bounded
// by a cost (each step, each element a macro or a concatenation walks), as
// Kubernetes bounds a selector's, and never throws: what fails is an
// Error value (a missing key, a type with no such overload, the cost
// exceeded), which `||` and `&&` may still absorb as CEL says.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "cel/ast.h"
#include "cel/parser.h"
#include "cel/value.h"

namespace scoria::cel {

/// The variables an expression reads, by name.
using Variables = std::map<std::string, Value, std::less<>>;

/// Kubernetes' bound on a DRA selector's runtime cost.
inline constexpr uint64_t kDefaultCostLimit = 1'000'000;

class Program {
 public:
  /// The program of `text`, or where and why it does not parse.
  static std::variant<Program, ParseError> compile(std::string_view text);
  /// As compile(text), and an identifier that none of `variables` (nor an
  /// enclosing macro's variable) names is refused, as a checked CEL
  /// environment refuses it: "undeclared reference to 'x' (in container '')".
  static std::variant<Program, ParseError> compile(std::string_view text,
                                                   std::span<const std::string_view> variables);

  /// The expression's value for `variables`; an Error value if it fails.
  Value evaluate(const Variables& variables, uint64_t cost_limit = kDefaultCostLimit) const;

  const Ast& ast() const { return ast_; }

 private:
  explicit Program(Ast ast) : ast_(std::move(ast)) {}
  Ast ast_;
};

}  // namespace scoria::cel
