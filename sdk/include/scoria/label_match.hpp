// label_match.hpp — whether a label requirement holds, for plugins and the
// host alike.
//
// Kubernetes' selectors (a LabelSelector's matchLabels and
// matchExpressions, a NodeSelectorTerm's matchExpressions) are lists of
// requirements on an object's labels. The host matches the selectors of
// the objects it reads (a PersistentVolume's node affinity, a HyperNode's
// labelMatch, a StorageClass's allowedTopologies); plugins match those of
// pods (node affinity, pod affinity, spread constraints). Both decide each
// requirement with this function, so that they agree on every operator and
// on every integer Gt and Lt compare.
//
// Header-only, C++20, no plugin state: include it alone or through
// scoria.hpp.
#ifndef SCORIA_LABEL_MATCH_HPP
#define SCORIA_LABEL_MATCH_HPP

#include <scoria/scoria.h>

#include <cstdint>
#include <optional>
#include <string_view>

namespace scoria {

/// `text` as Kubernetes reads Gt's and Lt's value and the label compared
/// with it (strconv.ParseInt, base 10, 64 bits): an optional sign, then
/// decimal digits and nothing else. nullopt if it is not one or does not
/// fit. (By hand rather than std::from_chars, whose digit table is a
/// GNU-unique symbol that would keep a plugin loaded for good.)
inline std::optional<int64_t> label_integer(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text.empty()) return std::nullopt;
  // The magnitude, against the limit of its sign: the negative range is
  // one larger.
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  uint64_t magnitude = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<uint64_t>(c - '0');
    if (magnitude > (limit - digit) / 10) return std::nullopt;
    magnitude = magnitude * 10 + digit;
  }
  return negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
}

/// Whether a requirement holds for an object whose label under the
/// requirement's key is `*label` (null: the object has no such label), as
/// Kubernetes' labels.Requirement.Matches decides:
/// - SCORIA_OP_IN: the label is there and `listed(*label)`;
/// - SCORIA_OP_NOT_IN: the label is absent, or not `listed(*label)`;
/// - SCORIA_OP_EXISTS, SCORIA_OP_DOES_NOT_EXIST: the label is there, absent;
/// - SCORIA_OP_GT, SCORIA_OP_LT: the label is there and reads as an integer
///   (label_integer) above, below `bound`: the requirement's one value read
///   the same way (nullopt when it has not exactly one, or it is no
///   integer: the requirement never holds).
/// `listed(std::string_view)` says whether the requirement's values list a
/// value; it is called for In and NotIn only. Any other operator never holds.
template <class Listed>
bool label_requirement_met(uint32_t op, const std::string_view* label, Listed&& listed,
                           std::optional<int64_t> bound = std::nullopt) {
  switch (op) {
    case SCORIA_OP_IN:
      return label != nullptr && listed(*label);
    case SCORIA_OP_NOT_IN:
      return label == nullptr || !listed(*label);
    case SCORIA_OP_EXISTS:
      return label != nullptr;
    case SCORIA_OP_DOES_NOT_EXIST:
      return label == nullptr;
    case SCORIA_OP_GT:
    case SCORIA_OP_LT: {
      if (label == nullptr || !bound) return false;
      const std::optional<int64_t> value = label_integer(*label);
      if (!value) return false;
      return op == SCORIA_OP_GT ? *value > *bound : *value < *bound;
    }
    default:
      return false;
  }
}

}  // namespace scoria

#endif  // SCORIA_LABEL_MATCH_HPP
