// A task's nodeSelector and required node affinity together: the nodes it
// may go to as kube-scheduler's NodeAffinity filter decides. Read from the
// host once and matched against many nodes; the predicates filter with it,
// and topology spread counts only the nodes it accepts (nodeAffinityPolicy
// Honor).
#ifndef SCORIA_KUBE_TERMS_NODE_SELECTION_H
#define SCORIA_KUBE_TERMS_NODE_SELECTION_H

#include <scoria/scoria.h>

#include <string_view>

#include "node_affinity.h"
#include "small_buffer.h"

namespace kube {

class NodeSelection {
 public:
  explicit NodeSelection(const scoria_task* task);

  // Every nodeSelector pair is a label of the node, and at least one
  // required affinity term holds (or there is none).
  bool matches(const scoria_node* node, std::string_view node_name) const;

 private:
  struct Label {
    std::string_view key;
    std::string_view value;
  };

  SmallBuffer<Label, 8> selector_;
  NodeAffinityTerms required_;
};

}  // namespace kube

#endif  // SCORIA_KUBE_TERMS_NODE_SELECTION_H
