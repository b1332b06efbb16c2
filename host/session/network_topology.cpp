// HyperNodes in the session, and what Volcano's session open does with them
// for each job with a networkTopology: a highestTierName translated into
// its tier, soft mode searched as hard up to the cluster top's tier (a
// sub-job's up to its job's tier), and the HyperNode it already occupies
// recovered from where its sub-jobs' tasks are.
#include <algorithm>
#include <string>
#include <utility>

#include "config/scheduler_config.h"
#include "session/hook_calls.h"
#include "session/session.h"
#include "session/task_status.h"

namespace scoria::session {

namespace {

// spec.networkTopology as Volcano's session open leaves it: a
// highestTierName read as its tier, and soft searched as hard up to
// `soft_tier`.
scoria_network_topology prepared(const std::optional<model::NetworkTopology>& spec,
                                 int32_t soft_tier, const HyperNodeTopology& topology) {
  scoria_network_topology t{};
  t.struct_size = sizeof t;
  t.allocated_hypernode = kNoHyperNode;
  if (!spec) return t;
  const bool soft = spec->mode == model::NetworkTopology::Mode::Soft;
  t.declared_mode = soft ? SCORIA_TOPOLOGY_SOFT : SCORIA_TOPOLOGY_HARD;
  t.mode = SCORIA_TOPOLOGY_HARD;
  if (soft) {
    t.highest_tier_allowed = soft_tier;
    t.has_highest_tier_allowed = 1;
  } else if (spec->highest_tier_allowed) {
    t.highest_tier_allowed = *spec->highest_tier_allowed;
    t.has_highest_tier_allowed = 1;
  } else if (const int32_t tier = topology.tier_of_name(spec->highest_tier_name); tier >= 0) {
    t.highest_tier_allowed = tier;
    t.has_highest_tier_allowed = 1;
  }
  return t;
}

// The lowest common ancestor of two HyperNodes; either one when the other is
// none (Volcano's GetLCAHyperNode).
uint32_t lca(const HyperNodeTopology& topology, uint32_t a, uint32_t b) {
  if (a == kNoHyperNode) return b;
  if (b == kNoHyperNode) return a;
  const std::span<const HyperNodeView> all = topology.all();
  for (uint32_t x = a; x != kNoHyperNode; x = all[x].parent)
    for (uint32_t y = b; y != kNoHyperNode; y = all[y].parent)
      if (x == y) return x;
  return kNoHyperNode;
}

}  // namespace

void Session::prepare_network_topologies(std::span<const model::HyperNode* const> hyper_nodes) {
  std::vector<const model::Node*> specs;
  specs.reserve(nodes_.size());
  for (const Node& n : nodes_) specs.push_back(n.spec);
  topology_ = HyperNodeTopology(hyper_nodes, specs);

  const std::span<const HyperNodeView> all = topology_.all();
  const int32_t top_tier = all.back().tier;
  std::vector<uint32_t> holding;
  // The others keep kNoNetworkTopology: nothing to prepare or recover.
  for (const uint32_t j : topology_jobs_) {
    Job& job = jobs_[j];
    job.topology = prepared(job.group->network_topology, top_tier, topology_);
    // Soft sub-jobs are bounded by the job's tier (convertSoftToHardTopology).
    const int32_t sub_job_tier =
        job.topology.has_highest_tier_allowed != 0 ? job.topology.highest_tier_allowed : top_tier;
    for (uint32_t k = 0; k < job.sub_job_count; ++k) {
      SubJob& sj = sub_jobs_[job.first_sub_job + k];
      sj.topology = sj.policy == SCORIA_NO_SUB_GROUP_POLICY
                        ? job.topology
                        : prepared(job.group->sub_group_policy[sj.policy].network_topology,
                                   sub_job_tier, topology_);
      // Only a sub-job with a topology recovers one (Volcano's
      // recoverAllocatedHyperNode).
      if (sj.topology.mode == SCORIA_TOPOLOGY_NONE) continue;
      // The lowest HyperNode holding every task of the sub-job already
      // placed, ties to the first by name.
      holding.clear();
      bool first = true;
      for (size_t i = 0; i < sj.size(); ++i) {
        const Task& task = tasks_[sub_job_task(sj, i)];
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
        if (sj.topology.allocated_hypernode == kNoHyperNode ||
            all[h].tier < all[sj.topology.allocated_hypernode].tier)
          sj.topology.allocated_hypernode = h;
      // The job's: where all its sub-jobs with a topology are.
      job.topology.allocated_hypernode =
          lca(topology_, job.topology.allocated_hypernode, sj.topology.allocated_hypernode);
    }
  }
}

// What the action reads must be HyperNodes of this session: a gradient
// naming any other is dropped whole.
size_t Session::checked_gradient(PluginHooks& p, int64_t n, const uint32_t* hypernodes,
                                 size_t capacity) const {
  const size_t count = std::min(static_cast<size_t>(n), capacity);
  const auto bad = std::find_if(hypernodes, hypernodes + count,
                                [&](uint32_t h) { return h >= topology_.size(); });
  if (bad != hypernodes + count) {
    plugin::count_error(p.ctx, "a HyperNode gradient named a HyperNode out of range");
    return 0;
  }
  return count;
}

// Every plugin's HyperNode scores added up into scores[i]. ask(p, part)
// asks plugin `p` into `part` and returns the hook's name and code, or a
// null name when `p` has nothing to say.
template <class Ask>
void Session::sum_hypernode_scores(std::span<const uint32_t> hypernodes, double* scores,
                                   Ask&& ask) {
  std::fill_n(scores, hypernodes.size(), 0.0);
  std::vector<double> part(hypernodes.size());
  for (auto& tier : dispatch_.tiers()) {
    for (auto& p : tier) {
      if (!on(p, config::Flag::HyperNodeOrder)) continue;
      std::fill(part.begin(), part.end(), 0.0);
      const auto [hook, c] = ask(p, part.data());
      if (hook == nullptr) continue;
      if (c != SCORIA_OK) {
        if (c != SCORIA_SKIP) plugin::count_error(p.ctx, std::string(hook) + " failed");
        continue;
      }
      for (size_t i = 0; i < part.size(); ++i) scores[i] += part[i];
    }
  }
}

// The first plugin's gradient (ask(p) returns its count, -1 for no opinion
// or no hook), else `root` alone.
template <class Ask>
size_t Session::first_gradient(uint32_t root, uint32_t* hypernodes, uint32_t* gradient,
                               size_t capacity, Ask&& ask) {
  for (auto& tier : dispatch_.tiers()) {
    for (auto& p : tier) {
      if (!on(p, config::Flag::HyperNodeGradient)) continue;
      const int64_t n = ask(p);
      if (n < 0) continue;  // no opinion
      return checked_gradient(p, n, hypernodes, capacity);
    }
  }
  if (capacity == 0) return 0;
  hypernodes[0] = root;
  gradient[0] = 0;
  return 1;
}

namespace {
using Asked = std::pair<const char*, scoria_code>;
}  // namespace

void Session::hypernode_scores(const Job& job, std::span<const uint32_t> hypernodes,
                               double* scores) {
  sum_hypernode_scores(hypernodes, scores, [&](PluginHooks& p, double* part) -> Asked {
    if (p.hooks.on_hypernode_order == nullptr) return {nullptr, SCORIA_SKIP};
    return {"on_hypernode_order", call(p, "on_hypernode_order", p.hooks.on_hypernode_order, &job,
                                       hypernodes.data(), hypernodes.size(), part)};
  });
}

size_t Session::hypernode_gradient(const Job& job, uint32_t root, uint32_t purpose,
                                   uint32_t* hypernodes, uint32_t* gradient, size_t capacity) {
  return first_gradient(root, hypernodes, gradient, capacity, [&](PluginHooks& p) -> int64_t {
    if (p.hooks.on_hypernode_gradient == nullptr) return -1;
    return call(p, "on_hypernode_gradient", p.hooks.on_hypernode_gradient, &job, root, purpose,
                hypernodes, gradient, capacity);
  });
}

// A plugin built before 1.9 registers only the job's hooks: it is asked
// those for the sub-job of a job without subGroupPolicy, which is the job.
void Session::sub_job_hypernode_scores(const SubJob& sub_job, std::span<const uint32_t> hypernodes,
                                       double* scores) {
  const Job& job = jobs_[sub_job.job];
  sum_hypernode_scores(hypernodes, scores, [&](PluginHooks& p, double* part) -> Asked {
    if (p.hooks.on_sub_job_hypernode_order != nullptr)
      return {"on_sub_job_hypernode_order",
              call(p, "on_sub_job_hypernode_order", p.hooks.on_sub_job_hypernode_order, &sub_job,
                   hypernodes.data(), hypernodes.size(), part)};
    if (p.hooks.on_hypernode_order != nullptr && !job.has_sub_group_policy)
      return {"on_hypernode_order", call(p, "on_hypernode_order", p.hooks.on_hypernode_order, &job,
                                         hypernodes.data(), hypernodes.size(), part)};
    return {nullptr, SCORIA_SKIP};
  });
}

size_t Session::sub_job_hypernode_gradient(const SubJob& sub_job, uint32_t root, uint32_t purpose,
                                           uint32_t* hypernodes, uint32_t* gradient,
                                           size_t capacity) {
  const Job& job = jobs_[sub_job.job];
  return first_gradient(root, hypernodes, gradient, capacity, [&](PluginHooks& p) -> int64_t {
    if (p.hooks.on_sub_job_hypernode_gradient != nullptr)
      return call(p, "on_sub_job_hypernode_gradient", p.hooks.on_sub_job_hypernode_gradient,
                  &sub_job, root, purpose, hypernodes, gradient, capacity);
    if (p.hooks.on_hypernode_gradient != nullptr && !job.has_sub_group_policy)
      return call(p, "on_hypernode_gradient", p.hooks.on_hypernode_gradient, &job, root, purpose,
                  hypernodes, gradient, capacity);
    return -1;
  });
}

}  // namespace scoria::session
