// The node-level hooks, dispatched by the session: every plugin's
// predicates must pass (after the host's own checks: the resource check,
// a hard node shard, claims that cannot be allocated; the devices last),
// scores add up in tier order, the first plugin's on_best_node picks, else
// the highest score. Explanations are recorded here as the answers come.
#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "model/resource.h"
#include "plugin/crash_report.h"
#include "plugin/plugin_ctx.h"
#include "plugin/reason_table.h"
#include "session/hook_calls.h"
#include "session/plugin_answers.h"
#include "session/session.h"
#include "session/worker_pool.h"

namespace scoria::session {

using config::Flag;

// ---------------------------------------------------------------------------
// Predicates

void Session::check_resources(const Task& task, std::span<const Node* const> nodes, uint8_t* pass,
                              uint32_t* reasons) const {
  // Allocate's own check: the task must fit the node's future idle
  // (idle + releasing - pipelined). A node may miss several dimensions; the
  // first missing one names the reason, as the histogram counts nodes.
  std::span<const double> need = span(task.init_resreq);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = *nodes[i];
    size_t k = model::first_short_dimension(need, n.idle, n.releasing, n.pipelined);
    pass[i] = k == need.size();
    if (!pass[i]) reasons[i] = insufficient_reason_[k];
  }
}

void Session::record_fit(Task& task, size_t fit, std::span<const uint32_t> reasons) {
  const size_t scanned = reasons.size();
  if (task.fit == 0) {
    if (fit != 0) return;  // nothing to record, nothing recorded before
    touch(jobs_[task.job]);
    fit_errors_.emplace_back();
    task.fit = static_cast<uint32_t>(fit_errors_.size());
  }
  FitErrors& errors = fit_errors_[task.fit - 1];
  errors.reasons.clear();
  errors.recorded = fit == 0;
  errors.nodes_tried = static_cast<uint32_t>(scanned);
  errors.task_wide = 0;
  if (fit != 0) return;
  if (const uint32_t wide = task_wide_reason(task);
      wide != 0 && scanned > 0 &&
      std::all_of(reasons.begin(), reasons.end(), [wide](uint32_t r) { return r == wide; }))
    errors.task_wide = wide;
  for (const uint32_t reason : reasons) {
    auto it = std::find_if(errors.reasons.begin(), errors.reasons.end(),
                           [&](const auto& r) { return r.first == reason; });
    if (it == errors.reasons.end())
      errors.reasons.emplace_back(reason, 1);
    else
      ++it->second;
  }
}

void Session::evaluate_nodes(const Task& task, bool resources, std::span<const Node* const> nodes,
                             uint8_t* pass, uint32_t* reasons, PredicateScratch& s) {
  const size_t n = nodes.size();
  if (const uint32_t refused = host_refusal(task); refused != 0) {
    std::fill_n(pass, n, uint8_t{0});
    std::fill_n(reasons, n, refused);
    return;
  }
  evaluate_plugins(task, resources, nodes, pass, reasons, s);
  // The devices last, as kube-scheduler's DynamicResources filter runs
  // after the others: only where everything else fits.
  if (!DeviceAllocator::claims(task)) return;
  for (size_t i = 0; i < n; ++i) {
    if (!pass[i]) continue;
    if (const uint32_t why = devices_.check(task, *nodes[i]); why != 0) {
      pass[i] = 0;
      reasons[i] = why;
    }
  }
}

