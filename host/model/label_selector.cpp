#include "model/label_selector.h"

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

}  // namespace

bool meets(const SelectorRequirement& r, const std::map<std::string, std::string>& labels) {
  if (r.is_field) return false;  // labels are all there is to match
  const auto it = labels.find(r.key);
  const bool has = it != labels.end();
  const auto in = [&] {
    return has && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
  };
  switch (r.op) {
    case SelectorOp::In:
    case SelectorOp::Equal:
      return in();
    case SelectorOp::NotIn:
      return !in();
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

bool selects(const LabelSelector& selector, const std::map<std::string, std::string>& labels) {
  for (const auto& [k, v] : selector.match_labels) {
    const auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  return std::all_of(selector.match_expressions.begin(), selector.match_expressions.end(),
                     [&](const SelectorRequirement& r) { return meets(r, labels); });
}

}  // namespace scoria::model
