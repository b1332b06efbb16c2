#include "config/config_tree.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <system_error>

#include <toml++/toml.h>

#include "model/error.h"

namespace scoria::config::doc {

namespace {

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

/// A TOML float as decimal text; integral values keep ".0" so that they read
/// as the float they were written as.
std::string float_text(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  std::array<char, 64> buf{};
  const auto result = std::to_chars(buf.data(), buf.data() + buf.size(), d);
  std::string s(buf.data(), result.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

// Deeper than any config; stops a hostile document from exhausting the stack.
constexpr int kMaxDepth = 64;

// --- from TOML -----------------------------------------------------------------

Place toml_place(const toml::source_region& r) {
  return {static_cast<int>(r.begin.line), static_cast<int>(r.begin.column)};
}

Value from_toml(const toml::node& n, Place fallback) {
  Value v;
  v.place = toml_place(n.source());
  if (v.place.line == 0) v.place = fallback;
  switch (n.type()) {
    case toml::node_type::table:
      v.kind = Value::Kind::Map;
      for (auto&& [key, child] : *n.as_table()) {
        Place kp = toml_place(key.source());
        if (kp.line == 0) kp = v.place;
        v.entries.push_back({std::string(key.str()), kp, from_toml(child, kp)});
      }
      break;
    case toml::node_type::array:
      v.kind = Value::Kind::List;
      for (const toml::node& item : *n.as_array()) v.items.push_back(from_toml(item, v.place));
      break;
    case toml::node_type::string:
      v.kind = Value::Kind::String;
      v.text = n.as_string()->get();
      break;
    case toml::node_type::integer:
      v.kind = Value::Kind::Integer;
      v.text = std::to_string(n.as_integer()->get());
      break;
    case toml::node_type::floating_point:
      v.kind = Value::Kind::Float;
      v.text = float_text(n.as_floating_point()->get());
      break;
    case toml::node_type::boolean:
      v.kind = Value::Kind::Bool;
      v.truth = n.as_boolean()->get();
      v.text = v.truth ? "true" : "false";
      break;
    default: {  // dates and times: their TOML text
      std::ostringstream out;
      n.visit([&out](const auto& leaf) { out << leaf; });
      v.kind = Value::Kind::Other;
      v.text = out.str();
      break;
    }
  }
  return v;
}

}  // namespace

Value parse_toml(std::string_view text, const Origin& origin) {
  try {
    const toml::table root = toml::parse(text, origin.file);
    return from_toml(root, Place{1, 1});
  } catch (const toml::parse_error& e) {
    fail(origin, toml_place(e.source()), "",
         "invalid TOML (" + std::string(e.description()) +
             "); check the syntax there: key = value, strings in quotes, [[tiers]] headers");
  }
}

// --- from YAML -----------------------------------------------------------------

Place yaml_place(const input::YamlNode& n) { return {n.line, n.column}; }

namespace {

/// Resolves a plain scalar the way Volcano's YAML library (YAML 1.1) does,
/// so that a flag reads as a boolean exactly where Volcano reads one.
void resolve_plain(Value& v) {
  static constexpr std::array<std::string_view, 11> kTrue = {
      "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"};
  static constexpr std::array<std::string_view, 11> kFalse = {
      "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"};
  const std::string_view s = v.text;
  if (std::find(kTrue.begin(), kTrue.end(), s) != kTrue.end()) {
    v.kind = Value::Kind::Bool;
    v.truth = true;
    return;
  }
  if (std::find(kFalse.begin(), kFalse.end(), s) != kFalse.end()) {
    v.kind = Value::Kind::Bool;
    return;
  }
  const std::string_view digits = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? s.substr(1) : s;
  if (!digits.empty() &&
      std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    v.kind = Value::Kind::Integer;
    return;
  }
  double d = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec == std::errc() && ptr == s.data() + s.size() && !s.empty() && s[0] != 'i' && s[0] != 'n' &&
      s[0] != 'I' && s[0] != 'N') {
    v.kind = Value::Kind::Float;
    return;
  }
  v.kind = Value::Kind::String;
}

/// What a scalar means, as Volcano's YAML library reads it: untagged plain
/// text is resolved (YAML 1.1), quoted and block text is a string, and an
/// explicit tag says what it says.
void resolve_scalar(const input::YamlNode& n, Value& v) {
  v.text = n.text;
  if (n.is_null()) {
    v.kind = Value::Kind::Null;
    return;
  }
  // A standard tag's name: "!!str" as written, "tag:yaml.org,2002:str" resolved.
  std::string_view standard;
  for (const std::string_view prefix : {"tag:yaml.org,2002:", "!!"})
    if (std::string_view(n.tag).starts_with(prefix)) {
      standard = std::string_view(n.tag).substr(prefix.size());
      break;
    }
  if (n.tag.empty()) {
    if (n.style == input::YamlNode::Style::Plain) {
      resolve_plain(v);
    } else {
      v.kind = Value::Kind::String;  // quoted or block text is never resolved
    }
  } else if (n.tag == "!" || standard == "str") {
    v.kind = Value::Kind::String;
  } else if (standard == "bool" || standard == "int" || standard == "float") {
    resolve_plain(v);
  } else {
    v.kind = Value::Kind::Other;
  }
}

}  // namespace

Value from_yaml(const input::YamlNode& n, Place fallback, const Origin& origin, int depth) {
  Value v;
  v.place = yaml_place(n);
  if (v.place.line == 0) v.place = fallback;
  if (depth > kMaxDepth) fail(origin, v.place, "", "nested too deeply; this is not a config");
  switch (n.kind) {
    case input::YamlNode::Kind::Map:
      v.kind = Value::Kind::Map;
      for (const input::YamlEntry& entry : n.entries) {
        Place kp = yaml_place(entry.key);
        if (kp.line == 0) kp = v.place;
        if (entry.key.kind != input::YamlNode::Kind::Scalar)
          fail(origin, kp, "", "a key here is not a plain name; write keys as names, e.g. tiers:");
        const std::string& key = entry.key.text;
        for (const Entry& e : v.entries)
          if (e.key == key)
            fail(origin, kp, key,
                 "appears twice in the same mapping (first at line " +
                     std::to_string(e.place.line + (origin.mapped ? origin.line_offset : 0)) +
                     "); keep one");
        // An empty value has no position of its own; its key's is the useful one.
        v.entries.push_back({key, kp, from_yaml(entry.value, kp, origin, depth + 1)});
        if (entry.value.is_null()) v.entries.back().value.place = kp;
      }
      break;
    case input::YamlNode::Kind::List:
      v.kind = Value::Kind::List;
      for (const input::YamlNode& item : n.items)
        v.items.push_back(from_yaml(item, v.place, origin, depth + 1));
      break;
    case input::YamlNode::Kind::Scalar:
      resolve_scalar(n, v);
      break;
  }
  return v;
}

std::optional<Syntax> syntax_by_name(std::string_view name) {
  std::string ext = std::filesystem::path(name).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), lower);
  if (ext == ".toml") return Syntax::Toml;
  if (ext == ".yaml" || ext == ".yml" || ext == ".conf") return Syntax::Yaml;
  if (ext == ".json") return Syntax::Json;
  return std::nullopt;
}

Syntax syntax_by_content(std::string_view text) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = trim(text.substr(pos, end - pos));
    pos = end + 1;
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '[') return Syntax::Toml;
    const size_t sep = line.find_first_of("=:");
    return sep != std::string_view::npos && line[sep] == '=' ? Syntax::Toml : Syntax::Yaml;
  }
  return Syntax::Yaml;
}

std::string Origin::where(Place p) const {
  if (p.line <= 0) return inner.empty() ? file : file + ": " + inner;
  const std::string line = "line " + std::to_string(p.line + (mapped ? line_offset : 0)) +
                           ", column " + std::to_string(p.column + (mapped ? column_offset : 0));
  if (inner.empty()) return file + ": " + line;
  return mapped ? file + ": " + line + " (in " + inner + ")" : file + ": " + inner + ", " + line;
}

[[noreturn]] void fail(const Origin& origin, Place at, std::string_view path,
                       std::string_view what) {
  std::string msg = origin.where(at) + ": ";
  if (!path.empty()) msg += std::string(path) + ": ";
  throw InputError(msg + std::string(what));
}

std::string_view syntax_word(Syntax s) { return s == Syntax::Json ? "JSON" : "YAML"; }

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

}  // namespace scoria::config::doc
