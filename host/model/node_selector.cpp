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

namespace {

bool meets_field(const SelectorRequirement& r, const std::string& name) {
  if (r.key != "metadata.name") return false;
  const bool in = std::find(r.values.begin(), r.values.end(), name) != r.values.end();
  if (r.op == SelectorOp::In) return in;
  if (r.op == SelectorOp::NotIn) return !in;
  return false;
}

}  // namespace

bool matches_any_term(std::span<const NodeSelectorTerm> terms, const Node& node) {
  return std::any_of(terms.begin(), terms.end(), [&](const NodeSelectorTerm& t) {
    if (t.requirements.empty()) return false;
    return std::all_of(t.requirements.begin(), t.requirements.end(),
                       [&](const SelectorRequirement& r) {
                         return r.is_field ? meets_field(r, node.name) : meets(r, node.labels);
                       });
  });
}

}  // namespace scoria::model
