// A Kubernetes label selector (matchLabels and matchExpressions) matched
// against the labels of a task. An absent selector matches nothing, an empty
// one everything, an invalid one nothing, as in Kubernetes.
#ifndef SCORIA_KUBE_TERMS_LABEL_SELECTOR_H
#define SCORIA_KUBE_TERMS_LABEL_SELECTOR_H

#include <scoria/scoria.h>

#include <string>
#include <vector>

namespace kube {

struct LabelRequirement {
  enum class Op { kIn, kNotIn, kExists, kDoesNotExist };
  std::string key;
  Op op = Op::kIn;
  std::vector<std::string> values;
};

struct LabelSelector {
  bool present = false;  // the field was given (and is an object)
  bool valid = true;
  std::vector<LabelRequirement> requirements;  // matchLabels folded in as In

  bool matches(const scoria_task* task) const;
};

}  // namespace kube

#endif  // SCORIA_KUBE_TERMS_LABEL_SELECTOR_H
