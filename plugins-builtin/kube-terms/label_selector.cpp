#include "label_selector.h"

#include <scoria/scoria.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "json_fields.h"

namespace kube {

namespace {

using nlohmann::json;

/// Every requirement against the labels `label(key, &value)` finds.
template <class Label>
bool all_met(const std::vector<LabelRequirement>& requirements, Label&& label) {
  return std::all_of(requirements.begin(), requirements.end(), [&](const LabelRequirement& r) {
    scoria_str found{};
    const bool has = label(scoria::str(r.key), &found) == SCORIA_OK;
    const std::string_view value = scoria::view(found);
    return scoria::label_requirement_met(r.op, has ? &value : nullptr, [&](std::string_view v) {
      return std::find(r.values.begin(), r.values.end(), v) != r.values.end();
    });
  });
}

}  // namespace

bool LabelSelector::matches(const scoria_task* task) const {
  if (!present || !valid) return false;
  return all_met(requirements, [&](scoria_str key, scoria_str* value) {
    return scoria::api().task_label(task, key, value);
  });
}

bool LabelSelector::matches_namespace(const scoria_session* ssn, std::string_view ns) const {
  if (!present || !valid) return false;
  const scoria_host_api& api = scoria::api();
  if (!SCORIA_HOST_HAS(&api, namespace_label)) return false;
  size_t count = 0;
  if (api.namespace_label_count(ssn, scoria::str(ns), &count) != SCORIA_OK) return false;
  return all_met(requirements, [&](scoria_str key, scoria_str* value) {
    return api.namespace_label(ssn, scoria::str(ns), key, value);
  });
}

bool LabelSelector::matches_unlabelled() const {
  if (!present || !valid) return false;
  return std::all_of(requirements.begin(), requirements.end(), [](const LabelRequirement& r) {
    return r.op == SCORIA_OP_NOT_IN || r.op == SCORIA_OP_DOES_NOT_EXIST;
  });
}

LabelSelector parse_label_selector(const json* selector) {
  LabelSelector out;
  if (selector == nullptr || !selector->is_object()) return out;
  out.present = true;
  if (const json* labels = member(*selector, "matchLabels"); labels != nullptr) {
    if (!labels->is_object())
      out.valid = false;
    else
      for (const auto& [key, value] : labels->items())
        out.requirements.push_back({key, SCORIA_OP_IN, {text(&value)}});
  }
  if (const json* exprs = member(*selector, "matchExpressions"); exprs != nullptr) {
    if (!exprs->is_array()) {
      out.valid = false;
      return out;
    }
    for (const json& e : *exprs) {
      LabelRequirement r;
      r.key = text(member(e, "key"));
      const std::string op = text(member(e, "operator"));
      if (const json* values = member(e, "values"); values != nullptr && values->is_array())
        for (const json& v : *values) r.values.push_back(text(&v));
      if (op == "In" || op == "NotIn") {
        r.op = op == "In" ? SCORIA_OP_IN : SCORIA_OP_NOT_IN;
        if (r.values.empty()) out.valid = false;
      } else if (op == "Exists" || op == "DoesNotExist") {
        r.op = op == "Exists" ? SCORIA_OP_EXISTS : SCORIA_OP_DOES_NOT_EXIST;
        if (!r.values.empty()) out.valid = false;
      } else {
        out.valid = false;
      }
      out.requirements.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace kube
