#include "model/label_selector.h"

#include <algorithm>

namespace scoria::model {

namespace {

bool requirement_met(const SelectorRequirement& r,
                     const std::map<std::string, std::string>& labels) {
  const auto it = labels.find(r.key);
  const bool has = it != labels.end();
  const auto in = [&] {
    return has && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
  };
  switch (r.op) {
    case SelectorOp::In:
      return in();
    case SelectorOp::NotIn:
      return !in();
    case SelectorOp::Exists:
      return has;
    case SelectorOp::DoesNotExist:
      return !has;
    default:
      return false;
  }
}

}  // namespace

bool selects(const LabelSelector& selector, const std::map<std::string, std::string>& labels) {
  for (const auto& [k, v] : selector.match_labels) {
    const auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  return std::all_of(selector.match_expressions.begin(), selector.match_expressions.end(),
                     [&](const SelectorRequirement& r) { return requirement_met(r, labels); });
}

}  // namespace scoria::model
