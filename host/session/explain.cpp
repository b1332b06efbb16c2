// Recording the explanation of one task's placement (cycle/explanation.h):
// the same hooks the tier dispatch calls, asked once more for every node and
// kept per plugin, only for the task asked about.
#include <algorithm>

#include "plugin/reason_table.h"
#include "session/hook_calls.h"
#include "session/session.h"

namespace scoria::session {

using config::Flag;

void Session::explain(std::string_view task_uid) {
  explain_ = std::make_unique<Explanation>();
  explain_->task = std::string(task_uid);
  for (const Task& t : tasks_)
    if (t.views->uid == task_uid) {
      const Job& job = jobs_[t.job];
      explain_->found = true;
      explain_->job = std::string(job.uid);
      if (job.queue >= 0) explain_->queue = queues_[static_cast<size_t>(job.queue)].spec->name;
    }
}

void Session::explain_predicates(const Task& task, bool resources) {
  Explanation& x = *explain_;
  x.predicates_done = true;
  x.action = action_;
  x.check_resources = resources;
  const std::span<const Node* const> nodes = all_nodes();
  const size_t n = nodes.size();
  std::vector<uint8_t> pass(n, 1);
  std::vector<uint32_t> reasons(n, 0);
  if (resources) check_resources(task, nodes, pass.data(), reasons.data());
  x.nodes.assign(n, {});
  const uint32_t refused = host_refusal(task);
  for (size_t i = 0; i < n; ++i) {
    x.nodes[i].name = nodes[i]->spec->name;
    x.nodes[i].fits = pass[i] != 0 && refused == 0;
    if (!pass[i]) x.nodes[i].resources = std::string(plugin::reason_text(reasons[i]));
    if (refused != 0)
      x.nodes[i].predicates.push_back({"host", SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE,
                                       std::string(plugin::reason_text(refused))});
    if (outside_hard_shard(*nodes[i])) {
      x.nodes[i].fits = false;
      x.nodes[i].predicates.push_back(
          {"host", SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE, std::string(model::kNotInShard)});
    }
  }
  // Every plugin on every node, even one an earlier plugin refused, so that
  // each answer is seen.
  std::vector<scoria_code> codes(n);
  std::vector<uint32_t> why(n);
  for (auto& tier : dispatch_.tiers())
    for (auto& p : tier) {
      if (!on(p, Flag::Predicate)) continue;
      std::vector<NodeAnswer> answers(n);
      if (p.hooks.on_predicate_batch != nullptr) {
        std::fill(codes.begin(), codes.end(), SCORIA_OK);
        std::fill(why.begin(), why.end(), 0);
        const int rc = static_cast<int>(call(p, "on_predicate_batch", p.hooks.on_predicate_batch,
                                             &task, nodes.data(), n, codes.data(), why.data()));
        if (rc == SCORIA_SKIP) continue;
        for (size_t i = 0; i < n; ++i)
          answers[i] = rc == SCORIA_OK
                           ? judge(p, Answer::PredicateBatch, code_at(&codes[i]), why[i],
                                   undefined_answer_reason_)
                           : judge(p, Answer::PredicateBatch, rc, 0, undefined_answer_reason_);
      } else if (p.hooks.on_predicate != nullptr) {
        for (size_t i = 0; i < n; ++i) {
          uint32_t r = 0;
          const int c =
              static_cast<int>(call(p, "on_predicate", p.hooks.on_predicate, &task, nodes[i], &r));
          answers[i] = judge(p, Answer::Predicate, c, r, undefined_answer_reason_);
        }
      } else {
        continue;
      }
      for (size_t i = 0; i < n; ++i) {
        Explanation::PredicateAnswer a{p.name, SCORIA_OK, {}};
        if (answers[i].refused) {
          a.code = answers[i].code;
          a.reason = std::string(plugin::reason_text(answers[i].reason));
          x.nodes[i].fits = false;
        }
        x.nodes[i].predicates.push_back(std::move(a));
      }
    }
  // The host's device check, named as kube-scheduler names its filter.
  if (refused != 0 || !DeviceAllocator::claims(task)) return;
  for (size_t i = 0; i < n; ++i) {
    Explanation::PredicateAnswer a{"DynamicResources", SCORIA_OK, {}};
    if (const uint32_t refusal = devices_.check(task, *nodes[i]); refusal != 0) {
      a.code = SCORIA_UNSCHEDULABLE;
      a.reason = std::string(plugin::reason_text(refusal));
      x.nodes[i].fits = false;
    }
    x.nodes[i].predicates.push_back(std::move(a));
  }
}

void Session::explain_scores(const Task& task, std::span<const Node* const> nodes,
                             const std::vector<std::vector<double>>& parts, const double* totals) {
  (void)task;
  Explanation& x = *explain_;
  x.scores_done = true;
  if (x.nodes.empty()) return;  // scored without a predicate search first
  std::vector<const PluginHooks*> scorers;
  for (auto& tier : dispatch_.tiers())
    for (auto& p : tier)
      if (on(p, Flag::NodeOrder) && (p.hooks.on_node_order_batch || p.hooks.on_node_order))
        scorers.push_back(&p);
  for (const PluginHooks* p : scorers) {
    Explanation::Weights w{p->name, {}};
    if (p->arguments != nullptr)
      for (const auto& [key, value] : *p->arguments)
        if (key.ends_with("weight")) w.arguments.emplace_back(key, value);
    x.weights.push_back(std::move(w));
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    Explanation::NodeRow& row = x.nodes[nodes[i]->index];
    row.scored = true;
    row.total = totals[i];
    for (size_t k = 0; k < scorers.size() && k < parts.size(); ++k)
      row.scores.push_back({scorers[k]->name, parts[k][i]});
  }
}

void Session::explain_close(Outcome& out) {
  Explanation& x = *explain_;
  for (const Task& t : tasks_) {
    if (t.views->uid != x.task) continue;
    const std::string node = t.node >= 0 ? nodes_[static_cast<size_t>(t.node)].spec->name : "";
    if (t.committed)
      x.outcome = "bound to " + node;
    else if (t.status == SCORIA_TASK_PIPELINED || t.status == SCORIA_TASK_ALLOCATED)
      x.outcome = "pipelined onto " + node + " (waits for resources being released there)";
    else if (t.status != SCORIA_TASK_PENDING)
      x.outcome = "not pending (already " + (node.empty() ? "placed" : "on " + node) + ")";
    for (const auto& g : out.pod_groups)
      for (const auto& p : g.pending)
        if (p.pod == x.task) x.outcome = "not placed (" + std::string(p.reason) + "): " + p.message;
  }
  if (!x.found)
    x.outcome = "no such pod in the cluster";
  else if (x.outcome.empty())
    x.outcome = "not placed";
  x.settle();
  out.explanation = std::move(x);
  explain_.reset();
}

}  // namespace scoria::session
