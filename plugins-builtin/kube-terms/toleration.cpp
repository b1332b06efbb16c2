#include "toleration.h"

#include <scoria/scoria.hpp>

#include <algorithm>

namespace kube {

namespace {

using scoria::view;

bool tolerates(const scoria_toleration& t, std::string_view key, std::string_view value,
               uint32_t effect) {
  if (t.effect != 0 && t.effect != effect) return false;
  if (t.key.len != 0 && view(t.key) != key) return false;
  switch (t.op) {
    case SCORIA_OP_EXISTS:
      return true;
    case 0:  // unset reads as Equal
    case SCORIA_OP_EQUAL:
      return view(t.value) == value;
    default:
      return false;
  }
}

}  // namespace

Tolerations::Tolerations(const scoria_task* task)
    : items_(scoria::api().task_toleration_count(task)) {
  std::span<scoria_toleration> all = items_.items();
  for (size_t i = 0; i < all.size(); ++i) {
    all[i] = scoria_toleration{};
    all[i].struct_size = sizeof(scoria_toleration);
    scoria::api().task_toleration_at(task, i, &all[i]);
  }
}

bool Tolerations::tolerate(std::string_view key, std::string_view value, uint32_t effect) const {
  const std::span<const scoria_toleration> all = items_.items();
  return std::any_of(all.begin(), all.end(),
                     [&](const scoria_toleration& t) { return tolerates(t, key, value, effect); });
}

bool Tolerations::tolerate_with_effect(std::string_view key, std::string_view value,
                                       uint32_t effect) const {
  const std::span<const scoria_toleration> all = items_.items();
  return std::any_of(all.begin(), all.end(), [&](const scoria_toleration& t) {
    return (t.effect == 0 || t.effect == effect) && tolerates(t, key, value, effect);
  });
}

bool Tolerations::tolerate_node(const scoria_node* node) const {
  const size_t count = scoria::api().node_taint_count(node);
  for (size_t i = 0; i < count; ++i) {
    scoria_taint taint{};
    taint.struct_size = sizeof taint;
    scoria::api().node_taint_at(node, i, &taint);
    if (taint.effect != SCORIA_TAINT_NO_SCHEDULE && taint.effect != SCORIA_TAINT_NO_EXECUTE)
      continue;
    if (!tolerate(view(taint.key), view(taint.value), taint.effect)) return false;
  }
  return true;
}

}  // namespace kube
