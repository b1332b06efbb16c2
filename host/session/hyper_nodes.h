// The session's HyperNodes (Volcano's HyperNodesInfo as a session sees it):
// each one's members resolved into real nodes and child HyperNodes, the
// tier tree, and the virtual cluster top above every root. Built once per
// session from the cache's HyperNode objects and the session's nodes.
#pragma once

#include <scoria/scoria.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/objects.h"

namespace scoria::session {

inline constexpr uint32_t kNoHyperNode = 0xFFFFFFFFu;
// The prepared topology of a job or sub-job without one (most of them).
inline constexpr scoria_network_topology kNoNetworkTopology = {
    .struct_size = sizeof(scoria_network_topology),
    .mode = SCORIA_TOPOLOGY_NONE,
    .declared_mode = SCORIA_TOPOLOGY_NONE,
    .highest_tier_allowed = 0,
    .has_highest_tier_allowed = 0,
    .allocated_hypernode = kNoHyperNode};

struct HyperNodeView {
  std::string_view name;
  int32_t tier = 0;
  std::string_view tier_name;
  uint32_t parent = kNoHyperNode;
  std::vector<uint32_t> children;  // ascending (by name)
  std::vector<uint32_t> nodes;     // session node indices, ascending
};

class HyperNodeTopology {
 public:
  HyperNodeTopology() = default;
  /// Resolves `defined` (by name) over `nodes` (session order). What cannot
  /// be resolved (a member that does not exist, a HyperNode named by two
  /// parents, a cycle) is left out and described in problems().
  HyperNodeTopology(std::span<const model::HyperNode* const> defined,
                    std::span<const model::Node* const> nodes);

  /// Every HyperNode; the cluster top is the last.
  std::span<const HyperNodeView> all() const { return views_; }
  size_t size() const { return views_.size(); }
  uint32_t top() const { return static_cast<uint32_t>(views_.size() - 1); }
  uint32_t find(std::string_view name) const;
  /// Whether HyperNode `h` holds session node `node`.
  bool holds(uint32_t h, uint32_t node) const;
  /// The tier a spec.tierName names; -1 when no HyperNode has it.
  int32_t tier_of_name(std::string_view tier_name) const;
  /// One line per member or link left out, naming the HyperNode.
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  void resolve_nodes(uint32_t h, std::vector<uint8_t>& state);

  std::vector<HyperNodeView> views_;
  std::vector<const model::HyperNode*> specs_;  // parallel to views_, null for the top
  std::vector<std::string> problems_;
};

}  // namespace scoria::session
