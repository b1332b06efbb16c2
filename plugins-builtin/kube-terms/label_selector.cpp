#include "label_selector.h"

#include <scoria/scoria.hpp>

#include <algorithm>

namespace kube {

namespace {

/// Every requirement against the labels `label(key, &value)` finds.
template <class Label>
bool all_met(const std::vector<LabelRequirement>& requirements, Label&& label) {
  return std::all_of(requirements.begin(), requirements.end(), [&](const LabelRequirement& r) {
    scoria_str value{};
    const bool has = label(scoria::str(r.key), &value) == SCORIA_OK;
    const auto listed = [&] {
      return std::find(r.values.begin(), r.values.end(), scoria::view(value)) != r.values.end();
    };
    switch (r.op) {
      case LabelRequirement::Op::kIn:
        return has && listed();
      case LabelRequirement::Op::kNotIn:
        return !has || !listed();
      case LabelRequirement::Op::kExists:
        return has;
      case LabelRequirement::Op::kDoesNotExist:
        return !has;
    }
    return false;
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

}  // namespace kube
