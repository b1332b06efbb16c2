// Whether a metav1.LabelSelector selects an object by its labels, as
// Kubernetes' LabelSelectorAsSelector(...).Matches does.
#pragma once

#include <map>
#include <string>

#include "model/objects.h"

namespace scoria::model {

/// One requirement met by `labels`: In, NotIn, Exists, DoesNotExist, and
/// for node selectors Gt and Lt (integers); a field requirement never is
/// (what is matched here is known by its labels alone).
bool meets(const SelectorRequirement& r, const std::map<std::string, std::string>& labels);

/// Every matchLabels pair and every matchExpressions requirement met; an
/// empty selector selects everything (callers for which it selects nothing,
/// as a HyperNode's labelMatch, say so themselves).
bool selects(const LabelSelector& selector, const std::map<std::string, std::string>& labels);

}  // namespace scoria::model
