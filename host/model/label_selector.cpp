#include "model/label_selector.h"

#include <scoria/label_match.hpp>

#include <algorithm>
#include <optional>
#include <string_view>

namespace scoria::model {

static_assert(static_cast<uint32_t>(SelectorOp::In) == SCORIA_OP_IN &&
              static_cast<uint32_t>(SelectorOp::NotIn) == SCORIA_OP_NOT_IN &&
              static_cast<uint32_t>(SelectorOp::Exists) == SCORIA_OP_EXISTS &&
              static_cast<uint32_t>(SelectorOp::DoesNotExist) == SCORIA_OP_DOES_NOT_EXIST &&
              static_cast<uint32_t>(SelectorOp::Gt) == SCORIA_OP_GT &&
              static_cast<uint32_t>(SelectorOp::Lt) == SCORIA_OP_LT);

bool meets(const SelectorRequirement& r, const std::map<std::string, std::string>& labels) {
  if (r.is_field) return false;  // labels are all there is to match
  const auto it = labels.find(r.key);
  const std::string_view value = it != labels.end() ? std::string_view(it->second) : "";
  const std::string_view* label = it != labels.end() ? &value : nullptr;
  // The SDK's operators, the host's SelectorOp values; Equal (a
  // toleration's) means In here.
  const auto op = static_cast<uint32_t>(r.op == SelectorOp::Equal ? SelectorOp::In : r.op);
  std::optional<int64_t> bound;
  if ((r.op == SelectorOp::Gt || r.op == SelectorOp::Lt) && r.values.size() == 1)
    bound = label_integer(r.values[0]);
  return label_requirement_met(
      op, label,
      [&](std::string_view v) {
        return std::find(r.values.begin(), r.values.end(), v) != r.values.end();
      },
      bound);
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