void Session::evaluate_plugins(const Task& task, bool resources, std::span<const Node* const> nodes,
                               uint8_t* pass, uint32_t* reasons, PredicateScratch& s) {
  const size_t n = nodes.size();
  if (resources)
    check_resources(task, nodes, pass, reasons);
  else
    std::fill_n(pass, n, uint8_t{1});
  // A hard shard's refusal comes before every other, as Volcano's
  // PredicateNodes checks it first.
  if (sharding_ == model::ShardingMode::Hard)
    for (size_t i = 0; i < n; ++i)
      if (outside_hard_shard(*nodes[i])) {
        pass[i] = 0;
        reasons[i] = not_in_shard_reason_;
      }
  for (auto& tier : dispatch_.tiers())
    for (auto& p : tier) {
      if (!on(p, Flag::Predicate)) continue;
      if (p.hooks.on_predicate_batch != nullptr) {
        s.alive.clear();
        s.where.clear();
        for (size_t i = 0; i < n; ++i)
          if (pass[i]) {
            s.alive.push_back(nodes[i]);
            s.where.push_back(i);
          }
        if (s.alive.empty()) return;
        s.codes.assign(s.alive.size(), SCORIA_OK);
        s.reasons.assign(s.alive.size(), 0);
        const int rc = static_cast<int>(call(p, "on_predicate_batch", p.hooks.on_predicate_batch,
                                             &task, s.alive.data(), s.alive.size(), s.codes.data(),
                                             s.reasons.data()));
        if (rc == SCORIA_SKIP) continue;
        // A batch that fails, or answers what no code means, refuses every
        // node it was asked about.
        if (verdict(rc) == Verdict::Failed || verdict(rc) == Verdict::Undefined) {
          uint32_t why = p.failed_reason;
          if (verdict(rc) == Verdict::Failed) {
            plugin::count_error(p.ctx, "batch predicate failed");
          } else {
            undefined_code(p, Answer::PredicateBatch, rc, "every node of the batch is refused");
            why = undefined_answer_reason_;
          }
          for (size_t k = 0; k < s.alive.size(); ++k) {
            pass[s.where[k]] = 0;
            reasons[s.where[k]] = why;
          }
          continue;
        }
        for (size_t k = 0; k < s.alive.size(); ++k) {
          const NodeAnswer a = judge(p, Answer::PredicateBatch, code_at(&s.codes[k]), s.reasons[k],
                                     undefined_answer_reason_);
          if (!a.refused) continue;
          pass[s.where[k]] = 0;
          reasons[s.where[k]] = a.reason;
        }
      } else if (p.hooks.on_predicate != nullptr) {
        for (size_t i = 0; i < n; ++i) {
          if (!pass[i]) continue;
          uint32_t reason = 0;
          const int c = static_cast<int>(
              call(p, "on_predicate", p.hooks.on_predicate, &task, nodes[i], &reason));
          const NodeAnswer a = judge(p, Answer::Predicate, c, reason, undefined_answer_reason_);
          if (!a.refused) continue;
          pass[i] = 0;
          reasons[i] = a.reason;
        }
      }
    }
}

scoria_code Session::predicate(const Task& task, const Node& node, uint32_t* reason) {
  if (const uint32_t refused = host_refusal(task); refused != 0) {
    if (reason) *reason = refused;
    return SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE;
  }
  if (outside_hard_shard(node)) {
    if (reason) *reason = not_in_shard_reason_;
    return SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE;
  }
  const Node* one = &node;
  for (auto& tier : dispatch_.tiers())
    for (auto& p : tier) {
      if (!on(p, Flag::Predicate)) continue;
      int c = SCORIA_OK;
      uint32_t r = 0;
      Answer hook = Answer::Predicate;
      if (p.hooks.on_predicate != nullptr) {
        c = static_cast<int>(call(p, "on_predicate", p.hooks.on_predicate, &task, &node, &r));
      } else if (p.hooks.on_predicate_batch != nullptr) {
        hook = Answer::PredicateBatch;
        scoria_code one_code = SCORIA_OK;
        const int rc = static_cast<int>(call(p, "on_predicate_batch", p.hooks.on_predicate_batch,
                                             &task, &one, 1, &one_code, &r));
        c = rc == SCORIA_OK ? code_at(&one_code) : rc;
      } else {
        continue;
      }
      const NodeAnswer a = judge(p, hook, c, r, undefined_answer_reason_);
      if (!a.refused) continue;
      if (reason) *reason = a.reason;
      return a.code;
    }
  // Asked one node at a time by actions (preempt, reclaim): devices that
  // tasks evicted this session release count, as their releasing
  // resources do; a pod to bind now is held to the devices free now when
  // it is placed (Statement::place).
  if (const uint32_t why = devices_.check(task, node, /*future=*/true); why != 0) {
    if (reason) *reason = why;
    return SCORIA_UNSCHEDULABLE;
  }
  if (reason) *reason = 0;
  return SCORIA_OK;
}

// ---------------------------------------------------------------------------
// Scores

