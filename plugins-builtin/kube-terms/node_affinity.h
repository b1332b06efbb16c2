// A task's node affinity terms (required or preferred), read from the host
// once and then matched against many nodes, with Kubernetes' semantics:
// terms are ORed, the requirements of a term ANDed, and a term with no
// requirements or an invalid one matches no node.
#ifndef SCORIA_KUBE_TERMS_NODE_AFFINITY_H
#define SCORIA_KUBE_TERMS_NODE_AFFINITY_H

#include <scoria/scoria.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "small_buffer.h"

namespace kube {

// One requirement of a term, validated once.
struct Requirement {
  std::string_view key;
  uint32_t op = 0;
  bool is_field = false;
  std::span<const scoria_str> values;
  std::optional<int64_t> bound;  // the value of Gt and Lt (scoria::label_integer)
};

// A term: requirements [first, first + count) of the flat list.
struct Term {
  size_t first = 0;
  size_t count = 0;
  bool valid = false;
  int32_t weight = 0;  // preferred terms only
};

class NodeAffinityTerms {
 public:
  // kind: SCORIA_AFFINITY_REQUIRED or SCORIA_AFFINITY_PREFERRED.
  NodeAffinityTerms(const scoria_task* task, uint32_t kind);

  bool empty() const { return terms_.empty(); }
  // Required: does at least one term hold on the node?
  bool any_matches(const scoria_node* node, std::string_view node_name) const;
  // Preferred: the sum of the weights of the terms that hold on the node.
  int64_t matched_weight(const scoria_node* node, std::string_view node_name) const;

 private:
  bool term_matches(const Term& term, const scoria_node* node, std::string_view node_name) const;

  SmallBuffer<Term, 4> terms_;
  SmallBuffer<Requirement, 16> requirements_;
};

}  // namespace kube

#endif  // SCORIA_KUBE_TERMS_NODE_AFFINITY_H
