// Tier dispatch of every hook, with the rules of Volcano's
// framework/session_plugins.go: orders take the first decisive answer,
// predicates must all pass, scores add up, votes follow permit/abstain/reject.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
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

namespace {

// Calls fn(plugin) for every plugin, tier by tier, whose `flag` is enabled.
template <class Fn>
void each(std::vector<std::vector<PluginHooks>>& tiers, Flag flag, Fn&& fn) {
  for (auto& tier : tiers)
    for (auto& p : tier)
      if (on(p, flag)) fn(p);
}

// First non-zero comparison of `hook` across tiers, or 0.
template <class Hook, class... Args>
int first_order(std::vector<std::vector<PluginHooks>>& tiers, Flag flag, Hook hook,
                const char* name, Args... args) {
  for (auto& tier : tiers)
    for (auto& p : tier) {
      auto fn = p.hooks.*hook;
      if (fn == nullptr || !on(p, flag)) continue;
      if (int c = call(p, name, fn, args...); c != 0) return c;
    }
  return 0;
}

// Volcano's task fallback (CompareTask): the pod's index within its task,
// then creation time, then uid. The index is what GetPodIndexUnderTask reads:
// the last '-'-separated part of a name of at least three parts (a Volcano
// Job's pod, job-task-N), as strconv.Atoi reads it (an optional '+'); a
// name of one or two parts (web-10) has none.
bool pod_index(const std::string& name, long& out) {
  if (std::count(name.begin(), name.end(), '-') < 2) return false;
  const char* b = name.data() + name.rfind('-') + 1;
  const char* e = name.data() + name.size();
  if (b != e && *b == '+') ++b;
  if (b == e) return false;
  auto [ptr, ec] = std::from_chars(b, e, out);
  return ec == std::errc() && ptr == e;
}

}  // namespace

bool Session::job_less(const Job& l, const Job& r) {
  if (int c =
          first_order(tiers_, Flag::JobOrder, &scoria_hooks::on_job_order, "on_job_order", &l, &r);
      c != 0)
    return c < 0;
  if (l.spec.creation_ms != r.spec.creation_ms) return l.spec.creation_ms < r.spec.creation_ms;
  return l.uid < r.uid;
}

bool Session::queue_less(const Queue& l, const Queue& r) {
  if (int c = first_order(tiers_, Flag::QueueOrder, &scoria_hooks::on_queue_order, "on_queue_order",
                          &l, &r);
      c != 0)
    return c < 0;
  if (l.spec->creation_ms != r.spec->creation_ms) return l.spec->creation_ms < r.spec->creation_ms;
  return l.spec->name < r.spec->name;
}

bool Session::task_less(const Task& l, const Task& r) {
  if (int c = first_order(tiers_, Flag::TaskOrder, &scoria_hooks::on_task_order, "on_task_order",
                          &l, &r);
      c != 0)
    return c < 0;
  long li = 0, ri = 0;
  if (pod_index(l.pod->name, li) && pod_index(r.pod->name, ri) && li != ri) return li < ri;
  if (l.pod->creation_ms != r.pod->creation_ms) return l.pod->creation_ms < r.pod->creation_ms;
  return l.views->uid < r.views->uid;
}

bool Session::victim_queue_less(const Queue& l, const Queue& r, const Task* preemptor) {
  for (auto& tier : tiers_)
    for (auto& p : tier) {
      if (p.hooks.on_victim_queue_order == nullptr) continue;
      if (int c =
              call(p, "on_victim_queue_order", p.hooks.on_victim_queue_order, &l, &r, preemptor);
          c != 0)
        return c < 0;
    }
  return !queue_less(l, r);
}

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
  for (auto& tier : tiers_)
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
  for (auto& tier : tiers_)
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
  each(tiers_, Flag::NodeOrder, [&](PluginHooks& p) {
    if (p.hooks.on_node_order_batch == nullptr && p.hooks.on_node_order == nullptr) return;
    plugin_scores(p, task, nodes, part.data());
    for (size_t i = 0; i < nodes.size(); ++i) scores[i] += part[i];
    if (parts != nullptr) parts->push_back(part);
  });
}

bool Session::best_node_hooked() {
  if (!best_node_hooked_) {
    bool hooked = false;
    for (auto& tier : tiers_)
      for (auto& p : tier) hooked = hooked || (on(p, Flag::BestNode) && p.hooks.on_best_node);
    best_node_hooked_ = hooked;
  }
  return *best_node_hooked_;
}

