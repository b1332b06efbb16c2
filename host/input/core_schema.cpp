#include "input/core_schema.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <system_error>

namespace scoria::input {

namespace {

bool digits_only(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

Node plain_scalar(std::string_view s, NodeArena& arena) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return Node();
  if (s == "true" || s == "True" || s == "TRUE") return Node::boolean(true);
  if (s == "false" || s == "False" || s == "FALSE") return Node::boolean(false);
  const char c = s[0];
  if (!(c == '+' || c == '-' || c == '.' || (c >= '0' && c <= '9')))
    return Node::string(arena.copy(s));
  std::string_view body = s;
  if (body[0] == '+' || body[0] == '-') body.remove_prefix(1);
  if (digits_only(body)) {
    int64_t v = 0;
    std::string_view t = s[0] == '+' ? s.substr(1) : s;
    if (auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
        ec == std::errc() && end == t.data() + t.size())
      return Node::integer(v);
  }
  // [0-9]* ( . [0-9]* )? ( [eE] [-+]? [0-9]+ )? with a digit before the exponent.
  const size_t e = body.find_first_of("eE");
  const std::string_view mant = body.substr(0, e);
  const size_t dot = mant.find('.');
  const std::string_view ip = mant.substr(0, dot);
  const std::string_view fp = dot == std::string_view::npos ? "" : mant.substr(dot + 1);
  bool numeric = (digits_only(ip) || ip.empty()) && (digits_only(fp) || fp.empty()) &&
                 !(ip.empty() && fp.empty());
  if (numeric && e != std::string_view::npos) {
    std::string_view ex = body.substr(e + 1);
    if (!ex.empty() && (ex[0] == '+' || ex[0] == '-')) ex.remove_prefix(1);
    numeric = digits_only(ex);
  }
  if (numeric) {
    std::string_view t = s[0] == '+' ? s.substr(1) : s;
    double v = 0;
    if (auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
        ec == std::errc() && end == t.data() + t.size() && std::isfinite(v))
      return Node::number(v);
  }
  return Node::string(arena.copy(s));
}

}  // namespace scoria::input
