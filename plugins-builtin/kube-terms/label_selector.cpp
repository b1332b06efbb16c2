#include "label_selector.h"

#include <scoria/scoria.hpp>

#include <algorithm>

namespace kube {

bool LabelSelector::matches(const scoria_task* task) const {
  if (!present || !valid) return false;
  return std::all_of(requirements.begin(), requirements.end(), [&](const LabelRequirement& r) {
    scoria_str value{};
    const bool has = scoria::api().task_label(task, scoria::str(r.key), &value) == SCORIA_OK;
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

}  // namespace kube
