#include "decode/field_reader.h"

#include <scoria/quantity.hpp>
#include <scoria/rfc3339.hpp>

#include <charconv>
#include <chrono>
#include <limits>
#include <stdexcept>
#include <system_error>

#include "input/documents.h"
#include "model/error.h"
#include "model/quantity.h"

namespace scoria::decode {

namespace {

const Node& null_node() {
  static const Node kNull{};
  return kNull;
}

const Node& empty_object() {
  static const Node kEmpty = Node::mapping({});
  return kEmpty;
}

}  // namespace

std::string quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string object_label(std::string_view kind, std::string_view object) {
  std::string label = kind.empty() ? "object" : std::string(kind);
  if (!object.empty()) label += " " + std::string(object);
  return label;
}

std::string FieldReader::describe(const Node& n) { return input::describe(n); }

void FieldReader::fail(const FieldPath& at, std::string_view what) const {
  std::string msg = std::string(origin_) + ": document " + std::to_string(doc_) + " (" +
                    object_label(kind_, object_) + "): ";
  const std::string field = at.str();
  if (!at.empty()) msg += "field " + field + ": ";
  msg += what;
  throw FieldError(msg, field, std::string(what));
}

const Node& FieldReader::get(const Node& map, std::string_view key) {
  const Node* value = map.find(key);
  return value == nullptr ? null_node() : *value;
}

const Node& FieldReader::mapping(const Node& n, const FieldPath& at) const {
  if (!present(n)) return empty_object();
  if (!n.is_object())
    fail(at, "is " + describe(n) + ", not a mapping; write it as key: value pairs");
  return n;
}

std::string FieldReader::text(const Node& n, const FieldPath& at) const {
  if (!present(n)) return {};
  if (n.is_object() || n.is_array())
    fail(at, "is " + describe(n) + ", not a string; write a plain value");
  return input::scalar_text(n);
}

bool FieldReader::boolean(const Node& n, const FieldPath& at) const {
  if (n.is_boolean()) return n.as_bool();
  const std::string s = text(n, at);
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  fail(at, quote(s) + " is not a boolean; write true or false");
}

std::optional<bool> FieldReader::bool_field(const Node& map, std::string_view key,
                                            const FieldPath& parent) const {
  const Node& n = get(map, key);
  if (!present(n)) return std::nullopt;
  return boolean(n, parent.field(key));
}

int32_t FieldReader::int32(const Node& n, const FieldPath& at) const {
  if (n.is_number_integer()) {
    const int64_t v = n.as_int();
    if (v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max())
      return static_cast<int32_t>(v);
    fail(at, std::to_string(v) +
                 " is out of range; write a number between -2147483648 and "
                 "2147483647");
  }
  const std::string str = text(n, at);
  std::string_view s = str;
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc() && end == s.data() + s.size() && !s.empty()) {
    if (v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max())
      return static_cast<int32_t>(v);
  } else if (ec != std::errc::result_out_of_range) {
    fail(at, quote(str) + " is not a whole number; write e.g. 1");
  }
  fail(at, str + " is out of range; write a number between -2147483648 and 2147483647");
}

std::optional<int32_t> FieldReader::int_field(const Node& map, std::string_view key,
                                              const FieldPath& parent) const {
  const Node& n = get(map, key);
  if (!present(n)) return std::nullopt;
  return int32(n, parent.field(key));
}

int32_t FieldReader::count_field(const Node& map, std::string_view key, const FieldPath& parent,
                                 int32_t fallback) const {
  const std::optional<int32_t> v = int_field(map, key, parent);
  if (v && *v < 0) fail(parent.field(key), std::to_string(*v) + " is negative; write 0 or more");
  return v.value_or(fallback);
}

std::map<std::string, std::string> FieldReader::string_map(const Node& map, std::string_view key,
                                                           const FieldPath& parent) const {
  std::map<std::string, std::string> out;
  const FieldPath at = parent.field(key);
  const Node& m = map_field(map, key, parent);
  for (const input::NodeEntry& e : m.entries()) {
    const FieldPath entry = at.field(e.key);
    out.emplace_hint(out.end(), e.key, text(e.value, entry));
  }
  return out;
}

int64_t FieldReader::timestamp(const Node& map, std::string_view key,
                               const FieldPath& parent) const {
  const FieldPath at = parent.field(key);
  const std::string s = text(get(map, key), at);
  if (s.empty()) return 0;
  const std::optional<int64_t> ms = parse_rfc3339(s);
  if (!ms) fail(at, quote(s) + " is not an RFC 3339 time; write e.g. \"2024-05-01T12:00:00Z\"");
  return *ms;
}

model::ResourceList FieldReader::resources(const Node& n, const FieldPath& at) const {
  model::ResourceList out;
  const Node& m = mapping(n, at);
  for (const input::NodeEntry& e : m.entries()) {
    const std::string name(e.key);
    const FieldPath entry = at.field(name);
    if (name.empty()) fail(at, "has an empty resource name; name it, e.g. cpu");
    const std::string raw = text(e.value, entry);
    const size_t first = raw.find_first_not_of(" \t");
    const std::string value = first == std::string::npos
                                  ? ""
                                  : raw.substr(first, raw.find_last_not_of(" \t") - first + 1);
    if (value.empty()) fail(entry, "has no value; write a quantity, e.g. \"500m\" or \"2Gi\"");
    double q = 0;
    try {
      q = model::parse_quantity(value);
    } catch (const std::invalid_argument& bad) {
      fail(entry, bad.what());
    }
    if (q < 0) fail(entry, quote(value) + " is negative; resource amounts must be 0 or more");
    out.emplace_back(name, scoria::to_resource_units(name, q));
  }
  return out;
}

std::optional<int64_t> FieldReader::parse_rfc3339(std::string_view s) {
  return scoria::parse_rfc3339(s);
}

}  // namespace scoria::decode
