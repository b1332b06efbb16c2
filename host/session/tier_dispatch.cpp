#include "session/tier_dispatch.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <utility>

#include "plugin/crash_report.h"
#include "plugin/reason_table.h"
#include "session/hook_calls.h"
#include "session/plugin_answers.h"

namespace scoria::session {

using config::Flag;

namespace {

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

void TierDispatch::add(size_t tier, PluginHooks hooks) {
  if (tiers_.size() <= tier) tiers_.resize(tier + 1);
  hooks.failed_reason =
      plugin::intern_reason("node(s) were refused because plugin " + hooks.name + " failed");
  hooks.mark = plugin::lasting_name(hooks.name);
  tiers_[tier].push_back(std::move(hooks));
}

bool TierDispatch::job_less(const Job& l, const Job& r) {
  if (int c =
          first_order(tiers_, Flag::JobOrder, &scoria_hooks::on_job_order, "on_job_order", &l, &r);
      c != 0)
    return c < 0;
  if (l.spec.creation_ms != r.spec.creation_ms) return l.spec.creation_ms < r.spec.creation_ms;
  return l.uid < r.uid;
}

bool TierDispatch::queue_less(const Queue& l, const Queue& r) {
  if (int c = first_order(tiers_, Flag::QueueOrder, &scoria_hooks::on_queue_order, "on_queue_order",
                          &l, &r);
      c != 0)
    return c < 0;
  if (l.spec->creation_ms != r.spec->creation_ms) return l.spec->creation_ms < r.spec->creation_ms;
  return l.spec->name < r.spec->name;
}

bool TierDispatch::task_less(const Task& l, const Task& r) {
  if (int c = first_order(tiers_, Flag::TaskOrder, &scoria_hooks::on_task_order, "on_task_order",
                          &l, &r);
      c != 0)
    return c < 0;
  long li = 0, ri = 0;
  if (pod_index(l.pod->name, li) && pod_index(r.pod->name, ri) && li != ri) return li < ri;
  if (l.pod->creation_ms != r.pod->creation_ms) return l.pod->creation_ms < r.pod->creation_ms;
  return l.views->uid < r.views->uid;
}

bool TierDispatch::victim_queue_less(const Queue& l, const Queue& r, const Task* preemptor) {
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

bool TierDispatch::best_node_hooked() {
  if (!best_node_hooked_) {
    bool hooked = false;
    for (auto& tier : tiers_)
      for (auto& p : tier) hooked = hooked || (on(p, Flag::BestNode) && p.hooks.on_best_node);
    best_node_hooked_ = hooked;
  }
  return *best_node_hooked_;
}

bool TierDispatch::serial_predicates() const {
  for (const auto& tier : tiers_)
    for (const auto& p : tier)
      if (on(p, Flag::Predicate) && (p.hooks.on_predicate || p.hooks.on_predicate_batch) &&
          p.serial)
        return true;
  return false;
}

// ---------------------------------------------------------------------------
// Job and queue decisions

bool TierDispatch::job_valid(const Job& job, std::string* message) {
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

bool TierDispatch::job_ready(const Job& job) {
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

bool TierDispatch::job_pipelined(const Job& job) {
  return vote(tiers_, Flag::JobPipelined, &scoria_hooks::on_job_pipelined, Answer::JobPipelined,
              job);
}

bool TierDispatch::sub_job_ready(const SubJob& sub_job) {
  return all_agree(tiers_, Flag::SubJobReady, &scoria_hooks::on_sub_job_ready, "on_sub_job_ready",
                   sub_job);
}

bool TierDispatch::sub_job_pipelined(const SubJob& sub_job) {
  return vote(tiers_, Flag::SubJobPipelined, &scoria_hooks::on_sub_job_pipelined,
              Answer::SubJobPipelined, sub_job);
}

// Volcano's SubJobOrderFn: the plugins, then the match index, then the uid.
bool TierDispatch::sub_job_less(const SubJob& l, const SubJob& r) {
  if (int c = first_order(tiers_, Flag::SubJobOrder, &scoria_hooks::on_sub_job_order,
                          "on_sub_job_order", &l, &r);
      c != 0)
    return c < 0;
  if (l.match_index != r.match_index) return l.match_index < r.match_index;
  return l.uid < r.uid;
}

bool TierDispatch::job_enqueueable(const Job& job) {
  return vote(tiers_, Flag::JobEnqueued, &scoria_hooks::on_job_enqueueable, Answer::JobEnqueueable,
              job);
}

void TierDispatch::job_enqueued(const Job& job) {
  each(tiers_, Flag::JobEnqueued, [&](PluginHooks& p) {
    if (p.hooks.on_job_enqueued) call(p, "on_job_enqueued", p.hooks.on_job_enqueued, &job);
  });
}

bool TierDispatch::job_starving(const Job& job) {
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

bool TierDispatch::overused(const Queue& queue) {
  bool over = false;
  each(tiers_, Flag::Overused, [&](PluginHooks& p) {
    if (!over && p.hooks.on_overused && call(p, "on_overused", p.hooks.on_overused, &queue))
      over = true;
  });
  return over;
}

bool TierDispatch::allocatable(const Queue& queue, const Task& task) {
  bool ok = true;
  each(tiers_, Flag::Allocatable, [&](PluginHooks& p) {
    if (ok && p.hooks.on_allocatable &&
        !call(p, "on_allocatable", p.hooks.on_allocatable, &queue, &task))
      ok = false;
  });
  return ok;
}

bool TierDispatch::preemptive(const Queue& queue, const Task& task) {
  const Task* one = &task;
  return preemptive_tasks(queue, {&one, 1});
}

bool TierDispatch::preemptive_tasks(const Queue& queue, std::span<const Task* const> tasks) {
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

void TierDispatch::preemptable(const Task& preemptor, std::span<const Task* const> candidates,
                               uint8_t* selected) {
  select_victims(tiers_, Flag::Preemptable, &scoria_hooks::on_preemptable, Answer::Preemptable,
                 &preemptor, candidates, selected);
}

void TierDispatch::reclaimable(const Task& reclaimer, std::span<const Task* const> candidates,
                               uint8_t* selected) {
  select_victims(tiers_, Flag::Reclaimable, &scoria_hooks::on_reclaimable, Answer::Reclaimable,
                 &reclaimer, candidates, selected);
}

void TierDispatch::evictable(const scoria_eviction_context& ctx,
                             std::span<const Task* const> candidates, uint8_t* selected) {
  select_victims(tiers_, std::nullopt, &scoria_hooks::on_evictable, Answer::Evictable, &ctx,
                 candidates, selected);
}

void TierDispatch::victim_tasks(std::span<const Task* const> tasks, uint8_t* selected) {
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
