#include "node_selection.h"

#include <scoria/scoria.hpp>

namespace kube {

NodeSelection::NodeSelection(const scoria_task* task)
    : selector_(scoria::api().task_node_selector_count(task)),
      required_(task, SCORIA_AFFINITY_REQUIRED) {
  std::span<Label> selector = selector_.items();
  for (size_t i = 0; i < selector.size(); ++i) {
    scoria_str key{};
    scoria_str value{};
    scoria::api().task_node_selector_at(task, i, &key, &value);
    selector[i] = Label{scoria::view(key), scoria::view(value)};
  }
}

bool NodeSelection::matches(const scoria_node* node, std::string_view node_name) const {
  for (const Label& want : selector_.items()) {
    scoria_str have{};
    if (scoria::api().node_label(node, scoria::str(want.key), &have) != SCORIA_OK ||
        scoria::view(have) != want.value)
      return false;
  }
  return required_.empty() || required_.any_matches(node, node_name);
}

}  // namespace kube
