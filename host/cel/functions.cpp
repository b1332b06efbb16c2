#include "cel/functions.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <regex>

namespace scoria::cel {

namespace {

Value no_overload(const std::string& name, std::span<const Value> args) {
  std::string types;
  for (size_t i = 0; i < args.size(); ++i)
    types += (i ? ", " : "") + std::string(type_name(args[i]));
  return Error{"no such overload: " + name + "(" + types + ")"};
}

int64_t code_points(const std::string& s) {
  int64_t n = 0;
  for (const char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

Value to_int(const Value& v) {
  if (v.is<int64_t>()) return v;
  if (v.is<uint64_t>()) {
    if (v.as<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return Error{"int() range error"};
    return static_cast<int64_t>(v.as<uint64_t>());
  }
  if (v.is<double>()) {
    const double d = v.as<double>();
    if (!(d > -9223372036854775809.0 && d < 9223372036854775808.0))
      return Error{"int() range error"};
    return static_cast<int64_t>(d);
  }
  if (v.is<std::string>()) {
    const std::string& s = v.as<std::string>();
    errno = 0;
    char* end = nullptr;
    const long long i = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || errno == ERANGE ||
        std::isspace(static_cast<unsigned char>(s[0])))
      return Error{"int() cannot convert \"" + s + "\""};
    return static_cast<int64_t>(i);
  }
  return no_overload("int", std::span(&v, 1));
}

Value to_uint(const Value& v) {
  if (v.is<uint64_t>()) return v;
  if (v.is<int64_t>()) {
    if (v.as<int64_t>() < 0) return Error{"uint() range error"};
    return static_cast<uint64_t>(v.as<int64_t>());
  }
  if (v.is<double>()) {
    const double d = v.as<double>();
    if (!(d > -1.0 && d < 18446744073709551616.0)) return Error{"uint() range error"};
    return static_cast<uint64_t>(d);
  }
  if (v.is<std::string>()) {
    const std::string& s = v.as<std::string>();
    errno = 0;
    char* end = nullptr;
    const unsigned long long u = std::strtoull(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || errno == ERANGE || s[0] == '-' || s[0] == '+' ||
        std::isspace(static_cast<unsigned char>(s[0])))
      return Error{"uint() cannot convert \"" + s + "\""};
    return static_cast<uint64_t>(u);
  }
  return no_overload("uint", std::span(&v, 1));
}

Value to_double(const Value& v) {
  if (v.is<double>()) return v;
  if (v.is<int64_t>()) return static_cast<double>(v.as<int64_t>());
  if (v.is<uint64_t>()) return static_cast<double>(v.as<uint64_t>());
  if (v.is<std::string>()) {
    const std::string& s = v.as<std::string>();
    char* end = nullptr;
    const double d = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0' || std::isspace(static_cast<unsigned char>(s[0])))
      return Error{"double() cannot convert \"" + s + "\""};
    return d;
  }
  return no_overload("double", std::span(&v, 1));
}

Value to_string(const Value& v) {
  if (v.is<std::string>()) return v;
  if (v.is<int64_t>()) return std::to_string(v.as<int64_t>());
  if (v.is<uint64_t>()) return std::to_string(v.as<uint64_t>());
  if (v.is<bool>()) return std::string(v.as<bool>() ? "true" : "false");
  if (v.is<Bytes>()) return v.as<Bytes>().data;
  if (v.is<double>()) {
    std::string s = debug_string(v);
    return s;
  }
  return no_overload("string", std::span(&v, 1));
}

Value matches(const std::string& text, const std::string& pattern, uint64_t& cost) {
  if (text.size() > kMaxMatchBytes || pattern.size() > kMaxMatchBytes)
    return Error{"matches() takes at most " + std::to_string(kMaxMatchBytes) + " bytes"};
  cost += text.size() + pattern.size();
  try {
    const std::regex re(pattern, std::regex::ECMAScript);
    return std::regex_search(text, re);
  } catch (const std::regex_error& e) {
    return Error{"matches(): the pattern \"" + pattern + "\" is not valid: " + e.what()};
  }
}

std::string ascii_case(std::string s, bool upper) {
  for (char& c : s) {
    if (upper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
    if (!upper && c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  return s;
}

// Kubernetes' quantity and semver libraries; null when `name` is none of
// theirs for these arguments.
Value kubernetes_library(const std::string& name, bool member, std::span<const Value> args) {
  const size_t n = args.size();
  const auto str = [&](size_t i) { return i < n && args[i].is<std::string>(); };
  if (!member && (name == "quantity" || name == "isQuantity") && n == 1 && str(0)) {
    const std::optional<Quantity> q = parse_quantity(args[0].as<std::string>());
    if (name == "isQuantity") return q.has_value();
    if (!q) return Error{"quantity(): \"" + args[0].as<std::string>() + "\" is not a quantity"};
    return *q;
  }
  if (!member && (name == "semver" || name == "isSemver") && (n == 1 || n == 2) && str(0) &&
      (n == 1 || args[1].is<bool>())) {
    const std::optional<Semver> v =
        parse_semver(args[0].as<std::string>(), n == 2 && args[1].as<bool>());
    if (name == "isSemver") return v.has_value();
    if (!v) return Error{"semver(): \"" + args[0].as<std::string>() + "\" is not a version"};
    return *v;
  }
  if (member && n >= 1 && args[0].is<Quantity>()) {
    const Quantity& q = args[0].as<Quantity>();
    if (n == 1) {
      if (name == "isInteger") return is_integer(q);
      if (name == "asInteger") {
        if (const std::optional<int64_t> i = as_integer(q)) return *i;
        return Error{"asInteger(): " + to_string(q) + " is not an integer in 64 bits"};
      }
      if (name == "asApproximateFloat") return as_double(q);
      if (name == "sign") return int64_t{sign(q)};
    }
    if (n == 2) {
      std::optional<Quantity> other;
      if (args[1].is<Quantity>()) other = args[1].as<Quantity>();
      if (args[1].is<int64_t>() && (name == "add" || name == "sub"))
        other = Quantity{args[1].as<int64_t>(), 0};
      if (other) {
        const int c = compare(q, *other);
        if (name == "compareTo") return int64_t{c};
        if (name == "isGreaterThan") return c > 0;
        if (name == "isLessThan") return c < 0;
        if (name == "add" || name == "sub") {
          if (const std::optional<Quantity> r = add(q, *other, name == "sub")) return *r;
          return Error{name + "(): the quantity overflows"};
        }
      }
    }
  }
  if (member && n >= 1 && args[0].is<Semver>()) {
    const Semver& v = args[0].as<Semver>();
    if (n == 1 && name == "major") return static_cast<int64_t>(v.major);
    if (n == 1 && name == "minor") return static_cast<int64_t>(v.minor);
    if (n == 1 && name == "patch") return static_cast<int64_t>(v.patch);
    if (n == 2 && args[1].is<Semver>()) {
      const int c = compare(v, args[1].as<Semver>());
      if (name == "compareTo") return int64_t{c};
      if (name == "isGreaterThan") return c > 0;
      if (name == "isLessThan") return c < 0;
    }
  }
  return Null{};
}

}  // namespace

Value call(const std::string& name, bool member, std::span<const Value> args, uint64_t& cost) {
  const size_t n = args.size();
  const auto str = [&](size_t i) { return i < n && args[i].is<std::string>(); };
  if (name == "size" && n == 1) {
    const Value& v = args[0];
    if (v.is<std::string>()) {
      cost += v.as<std::string>().size() / 8;
      return code_points(v.as<std::string>());
    }
    if (v.is<Bytes>()) return static_cast<int64_t>(v.as<Bytes>().data.size());
    if (v.is_list()) return static_cast<int64_t>(v.list().size());
    if (v.is_map()) return static_cast<int64_t>(v.map().size());
  }
  if (member && n == 2 && str(0) && str(1)) {
    const std::string& s = args[0].as<std::string>();
    const std::string& t = args[1].as<std::string>();
    cost += (s.size() + t.size()) / 8;
    if (name == "contains") return s.find(t) != std::string::npos;
    if (name == "startsWith") return s.compare(0, t.size(), t) == 0 && s.size() >= t.size();
    if (name == "endsWith")
      return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
    if (name == "matches") return matches(s, t, cost);
  }
  if (!member && name == "matches" && n == 2 && str(0) && str(1))
    return matches(args[0].as<std::string>(), args[1].as<std::string>(), cost);
  if (member && n == 1 && str(0) && (name == "lowerAscii" || name == "upperAscii")) {
    cost += args[0].as<std::string>().size() / 8;
    return ascii_case(args[0].as<std::string>(), name == "upperAscii");
  }
  if (const Value r = kubernetes_library(name, member, args); !r.is<Null>()) return r;
  if (!member && n == 1) {
    if (name == "int") return to_int(args[0]);
    if (name == "uint") return to_uint(args[0]);
    if (name == "double") return to_double(args[0]);
    if (name == "string") return to_string(args[0]);
    if (name == "dyn") return args[0];
    if (name == "bool") {
      if (args[0].is<bool>()) return args[0];
      if (str(0)) {
        const std::string& s = args[0].as<std::string>();
        if (s == "true" || s == "TRUE" || s == "True" || s == "t" || s == "1") return true;
        if (s == "false" || s == "FALSE" || s == "False" || s == "f" || s == "0") return false;
        return Error{"bool() cannot convert \"" + s + "\""};
      }
    }
  }
  return no_overload(name, args);
}

}  // namespace scoria::cel
