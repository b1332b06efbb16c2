// A YAML text as trees of nodes that keep where and how they were written,
// for readers whose messages point at lines and whose meaning depends on the
// style: the scheduler config (YAML 1.1 booleans on plain scalars only, a
// ConfigMap's literal block mapped back to the file's lines). Read by
// libfyaml under Limits, as read_documents is: any text is accepted or
// refused in time proportional to its size.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "input/limits.h"
#include "input/syntax_error.h"

namespace scoria::input {

struct YamlEntry;

struct YamlNode {
  enum class Kind { Scalar, List, Map };
  enum class Style { Plain, Quoted, Literal, Folded };

  Kind kind = Kind::Scalar;
  Style style = Style::Plain;      // a scalar's
  std::string text;                // a scalar's value; "" for an empty one
  std::string tag;                 // as written ("!!str", "!"); empty when none
  int line = 0;                    // where it starts, 1-based; 0 for an empty
  int column = 0;                  // value, which has no place of its own
  size_t offset = 0;               // byte offset of its start (a block's indicator)
  std::vector<YamlNode> items;     // a List's
  std::vector<YamlEntry> entries;  // a Map's, in document order, duplicates kept

  /// A plain scalar YAML reads as null: empty, "~" or "null".
  bool is_null() const;
};

struct YamlEntry {
  YamlNode key;
  YamlNode value;
};

/// The root of every document in `text` that is not empty (or null), in
/// order; aliases are expanded into copies (within `limits`). Throws
/// SyntaxError for invalid YAML, InputError ("ORIGIN: document N: line L,
/// column C: ...") for a limit passed.
std::vector<YamlNode> read_yaml_trees(std::string_view text, std::string_view origin,
                                      const Limits& limits);

}  // namespace scoria::input
