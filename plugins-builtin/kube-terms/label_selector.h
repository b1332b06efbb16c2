// A Kubernetes label selector (matchLabels and matchExpressions) matched
// against the labels of a task. An absent selector matches nothing, an empty
// one everything, an invalid one nothing, as in Kubernetes.
#ifndef SCORIA_KUBE_TERMS_LABEL_SELECTOR_H
#define SCORIA_KUBE_TERMS_LABEL_SELECTOR_H

#include <scoria/scoria.h>

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kube {

struct LabelRequirement {
  std::string key;
  uint32_t op = SCORIA_OP_IN;  // SCORIA_OP_IN, _NOT_IN, _EXISTS or _DOES_NOT_EXIST
  std::vector<std::string> values;
};

struct LabelSelector {
  bool present = false;  // the field was given (and is an object)
  bool valid = true;
  std::vector<LabelRequirement> requirements;  // matchLabels folded in as In

  bool matches(const scoria_task* task) const;
  /// Against the labels of Namespace `ns`: false when the cluster has no
  /// such Namespace object (or the host predates ABI 1.2), as kube-scheduler
  /// matches namespaceSelector against the Namespaces it lists.
  bool matches_namespace(const scoria_session* ssn, std::string_view ns) const;
  /// No requirements: selects everything.
  bool empty() const { return present && valid && requirements.empty(); }
  /// Could a pod with no labels at all meet it (only NotIn and
  /// DoesNotExist requirements)?
  bool matches_unlabelled() const;
};

/// A metav1.LabelSelector from its JSON (`selector` null when the field is
/// absent): matchLabels folded in as In requirements; a malformed one (an
/// unknown operator, In without values, ...) is kept as invalid, matching
/// nothing, as Kubernetes treats a selector it cannot convert.
LabelSelector parse_label_selector(const nlohmann::json* selector);

}  // namespace kube

#endif  // SCORIA_KUBE_TERMS_LABEL_SELECTOR_H