void Session::plugin_scores(PluginHooks& p, const Task& task, std::span<const Node* const> nodes,
                            double* out) {
  std::fill_n(out, nodes.size(), 0.0);
  // A score counts only when its code is SCORIA_OK and it is a finite
  // number: one NaN would poison the sum, one infinity would decide alone.
  // Anything else adds 0 for that node (SKIP: nothing to say; ERROR:
  // counted; undefined: counted and logged once).
  auto accepted = [&](Answer hook, int code, const char* failed) {
    if (code == SCORIA_OK) return true;
    if (code == SCORIA_SKIP) return false;
    if (defined_code(code))
      plugin::count_error(p.ctx, failed);
    else
      undefined_code(p, hook, code, "its scores count as 0");
    return false;
  };
  if (p.hooks.on_node_order_batch != nullptr) {
    std::vector<double> part(nodes.size(), 0.0);
    const int rc = static_cast<int>(call(p, "on_node_order_batch", p.hooks.on_node_order_batch,
                                         &task, nodes.data(), nodes.size(), part.data()));
    if (accepted(Answer::NodeOrderBatch, rc, "batch node order failed"))
      for (size_t i = 0; i < nodes.size(); ++i) {
        if (std::isfinite(part[i]))
          out[i] += part[i];
        else
          undefined_score(p, Answer::NodeOrderBatch, part[i]);
      }
  }
  if (p.hooks.on_node_order != nullptr) {
    for (size_t i = 0; i < nodes.size(); ++i) {
      double s = 0;
      const int rc =
          static_cast<int>(call(p, "on_node_order", p.hooks.on_node_order, &task, nodes[i], &s));
      if (!accepted(Answer::NodeOrder, rc, "node order failed")) continue;
      if (std::isfinite(s))
        out[i] += s;
      else
        undefined_score(p, Answer::NodeOrder, s);
    }
  }
}

void Session::node_scores(const Task& task, std::span<const Node* const> nodes, double* scores) {
  const StageClock timed(stage_sink(&StageDurations::scoring_ms, !nodes.empty()));
  const bool record = explain_ != nullptr && !explain_->scores_done && explaining(task);
  if (!record) {
    if (EquivalenceCache::Class* klass = cached_class(task, SCORIA_CACHE_NODE_ORDER)) {
      search_.cached_scores(task, *klass, nodes, scores);
      return;
    }
  }
  std::vector<std::vector<double>> parts;  // per plugin, only when explaining
  sum_scores(task, nodes, scores, record ? &parts : nullptr);
  if (record) explain_scores(task, nodes, parts, scores);
}

void Session::sum_scores(const Task& task, std::span<const Node* const> nodes, double* scores,
                         std::vector<std::vector<double>>* parts) {
  std::fill_n(scores, nodes.size(), 0.0);
  std::vector<double> part(nodes.size());
  each(dispatch_.tiers(), Flag::NodeOrder, [&](PluginHooks& p) {
    if (p.hooks.on_node_order_batch == nullptr && p.hooks.on_node_order == nullptr) return;
    plugin_scores(p, task, nodes, part.data());
    for (size_t i = 0; i < nodes.size(); ++i) scores[i] += part[i];
    if (parts != nullptr) parts->push_back(part);
  });
}

cycle::Explanation* Session::explain_search(const Task& task, bool resources) {
  if (explain_ == nullptr || explain_->predicates_done || !explaining(task)) return nullptr;
  explain_predicates(task, resources);
  return explain_.get();
}

int64_t Session::best_node(const Task& task, std::span<const Node* const> nodes,
                           const double* scores) {
  if (nodes.empty()) return -1;
  const bool record = explain_ != nullptr && !explain_->best_done && explaining(task);
  for (auto& tier : dispatch_.tiers())
    for (auto& p : tier) {
      if (!on(p, Flag::BestNode) || p.hooks.on_best_node == nullptr) continue;
      int64_t i =
          call(p, "on_best_node", p.hooks.on_best_node, &task, nodes.data(), scores, nodes.size());
      if (i >= 0 && static_cast<size_t>(i) < nodes.size()) {
        if (record) {
          explain_->best_done = true;
          explain_->chosen = nodes[static_cast<size_t>(i)]->spec->name;
          explain_->chosen_by = p.name;
        }
        return i;
      }
    }
  // Highest score; ties go to the node listed first in the session.
  size_t best = 0;
  for (size_t i = 1; i < nodes.size(); ++i)
    if (scores[i] > scores[best] ||
        (scores[i] == scores[best] && nodes[i]->index < nodes[best]->index))
      best = i;
  if (record) {
    explain_->best_done = true;
    explain_->chosen = nodes[best]->spec->name;
  }
  return static_cast<int64_t>(best);
}

}  // namespace scoria::session
