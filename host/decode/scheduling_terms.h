// Fields that several kinds share: taints and tolerations, node selector
// terms, label selectors, Volcano's preemptable flag.
#pragma once

#include <map>
#include <string>

#include "decode/field_reader.h"
#include "model/objects.h"

namespace scoria::decode {

model::TaintEffect taint_effect(const FieldReader& r, const std::string& s, const FieldPath& at);
model::NodeSelectorTerm selector_term(const FieldReader& r, const Node& m, const FieldPath& at);
model::Toleration toleration(const FieldReader& r, const Node& m, const FieldPath& at);
/// A metav1.LabelSelector (the mapping `m` at `at`), refused as the API
/// server's validation refuses one: an operator other than In, NotIn,
/// Exists and DoesNotExist, In or NotIn without values, Exists or
/// DoesNotExist with some.
model::LabelSelector label_selector(const FieldReader& r, const Node& m, const FieldPath& at);

/// volcano.sh/preemptable, as Volcano reads it for pods and PodGroups: the
/// annotation, else the label (Go's strconv.ParseBool); `absent` when
/// neither (Volcano: true for a pod, false for a PodGroup).
bool read_preemptable(const FieldReader& r, const std::map<std::string, std::string>& annotations,
                      const std::map<std::string, std::string>& labels, const FieldPath& meta_path,
                      bool absent);

}  // namespace scoria::decode
