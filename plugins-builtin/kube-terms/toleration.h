// A task's tolerations, read from the host once and matched against the
// taints of many nodes (kube-scheduler's Toleration.ToleratesTaint).
#ifndef SCORIA_KUBE_TERMS_TOLERATION_H
#define SCORIA_KUBE_TERMS_TOLERATION_H

#include <scoria/scoria.h>

#include <cstdint>
#include <string_view>

#include "small_buffer.h"

namespace kube {

class Tolerations {
 public:
  explicit Tolerations(const scoria_task* task);

  // Does any toleration tolerate this taint?
  bool tolerate(std::string_view key, std::string_view value, uint32_t effect) const;
  // Only the tolerations whose effect is `effect` or unset count (as
  // kube-scheduler's scoring reads PreferNoSchedule).
  bool tolerate_with_effect(std::string_view key, std::string_view value, uint32_t effect) const;
  // Are all of the node's NoSchedule and NoExecute taints tolerated (the
  // TaintToleration filter; PreferNoSchedule is a scoring matter)?
  bool tolerate_node(const scoria_node* node) const;

 private:
  SmallBuffer<scoria_toleration, 8> items_;
};

}  // namespace kube

#endif  // SCORIA_KUBE_TERMS_TOLERATION_H
