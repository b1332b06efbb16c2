#include "cel/value.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace scoria::cel {

namespace {

template <class... F>
struct Overload : F... {
  using F::operator()...;
};
template <class... F>
Overload(F...) -> Overload<F...>;

bool is_number(const Value& v) { return v.is<int64_t>() || v.is<uint64_t>() || v.is<double>(); }

// -1, 0, 1 for two numbers of any of CEL's numeric types, exactly (no
// rounding of large ints through double); 2 when unordered (NaN).
int compare_numbers(const Value& a, const Value& b) {
  const auto sign = [](auto x, auto y) { return x < y ? -1 : (y < x ? 1 : 0); };
  // An int against a double: compared exactly where the double is integral
  // and in range, else by the double's side of the int's range.
  const auto int_double = [&](int64_t i, double d) {
    if (std::isnan(d)) return 2;
    if (d >= 9223372036854775808.0) return -1;
    if (d < -9223372036854775808.0) return 1;
    const double t = std::trunc(d);
    const int c = sign(i, static_cast<int64_t>(t));
    return c != 0 ? c : (t < d ? -1 : (t > d ? 1 : 0));
  };
  const auto uint_double = [&](uint64_t u, double d) {
    if (std::isnan(d)) return 2;
    if (d >= 18446744073709551616.0) return -1;
    if (d < 0) return 1;
    const double t = std::trunc(d);
    const int c = sign(u, static_cast<uint64_t>(t));
    return c != 0 ? c : (t < d ? -1 : 0);
  };
  return std::visit(
      Overload{
          [&](int64_t x, int64_t y) { return sign(x, y); },
          [&](uint64_t x, uint64_t y) { return sign(x, y); },
          [&](double x, double y) { return std::isnan(x) || std::isnan(y) ? 2 : sign(x, y); },
          [&](int64_t x, uint64_t y) { return x < 0 ? -1 : sign(static_cast<uint64_t>(x), y); },
          [&](uint64_t x, int64_t y) { return y < 0 ? 1 : sign(x, static_cast<uint64_t>(y)); },
          [&](int64_t x, double y) { return int_double(x, y); },
          [&](double x, int64_t y) {
            const int c = int_double(y, x);
            return c == 2 ? 2 : -c;
          },
          [&](uint64_t x, double y) { return uint_double(x, y); },
          [&](double x, uint64_t y) {
            const int c = uint_double(y, x);
            return c == 2 ? 2 : -c;
          },
          [](const auto&, const auto&) { return 2; }},
      a.v, b.v);
}

Value first_error(const Value& a, const Value& b) { return a.is_error() ? a : b; }

}  // namespace

std::string_view type_name(const Value& v) {
  return std::visit(
      Overload{[](Null) { return "null_type"; }, [](bool) { return "bool"; },
               [](int64_t) { return "int"; }, [](uint64_t) { return "uint"; },
               [](double) { return "double"; }, [](const std::string&) { return "string"; },
               [](const Bytes&) { return "bytes"; },
               [](const std::shared_ptr<const List>&) { return "list"; },
               [](const std::shared_ptr<const Map>&) { return "map"; },
               [](const Error&) { return "error"; },
               [](const Quantity&) { return "kubernetes.Quantity"; },
               [](const Semver&) { return "kubernetes.Semver"; }},
      v.v);
}

Value equals(const Value& a, const Value& b) {
  if (a.is_error() || b.is_error()) return first_error(a, b);
  if (is_number(a) && is_number(b)) return compare_numbers(a, b) == 0;
  if (a.v.index() != b.v.index()) return false;
  if (a.is<Quantity>()) return compare(a.as<Quantity>(), b.as<Quantity>()) == 0;
  if (a.is<Semver>()) return compare(a.as<Semver>(), b.as<Semver>()) == 0;
  if (a.is_list()) {
    const List& x = a.list();
    const List& y = b.list();
    if (x.size() != y.size()) return false;
    Value result = true;
    for (size_t i = 0; i < x.size(); ++i) {
      const Value e = equals(x[i], y[i]);
      if (e.is_error())
        result = e;
      else if (!e.as<bool>())
        return false;
    }
    return result;
  }
  if (a.is_map()) {
    const Map& x = a.map();
    const Map& y = b.map();
    if (x.size() != y.size()) return false;
    Value result = true;
    for (const auto& [key, value] : x) {
      const Value* other = find(y, key);
      if (other == nullptr) return false;
      const Value e = equals(value, *other);
      if (e.is_error())
        result = e;
      else if (!e.as<bool>())
        return false;
    }
    return result;
  }
  return a.v == b.v;
}

Value compare(const Value& a, const Value& b) {
  if (a.is_error() || b.is_error()) return first_error(a, b);
  if (is_number(a) && is_number(b)) {
    const int c = compare_numbers(a, b);
    if (c == 2) return Error{"NaN is not ordered"};
    return int64_t{c};
  }
  if (a.v.index() == b.v.index()) {
    const auto sign = [](const auto& x, const auto& y) {
      return int64_t{x < y ? -1 : (y < x ? 1 : 0)};
    };
    if (a.is<std::string>()) return sign(a.as<std::string>(), b.as<std::string>());
    if (a.is<Bytes>()) return sign(a.as<Bytes>().data, b.as<Bytes>().data);
    if (a.is<bool>()) return sign(a.as<bool>(), b.as<bool>());
  }
  return Error{"no such overload: ordering of " + std::string(type_name(a)) + " and " +
               std::string(type_name(b))};
}

const Value* find(const Map& map, const Value& key) {
  for (const auto& [k, value] : map) {
    const Value e = equals(k, key);
    if (e.is<bool>() && e.as<bool>()) return &value;
  }
  return nullptr;
}

std::string debug_string(const Value& v) {
  return std::visit(Overload{[](Null) -> std::string { return "null"; },
                             [](bool b) -> std::string { return b ? "true" : "false"; },
                             [](int64_t i) { return std::to_string(i); },
                             [](uint64_t u) { return std::to_string(u) + "u"; },
                             [](double d) {
                               char text[32];
                               std::snprintf(text, sizeof text, "%.17g", d);
                               return std::string(text);
                             },
                             [](const std::string& s) { return "\"" + s + "\""; },
                             [](const Bytes& b) { return "b\"" + b.data + "\""; },
                             [](const std::shared_ptr<const List>& l) {
                               std::string out = "[";
                               for (size_t i = 0; i < l->size(); ++i)
                                 out += (i ? ", " : "") + debug_string((*l)[i]);
                               return out + "]";
                             },
                             [](const std::shared_ptr<const Map>& m) {
                               std::string out = "{";
                               for (size_t i = 0; i < m->size(); ++i)
                                 out += (i ? ", " : "") + debug_string((*m)[i].first) + ": " +
                                        debug_string((*m)[i].second);
                               return out + "}";
                             },
                             [](const Error& e) { return "error(" + e.message + ")"; },
                             [](const Quantity& q) { return "quantity(\"" + to_string(q) + "\")"; },
                             [](const Semver& s) { return "semver(\"" + to_string(s) + "\")"; }},
                    v.v);
}

}  // namespace scoria::cel
