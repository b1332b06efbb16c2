#include "node_affinity.h"

#include <scoria/scoria.hpp>

#include <algorithm>

namespace kube {

namespace {

using scoria::api;
using scoria::view;

constexpr std::string_view kNodeNameField = "metadata.name";

bool contains(std::span<const scoria_str> values, std::string_view v) {
  return std::any_of(values.begin(), values.end(),
                     [v](const scoria_str& s) { return view(s) == v; });
}

// Kubernetes' validation of a requirement: operator and value count agree,
// Gt and Lt carry one integer, fields know only In and NotIn with one value.
bool prepare(Requirement& r) {
  if (r.is_field) return r.values.size() == 1 && (r.op == SCORIA_OP_IN || r.op == SCORIA_OP_NOT_IN);
  switch (r.op) {
    case SCORIA_OP_IN:
    case SCORIA_OP_NOT_IN:
      return !r.values.empty();
    case SCORIA_OP_EXISTS:
    case SCORIA_OP_DOES_NOT_EXIST:
      return r.values.empty();
    case SCORIA_OP_GT:
    case SCORIA_OP_LT:
      if (r.values.size() != 1) return false;
      r.bound = scoria::label_integer(view(r.values[0]));
      return r.bound.has_value();
    default:
      return false;
  }
}

bool matches(const Requirement& r, const scoria_node* node, std::string_view node_name) {
  if (r.is_field) {
    // Only the node's name is a selectable field; any other reads as empty.
    const std::string_view field = r.key == kNodeNameField ? node_name : std::string_view{};
    const bool equal = field == view(r.values[0]);
    return r.op == SCORIA_OP_IN ? equal : !equal;
  }
  scoria_str found{};
  const bool has = api().node_label(node, scoria::str(r.key), &found) == SCORIA_OK;
  const std::string_view label = view(found);
  return scoria::label_requirement_met(
      r.op, has ? &label : nullptr, [&](std::string_view v) { return contains(r.values, v); },
      r.bound);
}

size_t requirement_count(const scoria_task* task, uint32_t kind, size_t terms) {
  size_t n = 0;
  for (size_t t = 0; t < terms; ++t) n += api().task_affinity_requirement_count(task, kind, t);
  return n;
}

}  // namespace

NodeAffinityTerms::NodeAffinityTerms(const scoria_task* task, uint32_t kind)
    : terms_(api().task_affinity_term_count(task, kind)),
      requirements_(requirement_count(task, kind, terms_.items().size())) {
  std::span<Term> terms = terms_.items();
  std::span<Requirement> requirements = requirements_.items();
  size_t next = 0;
  for (size_t t = 0; t < terms.size(); ++t) {
    const size_t count =
        std::min(api().task_affinity_requirement_count(task, kind, t), requirements.size() - next);
    Term& term = terms[t];
    term = Term{next, count, count != 0, 0};
    if (kind == SCORIA_AFFINITY_PREFERRED)
      term.weight = api().task_affinity_term_weight(task, kind, t);
    for (size_t i = 0; i < count; ++i) {
      scoria_selector_requirement raw{};
      raw.struct_size = sizeof raw;
      api().task_affinity_requirement_at(task, kind, t, i, &raw);
      Requirement& r = requirements[next + i];
      r = Requirement{view(raw.key), raw.op, raw.is_field != 0,
                      std::span<const scoria_str>(raw.values, raw.value_count), 0};
      if (!prepare(r)) term.valid = false;
    }
    next += count;
  }
}

bool NodeAffinityTerms::term_matches(const Term& term, const scoria_node* node,
                                     std::string_view node_name) const {
  if (!term.valid) return false;
  const auto reqs = requirements_.items().subspan(term.first, term.count);
  return std::all_of(reqs.begin(), reqs.end(),
                     [&](const Requirement& r) { return matches(r, node, node_name); });
}

bool NodeAffinityTerms::any_matches(const scoria_node* node, std::string_view node_name) const {
  const std::span<const Term> terms = terms_.items();
  return std::any_of(terms.begin(), terms.end(),
                     [&](const Term& term) { return term_matches(term, node, node_name); });
}

int64_t NodeAffinityTerms::matched_weight(const scoria_node* node,
                                          std::string_view node_name) const {
  int64_t sum = 0;
  for (const Term& term : terms_.items())
    if (term_matches(term, node, node_name)) sum += term.weight;
  return sum;
}

}  // namespace kube
