// Allocate's choice of a node for a task (host_api.session_select_node,
// ABI 1.10), Volcano's allocateResourcesForTask: the predicates with the
// resource check over the adaptive sample, then of the nodes that pass the
// ones with the task's resources idle now, else the ones where they are
// being released; the best scored of the first group that has any.
//
// A task whose plugins declared both predicates and scores cacheable
// (SDK 1.7) is answered from its class's ChoiceIndex from the class's
// second task on: the same sample, counted instead of scanned, and the best
// node read from the tree instead of a scan. The answer is the one the
// calls would give; `equivalence_cache = false` makes the calls.
#include <algorithm>
#include <optional>

#include "session/hook_calls.h"
#include "session/session.h"

namespace scoria::session {

using config::Flag;

bool Session::best_node_hooked() {
  if (!best_node_hooked_) {
    bool hooked = false;
    for (auto& tier : tiers_)
      for (auto& p : tier) hooked = hooked || (on(p, Flag::BestNode) && p.hooks.on_best_node);
    best_node_hooked_ = hooked;
  }
  return *best_node_hooked_;
}

Session::NodeChoice Session::select_node(Task& task, std::span<const Node* const> candidates) {
  const bool everywhere =
      candidates.data() == all_nodes_.data() && candidates.size() == all_nodes_.size();
  // The index ranks by score alone; a soft shard ranks by shard first.
  if (everywhere && !all_nodes_.empty() && !explaining(task) && !best_node_hooked() &&
      sharding_ != model::ShardingMode::Soft) {
    EquivalenceCache::Class* klass = cached_class(task, SCORIA_CACHE_PREDICATE);
    if (klass != nullptr && (klass->policy & SCORIA_CACHE_NODE_ORDER) != 0 &&
        ++klass->selects >= 2 && (klass->has_choices || equivalence_->take_index_budget()))
      return select_by_index(task, *klass);
  }
  return select_by_calls(task, candidates);
}

Session::NodeChoice Session::select_by_calls(Task& task, std::span<const Node* const> candidates) {
  NodeChoice out;
  choice_nodes_.resize(candidates.size());
  out.fit_count = predicate_nodes(task, candidates, /*check_resources=*/true, choice_nodes_.data());
  // Volcano's order of groups (allocate.go, prioritizeNodes): idle in the
  // shard, idle in other shards, releasing in the shard, releasing in other
  // shards; without a soft shard every node is "in the shard".
  for (auto& group : choice_groups_) group.clear();
  // Every node that passed fits the future idle (the resource check).
  for (size_t i = 0; i < out.fit_count; ++i) {
    const Node* node = choice_nodes_[i];
    const size_t group = (fits_idle(task, *node) ? 0 : 2) + (outside_soft_shard(*node) ? 1 : 0);
    choice_groups_[group].push_back(node);
  }
  const auto best_of = [&](const std::vector<const Node*>& nodes) -> const Node* {
    if (nodes.size() <= 1) return nodes.empty() ? nullptr : nodes.front();
    choice_scores_.resize(nodes.size());
    node_scores(task, nodes, choice_scores_.data());
    const int64_t best = best_node(task, nodes, choice_scores_.data());
    return best < 0 ? nullptr : nodes[static_cast<size_t>(best)];
  };
  for (size_t group = 0; group < choice_groups_.size() && out.node == nullptr; ++group) {
    out.node = best_of(choice_groups_[group]);
    out.idle = group < 2;
  }
  return out;
}

void Session::refresh_choices(const Task& task, EquivalenceCache::Class& klass) {
  const size_t n = all_nodes_.size();
  EquivalenceCache& cache = *equivalence_;
  const std::span<const uint32_t> changed = cache.changed();
  // The nodes whose entry is older than the node: all of them the first
  // time (or after more changes than nodes), else those changed since.
  const bool all = !klass.has_choices || changed.size() - klass.seen > n;
  if (!klass.has_choices) {
    klass.choices.reset(n);
    klass.has_choices = true;
  }
  ChoiceIndex& index = klass.choices;
  // Listed once: its entry takes the node's generation at once.
  choice_nodes_.clear();
  const auto consider = [&](uint32_t node) {
    if (index.generation(node) == cache.generation(node)) return;
    index.claim(node, cache.generation(node));
    choice_nodes_.push_back(all_nodes_[node]);
  };
  if (all) {
    for (uint32_t i = 0; i < n; ++i) consider(i);
  } else {
    for (size_t k = klass.seen; k < changed.size(); ++k) consider(changed[k]);
  }
  klass.seen = changed.size();
  const size_t m = choice_nodes_.size();
  if (m == 0) return;

  // Their predicates and scores from the class's answers (asking the
  // plugins for the ones recorded under an older generation).
  if (rotated_.size() < m) {
    rotated_.resize(m);
    pass_.resize(m);
    reasons_.resize(m);
  }
  std::copy(choice_nodes_.begin(), choice_nodes_.end(), rotated_.begin());
  cached_predicates(task, /*resources=*/true, klass, 0, m);
  choice_fitting_.clear();
  for (size_t i = 0; i < m; ++i)
    if (pass_[i]) choice_fitting_.push_back(choice_nodes_[i]);
  choice_scores_.resize(choice_fitting_.size());
  if (!choice_fitting_.empty()) cached_scores(task, klass, choice_fitting_, choice_scores_.data());
  size_t f = 0;
  for (size_t i = 0; i < m; ++i) {
    const Node& node = *choice_nodes_[i];
    const bool fits = pass_[i] != 0;
    const bool idle = fits && fits_idle(task, node);
    index.set(node.index, cache.generation(node.index), fits, idle,
              fits ? choice_scores_[f++] : 0.0);
  }
}

Session::NodeChoice Session::select_by_index(Task& task, EquivalenceCache::Class& klass) {
  // The stages as the calls would time them: the index's refresh and count
  // stand for the node search, the lookup of the best node for the scoring.
  std::optional<StageClock> search_time(std::in_place, stage_sink(&StageDurations::predicate_ms));
  refresh_choices(task, klass);
  const ChoiceIndex& index = klass.choices;
  const size_t n = all_nodes_.size();
  // Positions [start + a, start + b) of the rotation, as at most two ranges.
  const auto each_range = [n](size_t start, size_t a, size_t b, auto&& f) {
    const size_t from = start + a < n ? start + a : start + a - n;
    const size_t len = b - a;
    if (from + len <= n) {
      f(from, from + len);
    } else {
      f(from, n);
      f(0, from + len - n);
    }
  };
  const auto fits_in = [&](size_t start, size_t a, size_t b) {
    size_t c = 0;
    if (a < b) each_range(start, a, b, [&](size_t l, size_t r) { c += index.fit_count(l, r); });
    return c;
  };

  // predicate_nodes' search, counted: rounds from the rotation cursor
  // until enough nodes fit; the cursor moves past what the rounds covered.
  const size_t want = config::feasible_nodes_to_find(config_, n);
  const size_t start = want < n ? predicate_cursor_ % n : 0;
  size_t scanned = 0, found = 0;
  while (scanned < n && found < want) {
    const size_t round = std::min(n - scanned, std::max(want - found, kSearchRound));
    found += fits_in(start, scanned, scanned + round);
    scanned += round;
  }
  predicate_cursor_ = start + scanned;

  // The sample: the first `want` fitting nodes from the cursor on.
  NodeChoice out;
  out.fit_count = std::min(found, want);
  size_t window = scanned;
  if (found >= want && want > 0) {
    const size_t before = index.fit_count(0, start);
    const size_t after = index.fit_count(start, n);
    const size_t last =
        want <= after ? index.nth_fit(before + want - 1) : index.nth_fit(want - after - 1);
    window = (last >= start ? last - start : last + n - start) + 1;
  }

  if (out.fit_count == 0) {
    // Why each node refused, in search order, as predicate_nodes counts.
    const std::vector<EquivalenceCache::Predicate>& known = equivalence_->predicates(klass, true);
    reasons_.resize(std::max(reasons_.size(), scanned));
    for (size_t k = 0; k < scanned; ++k) reasons_[k] = known[(start + k) % n].reason;
  }
  record_fit(task, out.fit_count, scanned);
  search_time.reset();
  if (out.fit_count == 0) return out;
  // A single fitting node is taken unscored, as by the calls.
  const StageClock scoring_time(stage_sink(&StageDurations::scoring_ms, out.fit_count > 1));
  for (const bool idle : {true, false}) {
    size_t best = ChoiceIndex::kNone;
    each_range(start, 0, window,
               [&](size_t l, size_t r) { best = index.better(best, index.best(l, r, idle)); });
    if (best != ChoiceIndex::kNone) {
      out.node = all_nodes_[best];
      out.idle = idle;
      return out;
    }
  }
  return out;
}

}  // namespace scoria::session
