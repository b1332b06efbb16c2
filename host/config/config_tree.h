// The small document tree both syntaxes of the scheduler config are read
// into (TOML, and Volcano's YAML or JSON), so that one reader gives them the
// same meaning and the same messages: values with the place in the text
// they were written at, which syntax a text is in, and where a text sits
// (a file, or a value of a ConfigMap in it) for messages. Internal to the
// config layer.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "input/yaml_tree.h"

namespace scoria::config::doc {

/// A position in the text, 1-based; 0 where unknown.
struct Place {
  int line = 0;
  int column = 0;
};

struct Entry;

struct Value {
  enum class Kind { Null, String, Bool, Integer, Float, Other, List, Map };
  Kind kind = Kind::Null;
  std::string text;            // a scalar: as written (YAML) or its canonical text (TOML)
  bool truth = false;          // a Bool's value
  std::vector<Value> items;    // a List
  std::vector<Entry> entries;  // a Map, in document order, keys unique
  Place place;

  bool is_scalar() const { return kind != Kind::List && kind != Kind::Map; }
};

struct Entry {
  std::string key;
  Place place;
  Value value;
};

enum class Syntax { Toml, Yaml, Json };

/// By the file name's extension; nullopt when it says none.
std::optional<Syntax> syntax_by_name(std::string_view name);
/// TOML when the first line with content is a table header or a `key =`
/// assignment; YAML (which includes JSON) otherwise.
Syntax syntax_by_content(std::string_view text);
/// "JSON" or "YAML", for messages.
std::string_view syntax_word(Syntax s);

/// Where a text sits, for messages: the file itself, or one value inside a
/// ConfigMap in that file.
struct Origin {
  std::string file;
  std::string inner;   // "data[volcano-scheduler.conf]" when read out of a ConfigMap
  bool mapped = true;  // places can be shown as the file's lines
  int line_offset = 0;
  int column_offset = 0;

  std::string where(Place p) const;
};

/// Throws InputError: where, the path to the value (if any), and what.
[[noreturn]] void fail(const Origin& origin, Place at, std::string_view path,
                       std::string_view what);

/// `text` as TOML; InputError naming the place of a syntax error.
Value parse_toml(std::string_view text, const Origin& origin);
/// A YAML node as Volcano's YAML library (YAML 1.1) reads it: plain
/// scalars resolved, quoted and block text strings, tags obeyed; keys
/// plain and unique. `fallback`: the place of a node that has none.
Value from_yaml(const input::YamlNode& n, Place fallback, const Origin& origin, int depth = 0);
Place yaml_place(const input::YamlNode& n);

/// `s` without the spaces, tabs and line ends around it.
std::string_view trim(std::string_view s);

}  // namespace scoria::config::doc
