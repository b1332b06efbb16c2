// The node search (node_search.h). A task whose plugins declared both
// predicates and scores cacheable (SDK 1.7) is answered from its class's
// ChoiceIndex from the class's second task on: the same sample, counted
// instead of scanned, and the best node read from the tree instead of a
// scan. The answer is the one the calls would give; `equivalence_cache =
// false` makes the calls.
#include "session/node_search.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "model/resource.h"
#include "session/worker_pool.h"

namespace scoria::session {

bool NodeSearch::fits_idle(const Task& task, const Node& node) const {
  return model::less_equal({task.init_resreq, dims_}, {node.idle, dims_});
}

size_t NodeSearch::predicate_nodes(Task& task, std::span<const Node* const> candidates,
                                   bool resources, const Node** fit) {
  const size_t n = candidates.size();
  const StageClock timed(session_.stage_sink(&StageDurations::predicate_ms, n > 0));
  cycle::Explanation* const explained = session_.explain_search(task, resources);
  // Volcano's search: stop once enough feasible nodes are found, starting
  // where the previous search stopped so every node gets its turn. The
  // rotation is a session counter, so the result stays deterministic.
  const size_t want = config::feasible_nodes_to_find(config_, n);
  const size_t start = (want < n && n > 0) ? cursor_ % n : 0;
  // Sized once; each round fills only its own part, since a search usually
  // stops long before the last node.
  rotated_.resize(n);
  pass_.resize(n);
  reasons_.resize(n);

  const bool parallel =
      workers_ != nullptr && workers_->size() > 1 && !session_.serial_predicates();
  if (scratch_.size() < (workers_ ? workers_->size() : 1))
    scratch_.resize(workers_ ? workers_->size() : 1);

  auto run_chunk = [&](size_t part, size_t begin, size_t end) {
    if (begin < end) chunk(task, resources, begin, end, scratch_[part]);
  };

  // Tasks of a class whose predicates are all cacheable read the answers
  // recorded for it; the one being explained is asked afresh.
  EquivalenceCache::Class* klass =
      explained != nullptr ? nullptr : session_.cached_class(task, SCORIA_CACHE_PREDICATE);

  size_t scanned = 0, found = 0;
  while (scanned < n && found < want) {
    // Each round covers at least what is still wanted. Waking the other
    // thread costs tens of microseconds, so a round is split only when the
    // per-node cost measured so far says it will take much longer than that.
    const size_t round = std::min(n - scanned, std::max(want - found, kSearchRound));
    for (size_t k = scanned; k < scanned + round; ++k) {
      const size_t at = start + k;
      rotated_[k] = candidates[at < n ? at : at - n];
      pass_[k] = 0;
      reasons_[k] = 0;
    }
    if (klass != nullptr) {
      cached_predicates(task, resources, *klass, scanned, scanned + round);
      for (size_t k = scanned; k < scanned + round; ++k) found += pass_[k];
      scanned += round;
      continue;
    }
    const bool split = parallel && ns_per_node_ * static_cast<double>(round) > kParallelRoundNs;
    const auto t0 = std::chrono::steady_clock::now();
    if (split)
      workers_->parallel_for(round, [&](size_t part, size_t b, size_t e) {
        run_chunk(part, scanned + b, scanned + e);
      });
    else
      run_chunk(0, scanned, scanned + round);
    // Per-node cost in thread time, so the estimate holds either way.
    const double ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() *
        (split ? static_cast<double>(workers_->size()) : 1.0);
    ns_per_node_ = 0.9 * ns_per_node_ + 0.1 * (ns / static_cast<double>(round));
    for (size_t k = scanned; k < scanned + round; ++k) found += pass_[k];
    scanned += round;
  }
  cursor_ = start + scanned;

  // Callers see the fitting nodes in candidate order, whatever the rotation.
  positions_.clear();
  for (size_t k = 0; k < scanned && positions_.size() < want; ++k)
    if (pass_[k]) positions_.push_back((start + k) % n);
  // Two ascending runs, from `start` up and (wrapped) from 0 up: the
  // wrapped one goes first, which sorts them.
  std::rotate(
      positions_.begin(),
      std::find_if(positions_.begin(), positions_.end(), [start](size_t p) { return p < start; }),
      positions_.end());
  const size_t out = positions_.size();
  for (size_t i = 0; i < out; ++i) fit[i] = candidates[positions_[i]];
  if (explained != nullptr) {
    explained->examined = out;
    for (size_t i = 0; i < out; ++i) explained->nodes[fit[i]->index].examined = true;
  }

  session_.record_fit(task, out, {reasons_.data(), scanned});
  return out;
}

void NodeSearch::chunk(const Task& task, bool resources, size_t begin, size_t end,
                       PredicateScratch& s) {
  session_.evaluate_nodes(task, resources, {rotated_.data() + begin, end - begin}, &pass_[begin],
                          &reasons_[begin], s);
}

void NodeSearch::cached_predicates(const Task& task, bool resources, EquivalenceCache::Class& klass,
                                   size_t begin, size_t end) {
  std::vector<EquivalenceCache::Predicate>& known = equivalence_->predicates(klass, resources);
  stale_.clear();
  stale_at_.clear();
  for (size_t k = begin; k < end; ++k) {
    const Node* node = rotated_[k];
    const EquivalenceCache::Predicate& a = known[node->index];
    if (a.generation == equivalence_->generation(node->index)) {
      pass_[k] = a.pass;
      reasons_[k] = a.reason;
    } else {
      stale_.push_back(node);
      stale_at_.push_back(k);
    }
  }
  if (stale_.empty()) return;
  stale_pass_.resize(stale_.size());
  stale_reasons_.assign(stale_.size(), 0);
  if (scratch_.empty()) scratch_.resize(1);
  session_.evaluate_nodes(task, resources, stale_, stale_pass_.data(), stale_reasons_.data(),
                          scratch_[0]);
  for (size_t i = 0; i < stale_.size(); ++i) {
    const uint32_t node = stale_[i]->index;
    known[node] = {equivalence_->generation(node), stale_reasons_[i], stale_pass_[i]};
    pass_[stale_at_[i]] = stale_pass_[i];
    reasons_[stale_at_[i]] = stale_reasons_[i];
  }
}

void NodeSearch::cached_scores(const Task& task, EquivalenceCache::Class& klass,
                               std::span<const Node* const> nodes, double* scores) {
  std::vector<EquivalenceCache::Score>& known = equivalence_->scores(klass);
  stale_.clear();
  stale_at_.clear();
  for (size_t i = 0; i < nodes.size(); ++i) {
    const EquivalenceCache::Score& s = known[nodes[i]->index];
    if (s.generation == equivalence_->generation(nodes[i]->index)) {
      scores[i] = s.score;
    } else {
      stale_.push_back(nodes[i]);
      stale_at_.push_back(i);
    }
  }
  if (stale_.empty()) return;
  stale_scores_.resize(stale_.size());
  session_.sum_scores(task, stale_, stale_scores_.data(), nullptr);
  for (size_t i = 0; i < stale_.size(); ++i) {
    const uint32_t node = stale_[i]->index;
    known[node] = {equivalence_->generation(node), stale_scores_[i]};
    scores[stale_at_[i]] = stale_scores_[i];
  }
}

NodeSearch::Choice NodeSearch::select_node(Task& task, std::span<const Node* const> candidates) {
  const bool everywhere =
      candidates.data() == all_nodes_.data() && candidates.size() == all_nodes_.size();
  // The index ranks by score alone; a soft shard ranks by shard first.
  if (everywhere && !all_nodes_.empty() && !session_.explaining(task) &&
      !session_.best_node_hooked() && !session_.soft_shard()) {
    EquivalenceCache::Class* klass = session_.cached_class(task, SCORIA_CACHE_PREDICATE);
    if (klass != nullptr && (klass->policy & SCORIA_CACHE_NODE_ORDER) != 0 &&
        ++klass->selects >= 2 && (klass->has_choices || equivalence_->take_index_budget()))
      return select_by_index(task, *klass);
  }
  return select_by_calls(task, candidates);
}

NodeSearch::Choice NodeSearch::select_by_calls(Task& task,
                                               std::span<const Node* const> candidates) {
  Choice out;
  choice_nodes_.resize(candidates.size());
  out.fit_count = predicate_nodes(task, candidates, /*check_resources=*/true, choice_nodes_.data());
  // Volcano's order of groups (allocate.go, prioritizeNodes): idle in the
  // shard, idle in other shards, releasing in the shard, releasing in other
  // shards; without a soft shard every node is "in the shard".
  for (auto& group : choice_groups_) group.clear();
  // Every node that passed fits the future idle (the resource check).
  const bool soft = session_.soft_shard();
  for (size_t i = 0; i < out.fit_count; ++i) {
    const Node* node = choice_nodes_[i];
    const size_t group =
        (fits_idle(task, *node) ? 0 : 2) + (soft && session_.outside_soft_shard(*node) ? 1 : 0);
    choice_groups_[group].push_back(node);
  }
  const auto best_of = [&](const std::vector<const Node*>& nodes) -> const Node* {
    if (nodes.size() <= 1) return nodes.empty() ? nullptr : nodes.front();
    choice_scores_.resize(nodes.size());
    session_.node_scores(task, nodes, choice_scores_.data());
    const int64_t best = session_.best_node(task, nodes, choice_scores_.data());
    return best < 0 ? nullptr : nodes[static_cast<size_t>(best)];
  };
  for (size_t group = 0; group < choice_groups_.size() && out.node == nullptr; ++group) {
    out.node = best_of(choice_groups_[group]);
    out.idle = group < 2;
  }
  return out;
}

void NodeSearch::refresh_choices(const Task& task, EquivalenceCache::Class& klass) {
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

NodeSearch::Choice NodeSearch::select_by_index(Task& task, EquivalenceCache::Class& klass) {
  // The stages as the calls would time them: the index's refresh and count
  // stand for the node search, the lookup of the best node for the scoring.
  std::optional<StageClock> search_time(std::in_place,
                                        session_.stage_sink(&StageDurations::predicate_ms, true));
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
  const size_t start = want < n ? cursor_ % n : 0;
  size_t scanned = 0, found = 0;
  while (scanned < n && found < want) {
    const size_t round = std::min(n - scanned, std::max(want - found, kSearchRound));
    found += fits_in(start, scanned, scanned + round);
    scanned += round;
  }
  cursor_ = start + scanned;

  // The sample: the first `want` fitting nodes from the cursor on.
  Choice out;
  out.fit_count = std::min(found, want);
  size_t window = scanned;
  if (found >= want && want > 0) {
    const size_t before = index.fit_count(0, start);
    const size_t after = index.fit_count(start, n);
    const size_t last =
        want <= after ? index.nth_fit(before + want - 1) : index.nth_fit(want - after - 1);
    window = (last >= start ? last - start : last + n - start) + 1;
  }

  // Why each node refused, in search order, as predicate_nodes counts;
  // read only when none fits.
  reasons_.resize(std::max(reasons_.size(), scanned));
  if (out.fit_count == 0) {
    const std::vector<EquivalenceCache::Predicate>& known = equivalence_->predicates(klass, true);
    for (size_t k = 0; k < scanned; ++k) reasons_[k] = known[(start + k) % n].reason;
  }
  session_.record_fit(task, out.fit_count, {reasons_.data(), scanned});
  search_time.reset();
  if (out.fit_count == 0) return out;
  // A single fitting node is taken unscored, as by the calls.
  const StageClock scoring_time(
      session_.stage_sink(&StageDurations::scoring_ms, out.fit_count > 1));
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
