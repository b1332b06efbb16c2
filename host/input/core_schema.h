// How a plain (unquoted, untagged) YAML scalar resolves under the YAML 1.2
// core schema, which Scoria reads every text with: null, booleans,
// integers and floats by their forms, anything else a string.
#pragma once

#include <string_view>

#include "input/node_tree.h"

namespace scoria::input {

/// `text` as a node; a string's text is copied into `arena`. Integers that
/// do not fit in 64 bits, and floats that do not fit in a double, stay
/// strings.
Node plain_scalar(std::string_view text, NodeArena& arena);

}  // namespace scoria::input
