#include "cel/quantity.h"

#include <array>
#include <cmath>
#include <limits>
#include <utility>

namespace scoria::cel {

namespace {

// Mantissas stay below this, so that aligning two of them (a multiply by
// ten) or adding them never leaves 128 bits.
constexpr Int128 kLimit = static_cast<Int128>(1) << 120;

// `q` rescaled to `exponent` (not above its own); none if it would grow
// past kLimit.
std::optional<Int128> at_exponent(const Quantity& q, int32_t exponent) {
  Int128 m = q.mantissa;
  for (int32_t e = q.exponent; e > exponent; --e) {
    if (m > kLimit / 10 || m < -kLimit / 10) return std::nullopt;
    m *= 10;
  }
  return m;
}

// Trailing zeros of the mantissa moved into the exponent.
Quantity normal(Quantity q) {
  if (q.mantissa == 0) return {0, 0};
  while (q.mantissa % 10 == 0) {
    q.mantissa /= 10;
    ++q.exponent;
  }
  return q;
}

}  // namespace

std::optional<Quantity> parse_quantity(std::string_view text) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  Quantity q;
  bool digits = false;
  bool fraction = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.' && !fraction) {
      fraction = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    digits = true;
    if (q.mantissa > kLimit / 10) return std::nullopt;
    q.mantissa = q.mantissa * 10 + (c - '0');
    if (fraction) --q.exponent;
  }
  if (!digits) return std::nullopt;
  const std::string_view suffix = text.substr(i);
  int binary = 0;  // powers of 1024
  if (suffix.empty()) {
  } else if (suffix.size() == 2 && suffix[1] == 'i') {
    constexpr std::string_view kBinary = "KMGTPE";
    const size_t k = kBinary.find(suffix[0]);
    if (k == std::string_view::npos) return std::nullopt;
    binary = static_cast<int>(k) + 1;
  } else if (suffix.size() == 1) {
    constexpr std::array<std::pair<char, int>, 9> kDecimal = {{{'n', -9},
                                                               {'u', -6},
                                                               {'m', -3},
                                                               {'k', 3},
                                                               {'M', 6},
                                                               {'G', 9},
                                                               {'T', 12},
                                                               {'P', 15},
                                                               {'E', 18}}};
    bool found = false;
    for (const auto& [c, e] : kDecimal)
      if (suffix[0] == c) {
        q.exponent += e;
        found = true;
      }
    if (!found) return std::nullopt;
  } else if (suffix[0] == 'e' || suffix[0] == 'E') {  // after "E", exa
    // A decimal exponent: 1e3, 2E-2.
    size_t j = 1;
    bool neg = false;
    if (j < suffix.size() && (suffix[j] == '+' || suffix[j] == '-')) neg = suffix[j++] == '-';
    if (j >= suffix.size()) return std::nullopt;
    int32_t e = 0;
    for (; j < suffix.size(); ++j) {
      if (suffix[j] < '0' || suffix[j] > '9' || e > 1000) return std::nullopt;
      e = e * 10 + (suffix[j] - '0');
    }
    q.exponent += neg ? -e : e;
  } else {
    return std::nullopt;
  }
  for (int b = 0; b < binary; ++b) {
    if (q.mantissa > kLimit / 1024) return std::nullopt;
    q.mantissa *= 1024;
  }
  if (q.exponent > 60 || q.exponent < -60) return std::nullopt;  // beyond any real quantity
  if (negative) q.mantissa = -q.mantissa;
  return normal(q);
}

int compare(const Quantity& a, const Quantity& b) {
  const int32_t e = std::min(a.exponent, b.exponent);
  const std::optional<Int128> x = at_exponent(a, e);
  const std::optional<Int128> y = at_exponent(b, e);
  if (x && y) return *x < *y ? -1 : (*y < *x ? 1 : 0);
  // Too far apart to align: the signs and the magnitudes decide.
  const double dx = as_double(a), dy = as_double(b);
  return dx < dy ? -1 : (dy < dx ? 1 : 0);
}

std::optional<Quantity> add(const Quantity& a, const Quantity& b, bool subtract) {
  const int32_t e = std::min(a.exponent, b.exponent);
  const std::optional<Int128> x = at_exponent(a, e);
  std::optional<Int128> y = at_exponent(b, e);
  if (!x || !y) return std::nullopt;
  if (subtract) *y = -*y;
  const Int128 sum = *x + *y;
  if (sum > kLimit || sum < -kLimit) return std::nullopt;
  return normal({sum, e});
}

bool is_integer(const Quantity& q) { return q.exponent >= 0 || normal(q).exponent >= 0; }

std::optional<int64_t> as_integer(const Quantity& q) {
  const Quantity n = normal(q);
  if (n.exponent < 0) return std::nullopt;
  const std::optional<Int128> m = at_exponent(n, 0);
  if (!m || *m > std::numeric_limits<int64_t>::max() || *m < std::numeric_limits<int64_t>::min())
    return std::nullopt;
  return static_cast<int64_t>(*m);
}

double as_double(const Quantity& q) {
  return static_cast<double>(q.mantissa) * std::pow(10.0, q.exponent);
}

int sign(const Quantity& q) { return q.mantissa < 0 ? -1 : (q.mantissa > 0 ? 1 : 0); }

std::string to_string(const Quantity& q) {
  Int128 m = q.mantissa < 0 ? -q.mantissa : q.mantissa;
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(m % 10)));
    m /= 10;
  } while (m > 0);
  if (q.exponent >= 0) {
    digits.append(static_cast<size_t>(q.exponent), '0');
  } else {
    const size_t point = static_cast<size_t>(-q.exponent);
    if (digits.size() <= point) digits.insert(0, point - digits.size() + 1, '0');
    digits.insert(digits.size() - point, ".");
  }
  return (q.mantissa < 0 ? "-" : "") + digits;
}

}  // namespace scoria::cel
