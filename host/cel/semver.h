// Semantic versions as Kubernetes' CEL library has them (semver("1.2.3"),
// major(), compareTo, isGreaterThan, ...), and as DRA's version attributes
// are: MAJOR.MINOR.PATCH with an optional pre-release and build, ordered
// by semver.org's precedence (a build never counts).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace scoria::cel {

struct Semver {
  uint64_t major = 0, minor = 0, patch = 0;
  std::vector<std::string> pre;  // dot-separated identifiers
  std::string build;
  bool operator==(const Semver&) const = default;
};

/// The version `text` writes, strictly (semver.org 2.0.0); with
/// `normalize`, a leading "v" and missing minor or patch are allowed
/// ("v1.2" is 1.2.0), as the library's semver(text, true). None if not.
std::optional<Semver> parse_semver(std::string_view text, bool normalize = false);

/// -1, 0 or 1 by precedence.
int compare(const Semver& a, const Semver& b);

std::string to_string(const Semver& v);

}  // namespace scoria::cel
