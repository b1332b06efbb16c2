#include "plugin/argument_text.h"

#include <charconv>
#include <cmath>
#include <string>

namespace scoria::plugin {

std::optional<bool> bool_of(std::string_view text) {
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  return std::nullopt;
}

std::optional<int64_t> int_of(std::string_view text) {
  int64_t x = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
  if (ec != std::errc() || p != text.data() + text.size()) return std::nullopt;
  return x;
}

std::optional<double> float_of(std::string_view text) {
  // std::stod, as before: it takes what Go's ParseFloat and YAML write
  // (1e3, .5, 0x1p3 aside), and the whole text must be the number.
  try {
    const std::string s(text);
    size_t used = 0;
    const double x = std::stod(s, &used);
    if (used != s.size() || !std::isfinite(x)) return std::nullopt;
    return x;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace scoria::plugin
