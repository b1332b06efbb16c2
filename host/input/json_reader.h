// The fast path for text that is one strict JSON value (API bodies as
// kubectl and the client libraries send them, JSON object files). YAML 1.2
// reads JSON as itself, so this must give exactly the tree the YAML reader
// would, and it gives way to that reader for anything it is not sure of:
// then the YAML reader decides, with its own wording of any error.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "input/limits.h"

namespace scoria::input {

/// The value of `text` if it is one strict JSON value within `limits`
/// (depth, scalar length, no key twice in one object, finite numbers);
/// nullopt otherwise, for the caller to read it as YAML. Integers are
/// int64 where they fit and doubles otherwise, as the YAML reader's core
/// schema makes them. `text` must have passed check_text.
std::optional<nlohmann::json> read_strict_json(std::string_view text, const Limits& limits);

/// How deep the brackets of JSON text nest, strings skipped (a text that is
/// not JSON gives some count): checked before a parse, so that nothing
/// that walks the value after recurses past a bound.
size_t json_nesting(std::string_view text);

}  // namespace scoria::input
