// quantity.hpp — Kubernetes resource quantities, for plugins and the host
// alike.
//
// The host reads every quantity of the objects it loads ("500m", "4Gi",
// "1e3") with parse_quantity and turns it into the units of resource
// vectors with to_resource_units; a plugin reading a quantity from an
// object's JSON (a ResourceQuota's hard limits, say) does the same with the
// same functions, so both sides agree on every spelling and every rounding.
//
// Header-only, C++20, no plugin state: include it alone or through
// scoria.hpp.
#ifndef SCORIA_QUANTITY_HPP
#define SCORIA_QUANTITY_HPP

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace scoria {

namespace quantity_detail {

struct Suffix {
  std::string_view text;
  int base;  // 10 or 2
  int exponent;
};

// Kubernetes' suffixes: decimal SI (the empty suffix is 10^0) and binary SI.
inline constexpr std::array<Suffix, 15> kSuffixes{{
    {"n", 10, -9},
    {"u", 10, -6},
    {"m", 10, -3},
    {"k", 10, 3},
    {"M", 10, 6},
    {"G", 10, 9},
    {"T", 10, 12},
    {"P", 10, 15},
    {"E", 10, 18},
    {"Ki", 2, 10},
    {"Mi", 2, 20},
    {"Gi", 2, 30},
    {"Ti", 2, 40},
    {"Pi", 2, 50},
    {"Ei", 2, 60},
}};

// Binary suffixes for formatting memory, largest first.
inline constexpr std::array<std::pair<std::string_view, int>, 6> kBinary{{
    {"Ei", 60},
    {"Pi", 50},
    {"Ti", 40},
    {"Gi", 30},
    {"Mi", 20},
    {"Ki", 10},
}};

// Integers beyond this do not fit int64_t; formatting falls back to a double.
inline constexpr double kInt64Limit = 9.2e18;

// Kubernetes' resource.Quantity caps every quantity at math.MaxInt64 in its
// own unit (quantity.go: maxAllowed), i.e. 2^63 - 1: "8Ei". 2^63 - 1 rounds to
// 2^63 as a double, so exactly that value still passes; anything larger is
// refused, since silently capping it as the API server does would change what
// the text says, and scaling it further (cpu to millicores, sums over many
// pods) is where doubles ran off to infinity.
inline constexpr double kMaxQuantity = 0x1p63;
inline constexpr std::string_view kTooLarge =
    "it is too large: Kubernetes caps quantities at 2^63-1 (9223372036854775807, about "
    "8Ei)";

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

inline std::string shortest(double value) {
  std::array<char, 32> buf{};
  auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), value);
  return ec == std::errc() ? std::string(buf.data(), end) : std::to_string(value);
}

// "4000" millis -> "4", "500" -> "500m": whole units when exact, else milli.
inline std::string format_milli(double milli) {
  if (!std::isfinite(milli) || std::fabs(milli) >= kInt64Limit) return shortest(milli / 1000);
  const long long m = std::llround(milli);
  if (m % 1000 == 0) return std::to_string(m / 1000);
  return std::to_string(m) + "m";
}

inline std::string format_bytes(double bytes) {
  if (!std::isfinite(bytes) || std::fabs(bytes) >= kInt64Limit) return shortest(bytes);
  const long long b = std::llround(bytes);
  if (b == 0) return "0";
  for (const auto& [suffix, shift] : kBinary) {
    const long long unit = 1LL << shift;
    if (b % unit == 0) return std::to_string(b / unit) + std::string(suffix);
  }
  return std::to_string(b);
}

inline std::string format_count(double count) {
  if (!std::isfinite(count) || std::fabs(count) >= kInt64Limit) return shortest(count);
  return std::to_string(std::llround(count));
}

inline std::optional<double> fail(std::string* why, std::string_view what) {
  if (why != nullptr) *why = std::string(what);
  return std::nullopt;
}

}  // namespace quantity_detail

