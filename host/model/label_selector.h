// Whether a metav1.LabelSelector selects an object by its labels, as
// Kubernetes' LabelSelectorAsSelector(...).Matches does.
#pragma once

#include <map>
#include <string>

#include "model/objects.h"

namespace scoria::model {

/// Every matchLabels pair and every matchExpressions requirement met; an
/// empty selector selects everything (callers for which it selects nothing,
/// as a HyperNode's labelMatch, say so themselves).
bool selects(const LabelSelector& selector, const std::map<std::string, std::string>& labels);

}  // namespace scoria::model
