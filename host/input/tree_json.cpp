#include "input/tree_json.h"

#include <charconv>
#include <vector>

#include "input/utf8.h"

namespace scoria::input {

namespace {

using nlohmann::json;

/// A string as nlohmann::json writes it (ensure_ascii off): the short
/// escapes, \u00xx for other control characters, everything else as is.
void write_string(std::string_view s, std::string& out) {
  // nlohmann::json refuses text that is not UTF-8 (type_error 316): let it,
  // with its own exception, as it did when it wrote every object.
  for (const char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) {
      if (invalid_utf8_at(s)) out += json(std::string(s)).dump();
      break;
    }
  }
  out += '"';
  size_t run = 0;  // start of the bytes not yet copied
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.substr(run, i - run));
    run = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\r':
        out += "\\r";
        break;
      default: {
        static constexpr char kHex[] = "0123456789abcdef";
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 15];
      }
    }
  }
  out.append(s.substr(run));
  out += '"';
}

template <class T>
void write_integer(T v, std::string& out) {
  char buf[24];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end);
}

template <class T>
size_t integer_size(T v) {
  char buf[24];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return static_cast<size_t>(end - buf);
}

/// The bytes write_string writes for `s`.
size_t string_size(std::string_view s) {
  size_t n = s.size() + 2;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u == '"' || u == '\\' || u == '\b' || u == '\t' || u == '\n' || u == '\f' || u == '\r')
      n += 1;
    else if (u < 0x20)
      n += 5;
  }
  return n;
}

/// The bytes write_json writes for `node`, so that the text is made in one
/// allocation of its size (objects keep it for their lifetime).
size_t json_size(const Node& node) {
  switch (node.type()) {
    case Node::Type::kNull:
      return 4;
    case Node::Type::kBool:
      return node.as_bool() ? 4 : 5;
    case Node::Type::kInt:
      return integer_size(node.as_int());
    case Node::Type::kUint:
      return integer_size(node.as_uint());
    case Node::Type::kFloat:
      return json(node.as_double()).dump().size();
    case Node::Type::kString:
      return string_size(node.str());
    case Node::Type::kMap: {
      size_t n = 2 + (node.empty() ? 0 : node.size() - 1);
      for (const NodeEntry& e : node.entries()) n += string_size(e.key) + 1 + json_size(e.value);
      return n;
    }
    case Node::Type::kList: {
      size_t n = 2 + (node.empty() ? 0 : node.size() - 1);
      for (const Node& item : node.items()) n += json_size(item);
      return n;
    }
  }
  return 0;
}

}  // namespace

json to_json(const Node& node) {
  switch (node.type()) {
    case Node::Type::kNull:
      return nullptr;
    case Node::Type::kBool:
      return node.as_bool();
    case Node::Type::kInt:
      return node.as_int();
    case Node::Type::kUint:
      return node.as_uint();
    case Node::Type::kFloat:
      return node.as_double();
    case Node::Type::kString:
      return std::string(node.str());
    case Node::Type::kMap: {
      json out = json::object();
      auto& object = out.get_ref<json::object_t&>();
      // Sorted already: each entry goes at the end.
      for (const NodeEntry& e : node.entries())
        object.emplace_hint(object.end(), std::string(e.key), to_json(e.value));
      return out;
    }
    case Node::Type::kList: {
      json out = json::array();
      auto& array = out.get_ref<json::array_t&>();
      array.reserve(node.size());
      for (const Node& item : node.items()) array.push_back(to_json(item));
      return out;
    }
  }
  return nullptr;
}

Node from_json(const json& value, NodeArena& arena) {
  switch (value.type()) {
    case json::value_t::boolean:
      return Node::boolean(value.get<bool>());
    case json::value_t::number_integer:
      return Node::integer(value.get<int64_t>());
    case json::value_t::number_unsigned:
      return Node::unsigned_integer(value.get<uint64_t>());
    case json::value_t::number_float:
      return Node::number(value.get<double>());
    case json::value_t::string:
      return Node::string(arena.copy(value.get_ref<const std::string&>()));
    case json::value_t::object: {
      std::vector<NodeEntry> entries;
      entries.reserve(value.size());
      for (auto it = value.begin(); it != value.end(); ++it)
        entries.push_back({arena.copy(it.key()), from_json(it.value(), arena)});
      return Node::mapping(arena.copy(std::span<const NodeEntry>(entries)));
    }
    case json::value_t::array: {
      std::vector<Node> items;
      items.reserve(value.size());
      for (const json& item : value) items.push_back(from_json(item, arena));
      return Node::list(arena.copy(std::span<const Node>(items)));
    }
    default:
      return Node();
  }
}

void write_json(const Node& node, std::string& out) {
  switch (node.type()) {
    case Node::Type::kNull:
      out += "null";
      return;
    case Node::Type::kBool:
      out += node.as_bool() ? "true" : "false";
      return;
    case Node::Type::kInt:
      write_integer(node.as_int(), out);
      return;
    case Node::Type::kUint:
      write_integer(node.as_uint(), out);
      return;
    case Node::Type::kFloat:
      // Rare in objects: nlohmann::json's own shortest form.
      out += json(node.as_double()).dump();
      return;
    case Node::Type::kString:
      write_string(node.str(), out);
      return;
    case Node::Type::kMap: {
      out += '{';
      bool first = true;
      for (const NodeEntry& e : node.entries()) {
        if (!first) out += ',';
        first = false;
        write_string(e.key, out);
        out += ':';
        write_json(e.value, out);
      }
      out += '}';
      return;
    }
    case Node::Type::kList: {
      out += '[';
      bool first = true;
      for (const Node& item : node.items()) {
        if (!first) out += ',';
        first = false;
        write_json(item, out);
      }
      out += ']';
      return;
    }
  }
}

std::string dump(const Node& node) {
  std::string out;
  out.reserve(json_size(node));
  write_json(node, out);
  return out;
}

}  // namespace scoria::input