bool Session::serial_predicates() {
  for (auto& tier : tiers_)
    for (auto& p : tier)
      if (on(p, Flag::Predicate) && (p.hooks.on_predicate || p.hooks.on_predicate_batch) &&
          p.serial)
        return true;
  return false;
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
  for (auto& tier : tiers_)
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

// ---------------------------------------------------------------------------
// Job and queue decisions

bool Session::job_valid(const Job& job, std::string* message) {
  if (!job.invalid.empty()) {
    if (message) *message = job.invalid;
    return false;
  }
  char buf[512];
  for (auto& tier : tiers_)
    for (auto& p : tier) {
      if (p.hooks.on_job_valid == nullptr) continue;
      buf[0] = '\0';
      const int c =
          static_cast<int>(call(p, "on_job_valid", p.hooks.on_job_valid, &job, buf, sizeof buf));
      if (c == SCORIA_OK || c == SCORIA_SKIP) continue;
      buf[sizeof buf - 1] = '\0';
      if (message) *message = buf;
      return false;
    }
  return true;
}

namespace {
// Every enabled plugin with `hook` says yes (none registered: yes).
template <class Hook, class Subject>
bool all_agree(std::vector<std::vector<PluginHooks>>& tiers, Flag flag, Hook hook, const char* name,
               const Subject& subject) {
  for (auto& tier : tiers)
    for (auto& p : tier) {
      auto fn = p.hooks.*hook;
      if (fn != nullptr && on(p, flag) && !call(p, name, fn, &subject)) return false;
    }
  return true;
}
}  // namespace

bool Session::job_ready(const Job& job) {
  return all_agree(tiers_, Flag::JobReady, &scoria_hooks::on_job_ready, "on_job_ready", job);
}

namespace {
// Votes: a reject wins at once; a permit ends the walk after its tier;
// all abstaining means yes. A vote outside the enum rejects (fails closed).
template <class Hook, class Subject>
bool vote(std::vector<std::vector<PluginHooks>>& tiers, Flag flag, Hook hook, Answer answer,
          const Subject& subject) {
  for (auto& tier : tiers) {
    bool permitted = false;
    for (auto& p : tier) {
      auto fn = p.hooks.*hook;
      if (fn == nullptr || !on(p, flag)) continue;
      const int v = static_cast<int>(call(p, hook_name(answer).data(), fn, &subject));
      if (!defined_vote(v)) {
        undefined_code(p, answer, v, "it counts as a reject");
        return false;
      }
      if (v < 0) return false;
      if (v > 0) permitted = true;
    }
    if (permitted) return true;
  }
  return true;
}

// Victim selection: within a tier, permitted sets intersect; the first tier
// that yields a non-empty set decides. A plugin that permits nothing clears
// the tier's set, and the walk moves on to the next tier (as Volcano does).
// An intersection that comes out empty is, as in Volcano (whose empty
// intersection is a nil list, "no list yet"), started again by the tier's
// next permitting plugin.
// `who` is what the hook is told of the asker (the preemptor, or the
// eviction's context); evictable has no enable flag.
template <class Hook, class Who>
void select_victims(std::vector<std::vector<PluginHooks>>& tiers, std::optional<Flag> flag,
                    Hook hook, Answer answer, const Who* who, std::span<const Task* const> cands,
                    uint8_t* selected) {
  const size_t n = cands.size();
  std::fill_n(selected, n, uint8_t{0});
  std::vector<uint8_t> mine(n);
  for (auto& tier : tiers) {
    bool have = false;
    for (auto& p : tier) {
      auto fn = p.hooks.*hook;
      if (fn == nullptr || (flag && !on(p, *flag))) continue;
      std::fill(mine.begin(), mine.end(), uint8_t{0});
      const int v = static_cast<int>(
          call(p, hook_name(answer).data(), fn, who, cands.data(), n, mine.data()));
      if (!defined_vote(v)) {
        // Fails closed: nothing is evicted on an answer nobody defined.
        undefined_code(p, answer, v, "no task is evicted");
        std::fill_n(selected, n, uint8_t{0});
        return;
      }
      if (v == SCORIA_VOTE_ABSTAIN) continue;
      bool any = std::any_of(mine.begin(), mine.end(), [](uint8_t b) { return b != 0; });
      if (!any) {
        have = false;
        break;
      }
      if (!have) {
        std::copy(mine.begin(), mine.end(), selected);
        have = true;
      } else {
        for (size_t i = 0; i < n; ++i) selected[i] = selected[i] && mine[i];
        have = std::any_of(selected, selected + n, [](uint8_t b) { return b != 0; });
      }
    }
    if (have && std::any_of(selected, selected + n, [](uint8_t b) { return b != 0; })) return;
    std::fill_n(selected, n, uint8_t{0});
  }
}
}  // namespace

bool Session::job_pipelined(const Job& job) {
  return vote(tiers_, Flag::JobPipelined, &scoria_hooks::on_job_pipelined, Answer::JobPipelined,
              job);
}

bool Session::sub_job_ready(const SubJob& sub_job) {
  const Job& job = jobs_[sub_job.job];
  if (!job.has_sub_group_policy) return job_ready(job);
  return all_agree(tiers_, Flag::SubJobReady, &scoria_hooks::on_sub_job_ready, "on_sub_job_ready",
                   sub_job);
}

bool Session::sub_job_pipelined(const SubJob& sub_job) {
  const Job& job = jobs_[sub_job.job];
  if (!job.has_sub_group_policy) return job_pipelined(job);
  return vote(tiers_, Flag::SubJobPipelined, &scoria_hooks::on_sub_job_pipelined,
              Answer::SubJobPipelined, sub_job);
}

// Volcano's SubJobOrderFn: the plugins, then the match index, then the uid.
bool Session::sub_job_less(const SubJob& l, const SubJob& r) {
  if (int c = first_order(tiers_, Flag::SubJobOrder, &scoria_hooks::on_sub_job_order,
                          "on_sub_job_order", &l, &r);
      c != 0)
    return c < 0;
  if (l.match_index != r.match_index) return l.match_index < r.match_index;
  return l.uid < r.uid;
}

bool Session::job_enqueueable(const Job& job) {
  return vote(tiers_, Flag::JobEnqueued, &scoria_hooks::on_job_enqueueable, Answer::JobEnqueueable,
              job);
}

void Session::job_enqueued(const Job& job) {
  each(tiers_, Flag::JobEnqueued, [&](PluginHooks& p) {
    if (p.hooks.on_job_enqueued) call(p, "on_job_enqueued", p.hooks.on_job_enqueued, &job);
  });
}

bool Session::job_starving(const Job& job) {
  // The first tier with a registered hook decides; all of it must agree.
  for (auto& tier : tiers_) {
    bool found = false;
    for (auto& p : tier) {
      if (p.hooks.on_job_starving == nullptr || !on(p, Flag::JobStarving)) continue;
      found = true;
      if (!call(p, "on_job_starving", p.hooks.on_job_starving, &job)) return false;
    }
    if (found) return true;
  }
  return false;
}

bool Session::overused(const Queue& queue) {
  bool over = false;
  each(tiers_, Flag::Overused, [&](PluginHooks& p) {
    if (!over && p.hooks.on_overused && call(p, "on_overused", p.hooks.on_overused, &queue))
      over = true;
  });
  // Kept for the queue_overused metric, as Volcano's proportion sets it
  // whenever it is asked.
  queues_[queue.index].overused = over;
  return over;
}

bool Session::allocatable(const Queue& queue, const Task& task) {
  bool ok = true;
  each(tiers_, Flag::Allocatable, [&](PluginHooks& p) {
    if (ok && p.hooks.on_allocatable &&
        !call(p, "on_allocatable", p.hooks.on_allocatable, &queue, &task))
      ok = false;
  });
  return ok;
}

bool Session::preemptive(const Queue& queue, const Task& task) {
  const Task* one = &task;
  return preemptive_tasks(queue, {&one, 1});
}

bool Session::preemptive_tasks(const Queue& queue, std::span<const Task* const> tasks) {
  bool ok = true;
  each(tiers_, Flag::Preemptive, [&](PluginHooks& p) {
    if (!ok) return;
    if (p.hooks.on_preemptive_tasks) {
      ok = call(p, "on_preemptive_tasks", p.hooks.on_preemptive_tasks, &queue, tasks.data(),
                tasks.size()) != 0;
    } else if (p.hooks.on_preemptive) {
      for (const Task* t : tasks)
        if (ok && !call(p, "on_preemptive", p.hooks.on_preemptive, &queue, t)) ok = false;
    }
  });
  return ok;
}

void Session::preemptable(const Task& preemptor, std::span<const Task* const> candidates,
                          uint8_t* selected) {
  select_victims(tiers_, Flag::Preemptable, &scoria_hooks::on_preemptable, Answer::Preemptable,
                 &preemptor, candidates, selected);
  // Volcano's preempt action sets pod_preemption_victims after each ask and
  // counts an attempt where the victims let it try; here, where there are any.
  if (action_ == "preempt") {
    const auto victims = static_cast<size_t>(
        std::count_if(selected, selected + candidates.size(), [](uint8_t v) { return v != 0; }));
    preemption_victims_ = victims;
    if (victims > 0) ++preemption_attempts_;
  }
}

void Session::count_eviction_transaction() {
  for (auto& [action, count] : eviction_transactions_)
    if (action == action_) {
      ++count;
      return;
    }
  eviction_transactions_.emplace_back(action_, 1);
}

void Session::reclaimable(const Task& reclaimer, std::span<const Task* const> candidates,
                          uint8_t* selected) {
  select_victims(tiers_, Flag::Reclaimable, &scoria_hooks::on_reclaimable, Answer::Reclaimable,
                 &reclaimer, candidates, selected);
}

void Session::evictable(const scoria_eviction_context& ctx, std::span<const Task* const> candidates,
                        uint8_t* selected) {
  select_victims(tiers_, std::nullopt, &scoria_hooks::on_evictable, Answer::Evictable, &ctx,
                 candidates, selected);
}

void Session::victim_tasks(std::span<const Task* const> tasks, uint8_t* selected) {
  const size_t n = tasks.size();
  std::fill_n(selected, n, uint8_t{0});
  std::vector<uint8_t> mine(n);
  for (auto& tier : tiers_) {
    bool any = false;
    for (auto& p : tier) {
      if (p.hooks.on_victim_tasks == nullptr || !on(p, Flag::Victim)) continue;
      std::fill(mine.begin(), mine.end(), uint8_t{0});
      call(p, "on_victim_tasks", p.hooks.on_victim_tasks, tasks.data(), n, mine.data());
      for (size_t i = 0; i < n; ++i)
        if (mine[i]) selected[i] = 1, any = true;
    }
    if (any) return;
  }
}

}  // namespace scoria::session
