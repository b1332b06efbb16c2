#include "decode/object_names.h"

namespace scoria::decode {

namespace {

bool alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

/// [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool label_chars(std::string_view s) {
  if (s.empty() || !alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s)
    if (!alnum(c) && c != '-') return false;
  return true;
}

std::string shown(std::string_view name) {
  // Quote it printable: the name itself may be what is wrong.
  std::string out = "\"";
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

}  // namespace

std::optional<std::string> subdomain_error(std::string_view name) {
  if (name.size() > 253)
    return shown(name.substr(0, 40)) + "... is longer than 253 characters; shorten it";
  size_t start = 0;
  while (true) {
    const size_t dot = name.find('.', start);
    const std::string_view part = name.substr(start, dot - start);
    if (!label_chars(part)) {
      return shown(name) +
             " is not a valid name: use lower case letters, digits, '-' and '.', starting and "
             "ending with a letter or digit (e.g. \"job-0\" or \"example.com\")";
    }
    if (dot == std::string_view::npos) return std::nullopt;
    start = dot + 1;
  }
}

std::optional<std::string> label_error(std::string_view name) {
  if (name.size() > 63)
    return shown(name.substr(0, 40)) + "... is longer than 63 characters; shorten it";
  if (!label_chars(name)) {
    return shown(name) +
           " is not a valid namespace: use lower case letters, digits and '-', starting and "
           "ending with a letter or digit (e.g. \"team-a\")";
  }
  return std::nullopt;
}

}  // namespace scoria::decode
