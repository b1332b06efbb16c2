#include "model/node_selector.h"

#include <algorithm>

#include "model/label_selector.h"

namespace scoria::model {

bool matches_term(const NodeSelectorTerm& term, const std::map<std::string, std::string>& labels) {
  if (term.requirements.empty()) return false;
  return std::all_of(term.requirements.begin(), term.requirements.end(),
                     [&](const SelectorRequirement& r) { return meets(r, labels); });
}

bool matches_any_term(std::span<const NodeSelectorTerm> terms,
                      const std::map<std::string, std::string>& labels) {
  return std::any_of(terms.begin(), terms.end(),
                     [&](const NodeSelectorTerm& t) { return matches_term(t, labels); });
}

}  // namespace scoria::model
