#include "cel/semver.h"

namespace scoria::cel {

namespace {

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

bool identifier_chars(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-'))
      return false;
  return true;
}

// A numeric part: digits without a leading zero, within 64 bits.
std::optional<uint64_t> number(std::string_view s) {
  if (!all_digits(s) || (s.size() > 1 && s[0] == '0') || s.size() > 19) return std::nullopt;
  uint64_t v = 0;
  for (const char c : s) v = v * 10 + static_cast<uint64_t>(c - '0');
  return v;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t at = s.find(sep, start);
    out.push_back(s.substr(start, at == std::string_view::npos ? at : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

}  // namespace

std::optional<Semver> parse_semver(std::string_view text, bool normalize) {
  if (normalize && !text.empty() && text[0] == 'v') text.remove_prefix(1);
  Semver v;
  if (const size_t plus = text.find('+'); plus != std::string_view::npos) {
    const std::string_view build = text.substr(plus + 1);
    for (std::string_view part : split(build, '.'))
      if (!identifier_chars(part)) return std::nullopt;
    v.build = std::string(build);
    text = text.substr(0, plus);
  }
  if (const size_t dash = text.find('-'); dash != std::string_view::npos) {
    for (std::string_view part : split(text.substr(dash + 1), '.')) {
      if (!identifier_chars(part)) return std::nullopt;
      if (all_digits(part) && part.size() > 1 && part[0] == '0') return std::nullopt;
      v.pre.emplace_back(part);
    }
    text = text.substr(0, dash);
  }
  std::vector<std::string_view> core = split(text, '.');
  if (normalize)
    while (core.size() < 3) core.emplace_back("0");
  if (core.size() != 3) return std::nullopt;
  const auto major = number(core[0]), minor = number(core[1]), patch = number(core[2]);
  if (!major || !minor || !patch) return std::nullopt;
  v.major = *major;
  v.minor = *minor;
  v.patch = *patch;
  return v;
}

int compare(const Semver& a, const Semver& b) {
  for (const auto& [x, y] :
       {std::pair{a.major, b.major}, std::pair{a.minor, b.minor}, std::pair{a.patch, b.patch}})
    if (x != y) return x < y ? -1 : 1;
  // A pre-release ranks below its release; identifiers compare one by one,
  // numbers as numbers and below words; more identifiers rank higher.
  if (a.pre.empty() != b.pre.empty()) return a.pre.empty() ? 1 : -1;
  for (size_t i = 0; i < a.pre.size() && i < b.pre.size(); ++i) {
    const std::string& x = a.pre[i];
    const std::string& y = b.pre[i];
    const bool nx = all_digits(x), ny = all_digits(y);
    if (nx && ny) {
      if (x.size() != y.size()) return x.size() < y.size() ? -1 : 1;
      if (x != y) return x < y ? -1 : 1;
    } else if (nx != ny) {
      return nx ? -1 : 1;
    } else if (x != y) {
      return x < y ? -1 : 1;
    }
  }
  if (a.pre.size() != b.pre.size()) return a.pre.size() < b.pre.size() ? -1 : 1;
  return 0;
}

std::string to_string(const Semver& v) {
  std::string out =
      std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.patch);
  for (size_t i = 0; i < v.pre.size(); ++i) out += (i == 0 ? "-" : ".") + v.pre[i];
  if (!v.build.empty()) out += "+" + v.build;
  return out;
}

}  // namespace scoria::cel
