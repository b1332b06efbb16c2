// CEL's standard functions that DRA selectors use: size, contains,
// startsWith, endsWith, matches, the conversions int, uint, double, string
// and bool, dyn; of the strings extension lowerAscii and upperAscii; and
// Kubernetes' quantity library (quantity, isQuantity, isInteger, asInteger,
// asApproximateFloat, sign, add, sub, compareTo, isGreaterThan, isLessThan)
// and semver library (semver, isSemver, major, minor, patch, compareTo,
// isGreaterThan, isLessThan).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "cel/value.h"

namespace scoria::cel {

/// The longest string matches() is asked about (its regular expression
/// engine recurses on the text): DRA string attributes are at most 64.
inline constexpr size_t kMaxMatchBytes = 1024;

/// `name(args...)`, or with `member` `args[0].name(args[1...])`; adds what
/// it walked to `cost`. An Error value when no overload fits.
Value call(const std::string& name, bool member, std::span<const Value> args, uint64_t& cost);

}  // namespace scoria::cel
