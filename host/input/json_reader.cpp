#include "input/json_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace scoria::input {

namespace {

using nlohmann::json;

/// Builds the tree as nlohmann's own DOM parser does, refusing (returning
/// false, which stops the parse) wherever the YAML reader could differ or
/// a limit is passed.
class TreeSax {
 public:
  explicit TreeSax(const Limits& limits) : limits_(limits) {}

  bool null() { return put(json(nullptr)); }
  bool boolean(bool v) { return put(json(v)); }
  bool number_integer(json::number_integer_t v) { return put(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) {
    // The YAML reader's integers are signed; past int64 they are doubles.
    if (v <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return put(json(static_cast<int64_t>(v)));
    return put(json(static_cast<double>(v)));
  }
  bool number_float(json::number_float_t v, const std::string& text) {
    // The YAML reader keeps a number it cannot hold (past a double's range,
    // or below it: 1e-400) as a string; from_chars tells which.
    double exact = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), exact);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) return false;
    return put(json(v));
  }
  bool string(std::string& v) { return plain(v) && put(json(std::move(v))); }
  bool binary(json::binary_t& /*v*/) { return false; }

  bool start_object(std::size_t /*size*/) { return open(json::object()); }
  bool start_array(std::size_t /*size*/) { return open(json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(std::string& k) {
    if (!plain(k)) return false;
    json& object = *stack_.back();
    const auto [it, fresh] = object.get_ref<json::object_t&>().try_emplace(std::move(k));
    if (!fresh) return false;  // a key twice: the YAML reader words the refusal
    slot_ = &it->second;
    return true;
  }

  bool parse_error(std::size_t /*position*/, const std::string& /*token*/,
                   const nlohmann::detail::exception& /*e*/) {
    return false;
  }

  json take() { return std::move(root_); }

 private:
  // Within the scalar limit, and no NUL from an escape (left to the YAML
  // reader's rules).
  bool plain(const std::string& s) const {
    return s.size() <= limits_.max_scalar_bytes && s.find('\0') == std::string::npos;
  }

  bool put(json&& v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return true;
    }
    json& top = *stack_.back();
    if (top.is_array()) {
      top.get_ref<json::array_t&>().push_back(std::move(v));
    } else {
      *slot_ = std::move(v);
    }
    return true;
  }

  // A container's address stays put while it is open: its parent does not
  // grow until it is closed.
  bool open(json&& container) {
    if (stack_.size() >= limits_.max_depth) return false;
    json* at = nullptr;
    if (stack_.empty()) {
      root_ = std::move(container);
      at = &root_;
    } else if (json& top = *stack_.back(); top.is_array()) {
      auto& items = top.get_ref<json::array_t&>();
      items.push_back(std::move(container));
      at = &items.back();
    } else {
      *slot_ = std::move(container);
      at = slot_;
    }
    stack_.push_back(at);
    return true;
  }

  bool close() {
    stack_.pop_back();
    return true;
  }

  const Limits& limits_;
  json root_;
  std::vector<json*> stack_;
  json* slot_ = nullptr;  // the value of the key last read
};

}  // namespace

std::optional<json> read_strict_json(std::string_view text, const Limits& limits) {
  TreeSax sax(limits);
  // Strict: one value and nothing after it but blanks; no comments.
  const bool ok = json::sax_parse(text.begin(), text.end(), &sax, json::input_format_t::json,
                                  /*strict=*/true, /*ignore_comments=*/false);
  if (!ok) return std::nullopt;
  return sax.take();
}

size_t json_nesting(std::string_view text) {
  size_t depth = 0;
  size_t deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

}  // namespace scoria::input
