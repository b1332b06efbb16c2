// Kubernetes quantities as its CEL library has them (quantity("1.5Gi"),
// compareTo, isGreaterThan, add, ...): exact decimals, so that 1Gi equals
// 1024Mi and 0.1 plus 0.2 is 0.3, as resource.Quantity computes them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace scoria::cel {

__extension__ typedef __int128 Int128;

/// mantissa x 10^exponent.
struct Quantity {
  Int128 mantissa = 0;
  int32_t exponent = 0;
  /// The same representation (CEL's == compares values: cel/value.h).
  bool operator==(const Quantity&) const = default;
};

/// The quantity `text` writes (Kubernetes' syntax: a signed decimal with an
/// optional exponent or a binary or decimal suffix); none if it is not one.
std::optional<Quantity> parse_quantity(std::string_view text);

/// -1, 0 or 1.
int compare(const Quantity& a, const Quantity& b);

/// a + b (b negated for subtraction); none on overflow.
std::optional<Quantity> add(const Quantity& a, const Quantity& b, bool subtract);

/// Whether the quantity is a whole number, and that number if it fits in
/// 64 bits.
bool is_integer(const Quantity& q);
std::optional<int64_t> as_integer(const Quantity& q);
double as_double(const Quantity& q);
int sign(const Quantity& q);

/// The quantity as a plain decimal ("1536", "0.5"), for messages.
std::string to_string(const Quantity& q);

}  // namespace scoria::cel
