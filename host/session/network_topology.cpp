// HyperNodes in the session, and what Volcano's session open does with them
// for each job with a networkTopology: a highestTierName translated into
// its tier, soft mode searched as hard up to the cluster top's tier, and the
// HyperNode it already occupies recovered from where its tasks are.
#include <algorithm>

#include "config/scheduler_config.h"
#include "session/hook_calls.h"
#include "session/session.h"
#include "session/task_status.h"

namespace scoria::session {

void Session::prepare_network_topologies(std::span<const model::HyperNode* const> hyper_nodes) {
  std::vector<const model::Node*> specs;
  specs.reserve(nodes_.size());
  for (const Node& n : nodes_) specs.push_back(n.spec);
  topology_ = HyperNodeTopology(hyper_nodes, specs);

  const std::span<const HyperNodeView> all = topology_.all();
  for (Job& job : jobs_) {
    scoria_network_topology& t = job.topology;
    t.struct_size = sizeof t;
    t.allocated_hypernode = kNoHyperNode;
    if (!job.group->sub_group_policy.empty())
      unsupported_.push_back("PodGroup " + std::string(job.uid) + ": spec.subGroupPolicy (" +
                             std::to_string(job.group->sub_group_policy.size()) +
                             " policies) is not supported and is ignored: the job is scheduled "
                             "as one gang of minMember, under its own spec.networkTopology only");
    const auto& spec = job.group->network_topology;
    if (!spec) continue;
    const bool soft = spec->mode == model::NetworkTopology::Mode::Soft;
    t.declared_mode = soft ? SCORIA_TOPOLOGY_SOFT : SCORIA_TOPOLOGY_HARD;
    t.mode = SCORIA_TOPOLOGY_HARD;
    if (soft) {
      t.highest_tier_allowed = all.back().tier;
      t.has_highest_tier_allowed = 1;
    } else if (spec->highest_tier_allowed) {
      t.highest_tier_allowed = *spec->highest_tier_allowed;
      t.has_highest_tier_allowed = 1;
    } else if (const int32_t tier = topology_.tier_of_name(spec->highest_tier_name); tier >= 0) {
      t.highest_tier_allowed = tier;
      t.has_highest_tier_allowed = 1;
    }
    // The lowest HyperNode holding every task already placed (Volcano's
    // recoverAllocatedHyperNode), ties to the first by name.
    std::vector<uint32_t> holding;
    bool first = true;
    for (uint32_t ti : job.tasks) {
      const Task& task = tasks_[ti];
      if ((task.status & kAllocatedMask) == 0 || task.node < 0) continue;
      const auto node = static_cast<uint32_t>(task.node);
      if (first) {
        for (uint32_t h = 0; h < all.size(); ++h)
          if (topology_.holds(h, node)) holding.push_back(h);
        first = false;
      } else {
        std::erase_if(holding, [&](uint32_t h) { return !topology_.holds(h, node); });
      }
    }
    for (uint32_t h : holding)
      if (t.allocated_hypernode == kNoHyperNode || all[h].tier < all[t.allocated_hypernode].tier)
        t.allocated_hypernode = h;
  }
}

void Session::hypernode_scores(const Job& job, std::span<const uint32_t> hypernodes,
                               double* scores) {
  std::fill_n(scores, hypernodes.size(), 0.0);
  std::vector<double> part(hypernodes.size());
  for (auto& tier : tiers_) {
    for (auto& p : tier) {
      if (p.hooks.on_hypernode_order == nullptr || !on(p, config::Flag::HyperNodeOrder)) continue;
      std::fill(part.begin(), part.end(), 0.0);
      const scoria_code c = call(p, "on_hypernode_order", p.hooks.on_hypernode_order, &job,
                                 hypernodes.data(), hypernodes.size(), part.data());
      if (c != SCORIA_OK) {
        if (c != SCORIA_SKIP) plugin::count_error(p.ctx, "on_hypernode_order failed");
        continue;
      }
      for (size_t i = 0; i < part.size(); ++i) scores[i] += part[i];
    }
  }
}

size_t Session::hypernode_gradient(const Job& job, uint32_t root, uint32_t purpose,
                                   uint32_t* hypernodes, uint32_t* gradient, size_t capacity) {
  for (auto& tier : tiers_) {
    for (auto& p : tier) {
      if (p.hooks.on_hypernode_gradient == nullptr || !on(p, config::Flag::HyperNodeGradient))
        continue;
      const int64_t n = call(p, "on_hypernode_gradient", p.hooks.on_hypernode_gradient, &job, root,
                             purpose, hypernodes, gradient, capacity);
      if (n < 0) continue;  // no opinion
      const size_t count = std::min(static_cast<size_t>(n), capacity);
      // What the action reads must be HyperNodes of this session.
      const auto bad = std::find_if(hypernodes, hypernodes + count,
                                    [&](uint32_t h) { return h >= topology_.size(); });
      if (bad != hypernodes + count) {
        plugin::count_error(p.ctx, "on_hypernode_gradient named a HyperNode out of range");
        return 0;
      }
      return count;
    }
  }
  if (capacity == 0) return 0;
  hypernodes[0] = root;
  gradient[0] = 0;
  return 1;
}

}  // namespace scoria::session
