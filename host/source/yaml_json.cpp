#include "source/yaml_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>

namespace scoria::source {

namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// A plain scalar as JSON: YAML 1.2 core schema booleans and numbers, else a
/// string. Quoted scalars are always strings.
nlohmann::json scalar_json(const YAML::Node& n) {
  const std::string& s = n.Scalar();
  if (n.Tag() != "?") return s;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  std::string_view body = s;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) body.remove_prefix(1);
  if (all_digits(body)) {
    int64_t v = 0;
    std::string_view t = s;
    if (t[0] == '+') t.remove_prefix(1);
    if (auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
        ec == std::errc() && end == t.data() + t.size())
      return v;
  }
  // [0-9]* ( . [0-9]* )? ( [eE] [-+]? [0-9]+ )? with at least one digit before the exponent.
  const size_t e = body.find_first_of("eE");
  const std::string_view mant = body.substr(0, e);
  const size_t dot = mant.find('.');
  const std::string_view ip = mant.substr(0, dot);
  const std::string_view fp = dot == std::string_view::npos ? "" : mant.substr(dot + 1);
  bool numeric = (all_digits(ip) || ip.empty()) && (all_digits(fp) || fp.empty()) &&
                 !(ip.empty() && fp.empty());
  if (numeric && e != std::string_view::npos) {
    std::string_view ex = body.substr(e + 1);
    if (!ex.empty() && (ex[0] == '+' || ex[0] == '-')) ex.remove_prefix(1);
    numeric = all_digits(ex);
  }
  if (numeric) {
    std::string t = s[0] == '+' ? s.substr(1) : s;
    double v = 0;
    if (auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
        ec == std::errc() && end == t.data() + t.size() && std::isfinite(v))
      return v;
  }
  return s;
}

}  // namespace

nlohmann::json yaml_to_json(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Scalar:
      return scalar_json(n);
    case YAML::NodeType::Sequence: {
      nlohmann::json a = nlohmann::json::array();
      for (auto it = n.begin(); it != n.end(); ++it) a.push_back(yaml_to_json(*it));
      return a;
    }
    case YAML::NodeType::Map: {
      nlohmann::json o = nlohmann::json::object();
      for (auto it = n.begin(); it != n.end(); ++it)
        o[it->first.IsScalar() ? it->first.Scalar() : YAML::Dump(it->first)] =
            yaml_to_json(it->second);
      return o;
    }
    default:
      return nullptr;
  }
}

}  // namespace scoria::source
