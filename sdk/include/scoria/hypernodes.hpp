// HyperNodes of a session (ABI 1.6) read once into a tree a plugin or action
// can walk without host calls: tiers, parents, children, real nodes, and
// Volcano's helpers over them (lowest common ancestor, ancestors, the
// lowest-tier HyperNode holding a node). Header-only, compiled into the
// plugin; never crosses the boundary. Build one per session: its spans point
// at host memory valid for that session.
#pragma once

#include <scoria/scoria.h>
#include <scoria/scoria.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace scoria {

/// 1 when the host has the 1.6 HyperNode functions.
inline bool host_has_hypernodes() { return SCORIA_HOST_HAS(&api(), session_hypernode_gradient); }

/// A job's network topology; mode SCORIA_TOPOLOGY_NONE on an older host.
inline scoria_network_topology network_topology(const scoria_job* job) {
  scoria_network_topology t{};
  t.struct_size = sizeof t;
  t.allocated_hypernode = SCORIA_NO_HYPERNODE;
  if (host_has_hypernodes()) api().job_network_topology(job, &t);
  return t;
}

/// The sub-job's network topology (ABI 1.9), prepared as the job's is; mode
/// SCORIA_TOPOLOGY_NONE on an older host.
inline scoria_network_topology network_topology(const scoria_sub_job* sub_job) {
  scoria_network_topology t{};
  t.struct_size = sizeof t;
  t.allocated_hypernode = SCORIA_NO_HYPERNODE;
  if (host_has_sub_jobs()) api().sub_job_network_topology(sub_job, &t);
  return t;
}

class HyperNodeTree {
 public:
  using Index = uint32_t;
  static constexpr Index kNone = SCORIA_NO_HYPERNODE;

  HyperNodeTree() = default;
  explicit HyperNodeTree(const scoria_session* ssn) {
    if (!host_has_hypernodes()) return;
    const size_t count = api().hypernode_count(ssn);
    infos_.resize(count);
    for (size_t i = 0; i < count; ++i) {
      infos_[i].struct_size = sizeof(scoria_hypernode_info);
      api().hypernode_info(ssn, static_cast<Index>(i), &infos_[i]);
    }
    for (const auto& h : infos_) tiers_.push_back(h.tier);
    std::sort(tiers_.begin(), tiers_.end());
    tiers_.erase(std::unique(tiers_.begin(), tiers_.end()), tiers_.end());
    // Volcano's FindHyperNodeForNode: the HyperNode of the lowest tier that
    // holds the node (none when no HyperNode of that tier does).
    lowest_.assign(api().node_count(ssn), kNone);
    if (tiers_.empty()) return;
    for (Index h = 0; h < count; ++h)
      if (infos_[h].tier == tiers_.front())
        for (uint32_t n : nodes(h))
          if (n < lowest_.size() && lowest_[n] == kNone) lowest_[n] = h;
  }

  size_t size() const { return infos_.size(); }
  bool empty() const { return infos_.empty(); }
  /// The virtual cluster top (the last HyperNode).
  Index top() const { return infos_.empty() ? kNone : static_cast<Index>(infos_.size() - 1); }
  std::string_view name(Index h) const { return view(infos_[h].name); }
  int32_t tier(Index h) const { return infos_[h].tier; }
  Index parent(Index h) const { return infos_[h].parent; }
  std::span<const Index> children(Index h) const {
    return {infos_[h].children, infos_[h].child_count};
  }
  /// Session node indices, ascending.
  std::span<const uint32_t> nodes(Index h) const { return {infos_[h].nodes, infos_[h].node_count}; }
  bool holds(Index h, uint32_t node) const {
    const auto n = nodes(h);
    return std::binary_search(n.begin(), n.end(), node);
  }
  /// Distinct tiers, ascending (the cluster top's last).
  std::span<const int32_t> tiers() const { return tiers_; }
  int32_t min_tier() const { return tiers_.empty() ? 0 : tiers_.front(); }
  int32_t max_tier() const { return tiers_.empty() ? 0 : tiers_.back(); }
  /// The HyperNode of the lowest tier holding `node`; kNone if none does.
  Index lowest_of_node(uint32_t node) const {
    return node < lowest_.size() ? lowest_[node] : kNone;
  }
  /// `h` and its ancestors, nearest first.
  std::vector<Index> ancestors(Index h) const {
    std::vector<Index> out;
    for (Index at = h; at != kNone && out.size() <= infos_.size(); at = parent(at))
      out.push_back(at);
    return out;
  }
  /// Volcano's GetLCAHyperNode: kNone when either is kNone... except that
  /// an absent side yields the other, as Volcano's LCA of "" and x is x.
  Index lca(Index a, Index b) const {
    if (a == kNone) return b;
    if (b == kNone) return a;
    const std::vector<Index> up = ancestors(a);
    for (Index at = b; at != kNone; at = parent(at))
      if (std::find(up.begin(), up.end(), at) != up.end()) return at;
    return kNone;
  }

 private:
  std::vector<scoria_hypernode_info> infos_;
  std::vector<int32_t> tiers_;
  std::vector<Index> lowest_;
};

}  // namespace scoria
