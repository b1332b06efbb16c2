#include "model/node_selector.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>

namespace scoria::model {

namespace {

std::optional<int64_t> integer(const std::string& s) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

bool meets(const SelectorRequirement& r, const std::map<std::string, std::string>& labels) {
  if (r.is_field) return false;  // a node known by its labels has no fields
  const auto it = labels.find(r.key);
  const bool has = it != labels.end();
  const auto listed = [&] {
    return has && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
  };
  switch (r.op) {
    case SelectorOp::In:
    case SelectorOp::Equal:
      return listed();
    case SelectorOp::NotIn:
      return !listed();
    case SelectorOp::Exists:
      return has;
    case SelectorOp::DoesNotExist:
      return !has;
    case SelectorOp::Gt:
    case SelectorOp::Lt: {
      if (!has || r.values.size() != 1) return false;
      const auto value = integer(it->second);
      const auto bound = integer(r.values[0]);
      if (!value || !bound) return false;
      return r.op == SelectorOp::Gt ? *value > *bound : *value < *bound;
    }
  }
  return false;
}

}  // namespace

bool matches_term(const NodeSelectorTerm& term, const std::map<std::string, std::string>& labels) {
  if (term.requirements.empty()) return false;
  return std::all_of(term.requirements.begin(), term.requirements.end(),
                     [&](const SelectorRequirement& r) { return meets(r, labels); });
}

bool matches_any_term(std::span<const NodeSelectorTerm> terms,
                      const std::map<std::string, std::string>& labels) {
  return std::any_of(terms.begin(), terms.end(),
                     [&](const NodeSelectorTerm& t) { return matches_term(t, labels); });
}

}  // namespace scoria::model