/// A Kubernetes quantity's plain value ("500m" -> 0.5, "4Gi" ->
/// 4294967296), by Kubernetes' grammar: [sign] digits [. digits] [suffix],
/// the suffix one of n u m k M G T P E Ki Mi Gi Ti Pi Ei or an exponent
/// (e3, E-2); "1." and ".5" are numbers. Unlike Go's parser at least one
/// digit is required, so "-", "m" or "Gi" are refused rather than read as
/// zero, as is a magnitude beyond Kubernetes' cap of 2^63-1 ("1e307",
/// "9Ei"). nullopt when `text` is not one, with why in *why when given
/// ("unknown suffix ...": a phrase, to follow "is not a quantity").
inline std::optional<double> parse_quantity(std::string_view text, std::string* why = nullptr) {
  using namespace quantity_detail;
  if (text.empty()) return fail(why, "it is empty");
  size_t pos = 0;
  bool negative = false;
  if (text[0] == '+' || text[0] == '-') {
    negative = text[0] == '-';
    ++pos;
  }
  const size_t int_begin = pos;
  while (pos < text.size() && is_digit(text[pos])) ++pos;
  const std::string_view int_digits = text.substr(int_begin, pos - int_begin);
  std::string_view frac_digits;
  if (pos < text.size() && text[pos] == '.') {
    const size_t frac_begin = ++pos;
    while (pos < text.size() && is_digit(text[pos])) ++pos;
    frac_digits = text.substr(frac_begin, pos - frac_begin);
  }
  if (int_digits.empty() && frac_digits.empty())
    return fail(why, "it does not start with a number");

  const std::string_view suffix = text.substr(pos);
  int base = 10;
  long long exponent = 0;
  const auto known = std::find_if(kSuffixes.begin(), kSuffixes.end(),
                                  [&](const Suffix& s) { return s.text == suffix; });
  if (known != kSuffixes.end()) {
    base = known->base;
    exponent = known->exponent;
  } else if (suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    std::string_view digits = suffix.substr(1);
    const size_t sign = digits[0] == '+' || digits[0] == '-' ? 1 : 0;
    if (digits.size() == sign || !std::all_of(digits.begin() + sign, digits.end(), is_digit))
      return fail(why, "the exponent must be a whole number, as in \"1e3\"");
    if (digits[0] == '+') digits.remove_prefix(1);  // from_chars takes no '+'
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), exponent);
    if (ec != std::errc() || end != digits.data() + digits.size())
      return fail(why, "the exponent is out of range");
  } else if (!suffix.empty()) {
    return fail(why, "unknown suffix \"" + std::string(suffix) +
                         "\": use n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei or an "
                         "exponent such as e3");
  }

  // One correctly rounded conversion of "<digits>e<exp>", so that "0.1k" is
  // exactly the double nearest to 100 rather than 0.1 * 1000.
  std::string mantissa(int_digits);
  mantissa += frac_digits;
  const size_t first = mantissa.find_first_not_of('0');
  if (first == std::string::npos) return 0.0;
  long long decimal_exp = -static_cast<long long>(frac_digits.size());
  if (base == 10) decimal_exp += exponent;
  // Far beyond any double; keeps the string below from carrying a silly exponent.
  if (decimal_exp > 100000) return fail(why, kTooLarge);
  if (decimal_exp < -100000)
    return negative ? -std::numeric_limits<double>::denorm_min()
                    : std::numeric_limits<double>::denorm_min();
  std::string number = mantissa.substr(first) + "e" + std::to_string(decimal_exp);
  double value = 0;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec == std::errc::result_out_of_range) {
    // Underflow keeps a positive sign so that rounding up to whole units
    // gives 1, as Kubernetes rounds sub-nano amounts up.
    if (decimal_exp >= 0) return fail(why, kTooLarge);
    value = std::numeric_limits<double>::denorm_min();
  } else if (ec != std::errc() || end != number.data() + number.size()) {
    return fail(why, "it is not a number");
  }
  if (base == 2) value = std::ldexp(value, static_cast<int>(exponent));
  if (!std::isfinite(value) || value > kMaxQuantity) return fail(why, kTooLarge);
  return negative ? -value : value;
}

/// How many units of a resource vector one of resource `name` is: 1 for
/// memory (bytes) and pods (a count), 1000 for every other resource (cpu in
/// millicores, everything else in milli-units, as Volcano counts), whatever
/// its name says (requests.memory, count/pods: milli-units too).
inline double resource_scale(std::string_view name) {
  return name == "memory" || name == "pods" ? 1 : 1000;
}

/// A plain quantity of resource `name` (from parse_quantity) in the units
/// of resource vectors, rounded up to a whole unit as Kubernetes'
/// MilliValue() and Value() round, which is what Volcano counts with.
inline double to_resource_units(std::string_view name, double quantity) {
  const double scaled = quantity * resource_scale(name);
  // The quantity is the double nearest a decimal, so `scaled` may sit a
  // rounding error off a whole number: that is the whole number.
  const double nearest = std::nearbyint(scaled);
  if (std::fabs(scaled - nearest) <= 4 * std::numeric_limits<double>::epsilon() * nearest)
    return nearest;
  return std::ceil(scaled);
}

/// An amount of resource `name` in the units of resource vectors, written
/// as kubectl shows it: cpu "4" or "500m", memory "8Gi" / "1536Mi" /
/// "1000", pods as a count, others as whole units or milli ("2", "1500m").
inline std::string format_resource(std::string_view name, double amount) {
  using namespace quantity_detail;
  if (name == "memory") return format_bytes(amount);
  if (name == "pods") return format_count(amount);
  return format_milli(amount);
}

}  // namespace scoria

#endif  // SCORIA_QUANTITY_HPP
