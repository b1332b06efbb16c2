// Whether node labels meet node selector terms, as Kubernetes'
// MatchNodeSelectorTerms reads them for a node known by its labels alone
// (a PersistentVolume's node affinity, a StorageClass's allowed
// topologies): terms are ORed, a term's requirements ANDed, a term with no
// requirements matches nothing, and matchFields never match.
#pragma once

#include <map>
#include <span>
#include <string>

#include "model/objects.h"

namespace scoria::model {

bool matches_term(const NodeSelectorTerm& term, const std::map<std::string, std::string>& labels);

/// Some term matches; an empty list matches nothing.
bool matches_any_term(std::span<const NodeSelectorTerm> terms,
                      const std::map<std::string, std::string>& labels);

/// As matches_any_term, for a node known by name and labels: matchFields
/// on `metadata.name` (In, NotIn) are met as kube's NodeSelector meets
/// them, other fields never.
bool matches_any_term(std::span<const NodeSelectorTerm> terms, const Node& node);

}  // namespace scoria::model
