// The dispatch rules of each hook kind across tiers, as Volcano's
// framework/session_plugins.go defines them.
#include <gtest/gtest.h>

#include "plugin/reason_table.h"
#include "session/session.h"
#include "session_fixture.h"

namespace scoria::session {
namespace {

// A fake plugin whose answers the test sets.
struct Fake {
  uint32_t seen_kind = 0;  // the eviction kind on_evictable was told
  size_t seen_tasks = 0;   // how many tasks on_preemptive_tasks was asked about
  int order = 0;
  scoria_vote vote = SCORIA_VOTE_ABSTAIN;
  int yes = 1;
  std::vector<uint8_t> select = {};  // for victim hooks
  scoria_code predicate = SCORIA_OK;
  uint32_t reason = 0;
  double score = 0;
  int64_t best = -1;
};
Fake* F(void* ud) { return static_cast<Fake*>(ud); }

scoria_hooks hooks_for(Fake& f) {
  scoria_hooks h{};
  h.struct_size = sizeof h;
  h.user_data = &f;
  h.on_job_order = [](void* u, const scoria_job*, const scoria_job*) { return F(u)->order; };
  h.on_task_order = [](void* u, const scoria_task*, const scoria_task*) { return F(u)->order; };
  h.on_job_ready = [](void* u, const scoria_job*) { return F(u)->yes; };
  h.on_job_pipelined = [](void* u, const scoria_job*) { return F(u)->vote; };
  h.on_job_enqueueable = [](void* u, const scoria_job*) { return F(u)->vote; };
  h.on_job_starving = [](void* u, const scoria_job*) { return F(u)->yes; };
  h.on_overused = [](void* u, const scoria_queue*) { return F(u)->yes; };
  h.on_allocatable = [](void* u, const scoria_queue*, const scoria_task*) { return F(u)->yes; };
  h.on_preemptive = [](void* u, const scoria_queue*, const scoria_task*) { return F(u)->yes; };
  h.on_predicate = [](void* u, const scoria_task*, const scoria_node*, uint32_t* r) {
    *r = F(u)->reason;
    return F(u)->predicate;
  };
  h.on_node_order = [](void* u, const scoria_task*, const scoria_node* n, double* s) {
    *s = F(u)->score * (n->index + 1);
    return SCORIA_OK;
  };
  h.on_best_node = [](void* u, const scoria_task*, const scoria_node* const*, const double*,
                      size_t) { return F(u)->best; };
  h.on_preemptable = [](void* u, const scoria_task*, const scoria_task* const*, size_t n,
                        uint8_t* sel) {
    for (size_t i = 0; i < n && i < F(u)->select.size(); ++i) sel[i] = F(u)->select[i];
    return F(u)->vote;
  };
  h.on_victim_tasks = [](void* u, const scoria_task* const*, size_t n, uint8_t* sel) {
    for (size_t i = 0; i < n && i < F(u)->select.size(); ++i) sel[i] = F(u)->select[i];
  };
  h.on_evictable = [](void* u, const scoria_eviction_context* ctx, const scoria_task* const*,
                      size_t n, uint8_t* sel) {
    F(u)->seen_kind = ctx->kind;
    for (size_t i = 0; i < n && i < F(u)->select.size(); ++i) sel[i] = F(u)->select[i];
    return F(u)->vote;
  };
  return h;
}

// The same fake, answering preemptive for several tasks at once.
scoria_hooks hooks_with_preemptive_tasks(Fake& f) {
  scoria_hooks h = hooks_for(f);
  h.on_preemptive_tasks = [](void* u, const scoria_queue*, const scoria_task* const*, size_t n) {
    F(u)->seen_tasks = n;
    return F(u)->yes;
  };
  return h;
}

class TierDispatch : public ::testing::Test {
 protected:
  void SetUp() override {
    f.node("n0", 4000, 0);
    f.node("n1", 4000, 0);
    f.node("n2", 500, 0);
    f.queue("default");
    f.job("b-job", 1, 2, 1000, 0, /*created=*/10);
    f.job("a-job", 1, 1, 1000, 0, /*created=*/10);
    f.job("old", 1, 1, 1000, 0, /*created=*/5);
    ssn = std::make_unique<Session>(f.snap, f.config, nullptr);
  }
  // Adds fake plugin `fake` to `tier`, with option flags from `option`.
  void add(size_t tier, Fake& fake, const config::PluginOption* option = nullptr) {
    PluginHooks p;
    p.name = "fake";
    p.option = option;
    p.hooks = hooks_for(fake);
    ssn->add_plugin_hooks(tier, p);
  }
  // The same with the fake's multi-task preemptive hook.
  void add_with_preemptive_tasks(size_t tier, Fake& fake) {
    PluginHooks p;
    p.name = "fake";
    p.hooks = hooks_with_preemptive_tasks(fake);
    ssn->add_plugin_hooks(tier, p);
  }
  Job& job(size_t i) { return ssn->jobs()[i]; }

  test_support::SessionFixture f;
  std::unique_ptr<Session> ssn;
};

TEST_F(TierDispatch, OrderFallsBackToCreationTimeThenUid) {
  EXPECT_TRUE(ssn->dispatch().job_less(job(2), job(0)));  // older first
  EXPECT_TRUE(ssn->dispatch().job_less(job(1), job(0)));  // same time: by uid
  EXPECT_FALSE(ssn->dispatch().job_less(job(0), job(1)));
}

TEST_F(TierDispatch, OrderTakesFirstDecisiveAnswerTierByTier) {
  Fake undecided{.order = 0}, second{.order = 1}, third{.order = -1};
  add(0, undecided);
  add(0, second);  // says r first
  add(1, third);   // never asked: tier 0 decided
  // The fallback (creation time) would put job 2 first; tier 0's "r first"
  // decides, and tier 1's "l first" is never asked.
  EXPECT_FALSE(ssn->dispatch().job_less(job(2), job(0)));
  EXPECT_FALSE(ssn->dispatch().job_less(job(0), job(2)));
}

TEST_F(TierDispatch, DisabledFlagSkipsOnlyThatHook) {
  config::PluginOption off;
  off.flags[static_cast<size_t>(config::Flag::JobOrder)] = false;
  Fake fake{.order = 1};
  add(0, fake, &off);
  EXPECT_TRUE(ssn->dispatch().job_less(job(2), job(0)));  // fallback, plugin ignored
  fake.yes = 0;
  EXPECT_FALSE(ssn->dispatch().job_ready(job(0)));  // its other hooks still count
}

// Volcano's CompareTask: the index of a job-task-N name first; a name of
// fewer parts has none, and creation time then uid decide.
TEST_F(TierDispatch, TaskOrderFallsBackToPodIndex) {
  test_support::SessionFixture g;
  g.queue("q");
  g.job("j", 1, 0, 0);
  g.task(0, "j-ps-10", 1);
  g.task(0, "j-ps-2", 1);
  g.task(0, "web-10", 1);
  g.task(0, "web-2", 1);
  g.task(0, "j-ps-+3", 1);
  Session s(g.snap, g.config, nullptr);
  const auto& t = s.tasks();
  EXPECT_TRUE(s.dispatch().task_less(t[1], t[0]));  // index 2 before 10
  EXPECT_TRUE(s.dispatch().task_less(t[2], t[3]));  // no index: uid ns/web-10 before ns/web-2
  EXPECT_FALSE(s.dispatch().task_less(t[3], t[2]));
  EXPECT_TRUE(s.dispatch().task_less(t[4], t[0]));  // Atoi's sign: 3 before 10
  EXPECT_TRUE(s.dispatch().task_less(t[1], t[4]));
}

TEST_F(TierDispatch, ReadyAllocatableNeedEveryPluginOverusedNeedsOne) {
  Fake yes{.yes = 1}, no{.yes = 0};
  add(0, yes);
  EXPECT_TRUE(ssn->dispatch().job_ready(job(0)));
  EXPECT_TRUE(ssn->overused(ssn->queues()[0]));
  EXPECT_TRUE(ssn->dispatch().preemptive(ssn->queues()[0], ssn->tasks()[0]));
  add(1, no);
  EXPECT_FALSE(ssn->dispatch().job_ready(job(0)));
  EXPECT_FALSE(ssn->dispatch().allocatable(ssn->queues()[0], ssn->tasks()[0]));
  EXPECT_FALSE(ssn->dispatch().preemptive(ssn->queues()[0], ssn->tasks()[0]));
  EXPECT_TRUE(ssn->overused(ssn->queues()[0]));
}

TEST_F(TierDispatch, NoHooksMeansReadyAndNotOverused) {
  EXPECT_TRUE(ssn->dispatch().job_ready(job(0)));
  EXPECT_TRUE(ssn->dispatch().preemptive(ssn->queues()[0], ssn->tasks()[0]));
  EXPECT_TRUE(ssn->dispatch().job_pipelined(job(0)));
  EXPECT_FALSE(ssn->overused(ssn->queues()[0]));
  EXPECT_FALSE(ssn->dispatch().job_starving(job(0)));
}

TEST_F(TierDispatch, VotesRejectWinsPermitEndsWalkAbstainIsYes) {
  Fake abstain{.vote = SCORIA_VOTE_ABSTAIN}, permit{.vote = SCORIA_VOTE_PERMIT},
      reject{.vote = SCORIA_VOTE_REJECT};
  add(0, abstain);
  EXPECT_TRUE(ssn->dispatch().job_pipelined(job(0)));
  add(1, permit);
  add(2, reject);  // never reached: tier 1 permitted
  EXPECT_TRUE(ssn->dispatch().job_pipelined(job(0)));
  EXPECT_TRUE(ssn->dispatch().job_enqueueable(job(0)));
  add(1, reject);  // same tier as the permit: reject wins
  EXPECT_FALSE(ssn->dispatch().job_pipelined(job(0)));
}

TEST_F(TierDispatch, StarvingFirstTierWithHookDecides) {
  Fake yes{.yes = 1}, no{.yes = 0};
  add(0, yes);
  add(1, no);  // not consulted
  EXPECT_TRUE(ssn->dispatch().job_starving(job(0)));
  add(0, no);
  EXPECT_FALSE(ssn->dispatch().job_starving(job(0)));
}

TEST_F(TierDispatch, PredicatesMustAllPassAndReasonsAreCounted) {
  const uint32_t taint = plugin::intern_reason("node(s) had untolerated taint");
  Fake pass{}, fail{.predicate = SCORIA_UNSCHEDULABLE_AND_UNRESOLVABLE, .reason = taint};
  add(0, pass);
  std::vector<const Node*> fit(3);
  Task& t = ssn->tasks()[0];
  // n2 has 500m cpu: the resource check rejects it first.
  EXPECT_EQ(ssn->predicate_nodes(t, ssn->all_nodes(), true, fit.data()), 2u);
  EXPECT_EQ(fit[0]->spec->name, "n0");
  EXPECT_EQ(fit[1]->spec->name, "n1");
  add(1, fail);
  EXPECT_EQ(ssn->predicate_nodes(t, ssn->all_nodes(), true, fit.data()), 0u);
  const FitErrors* fit_errors = ssn->fit_of(t);
  ASSERT_NE(fit_errors, nullptr);
  ASSERT_TRUE(fit_errors->recorded);
  EXPECT_EQ(fit_errors->nodes_tried, 3u);
  std::map<std::string, uint32_t> counts;
  for (auto [id, n] : fit_errors->reasons) counts[std::string(plugin::reason_text(id))] = n;
  EXPECT_EQ(counts["node(s) had untolerated taint"], 2u);
  EXPECT_EQ(counts["Insufficient cpu"], 1u);
}

TEST_F(TierDispatch, ScoresAddUpAndBestNodeBreaksTiesByNodeOrder) {
  Fake a{.score = 1}, b{.score = 2};
  add(0, a);
  add(1, b);
  auto nodes = ssn->all_nodes();
  std::vector<double> scores(3);
  ssn->node_scores(ssn->tasks()[0], nodes, scores.data());
  EXPECT_DOUBLE_EQ(scores[0], 3);
  EXPECT_DOUBLE_EQ(scores[2], 9);
  EXPECT_EQ(ssn->best_node(ssn->tasks()[0], nodes, scores.data()), 2);
  std::vector<double> ties(3, 1.0);
  EXPECT_EQ(ssn->best_node(ssn->tasks()[0], nodes, ties.data()), 0);
  Fake chooser{.best = 1};
  add(0, chooser);
  EXPECT_EQ(ssn->best_node(ssn->tasks()[0], nodes, ties.data()), 1);
}

TEST_F(TierDispatch, PreemptableIntersectsWithinTierFirstDecidingTierWins) {
  std::vector<const Task*> cands = {&ssn->tasks()[0], &ssn->tasks()[1], &ssn->tasks()[2]};
  std::vector<uint8_t> sel(3);
  Fake a{.vote = SCORIA_VOTE_PERMIT, .select = {1, 1, 0}};
  Fake b{.vote = SCORIA_VOTE_PERMIT, .select = {0, 1, 1}};
  Fake later{.vote = SCORIA_VOTE_PERMIT, .select = {1, 1, 1}};
  add(0, a);
  add(0, b);
  add(1, later);
  ssn->preemptable(ssn->tasks()[3], cands, sel.data());
  EXPECT_EQ(sel, (std::vector<uint8_t>{0, 1, 0}));
}

// Volcano's quirk, kept: an intersection that comes out empty is a nil
// list again, which the tier's next permitting plugin starts afresh.
TEST_F(TierDispatch, PreemptableEmptyIntersectionIsStartedAgainByTheNextPlugin) {
  std::vector<const Task*> cands = {&ssn->tasks()[0], &ssn->tasks()[1], &ssn->tasks()[2]};
  std::vector<uint8_t> sel(3);
  Fake a{.vote = SCORIA_VOTE_PERMIT, .select = {1, 0, 0}};
  Fake b{.vote = SCORIA_VOTE_PERMIT, .select = {0, 1, 0}};
  Fake c{.vote = SCORIA_VOTE_PERMIT, .select = {0, 1, 1}};
  Fake later{.vote = SCORIA_VOTE_PERMIT, .select = {1, 1, 1}};
  add(0, a);
  add(0, b);
  add(1, later);
  ssn->preemptable(ssn->tasks()[3], cands, sel.data());
  EXPECT_EQ(sel, (std::vector<uint8_t>{1, 1, 1}));  // tier 0 named none: tier 1 decides
  add(0, c);
  ssn->preemptable(ssn->tasks()[3], cands, sel.data());
  EXPECT_EQ(sel, (std::vector<uint8_t>{0, 1, 1}));  // c started tier 0's list again
}

TEST_F(TierDispatch, PreemptableEmptyPermitDefersToNextTier) {
  std::vector<const Task*> cands = {&ssn->tasks()[0], &ssn->tasks()[1]};
  std::vector<uint8_t> sel(2);
  Fake none{.vote = SCORIA_VOTE_PERMIT, .select = {0, 0}};
  Fake abstain{.vote = SCORIA_VOTE_ABSTAIN, .select = {1, 1}};
  add(0, none);
  add(0, abstain);
  ssn->preemptable(ssn->tasks()[3], cands, sel.data());
  EXPECT_EQ(sel, (std::vector<uint8_t>{0, 0}));
  Fake next{.vote = SCORIA_VOTE_PERMIT, .select = {1, 0}};
  add(1, next);
  ssn->preemptable(ssn->tasks()[3], cands, sel.data());
  EXPECT_EQ(sel, (std::vector<uint8_t>{1, 0}));
}

// Volcano's UnifiedEvictable: dispatched as preemptable is, but no enable
// flag turns it off, and every plugin sees who asks.
TEST_F(TierDispatch, EvictableIntersectsWithinTierIgnoresFlagsAndPassesTheContext) {
  std::vector<const Task*> cands = {&ssn->tasks()[0], &ssn->tasks()[1], &ssn->tasks()[2]};
  std::vector<uint8_t> sel(3);
  config::PluginOption off;
  off.flags[static_cast<size_t>(config::Flag::Preemptable)] = false;
  off.flags[static_cast<size_t>(config::Flag::Reclaimable)] = false;
  Fake a{.vote = SCORIA_VOTE_PERMIT, .select = {1, 1, 0}};
  Fake b{.vote = SCORIA_VOTE_PERMIT, .select = {0, 1, 1}};
  add(0, a, &off);
  add(0, b);
  const scoria_eviction_context ctx{
      sizeof ctx, SCORIA_EVICTION_GANG_RECLAIM, &job(0), nullptr, {nullptr, 0}};
  ssn->dispatch().evictable(ctx, cands, sel.data());
  EXPECT_EQ(sel, (std::vector<uint8_t>{0, 1, 0}));
  EXPECT_EQ(a.seen_kind, SCORIA_EVICTION_GANG_RECLAIM);
  EXPECT_EQ(b.seen_kind, SCORIA_EVICTION_GANG_RECLAIM);
}

TEST_F(TierDispatch, EvictableWithNoAnswerNamesNoVictim) {
  std::vector<const Task*> cands = {&ssn->tasks()[0]};
  std::vector<uint8_t> sel = {1};
  Fake abstain{.vote = SCORIA_VOTE_ABSTAIN, .select = {1}};
  add(0, abstain);
  const scoria_eviction_context ctx{
      sizeof ctx, SCORIA_EVICTION_GANG_PREEMPT, &job(0), nullptr, {nullptr, 0}};
  ssn->dispatch().evictable(ctx, cands, sel.data());
  EXPECT_EQ(sel, (std::vector<uint8_t>{0}));
}

// Preemptive for a gang's tasks together: a plugin with the multi-task hook
// is asked once about all of them; one with only the single-task hook is
// asked task by task and must agree for each.
TEST_F(TierDispatch, PreemptiveTasksAsksTogetherElseTaskByTask) {
  const std::vector<const Task*> tasks = {&ssn->tasks()[0], &ssn->tasks()[1]};
  const Queue& q = ssn->queues()[0];
  Fake together{.yes = 1};
  add_with_preemptive_tasks(0, together);
  EXPECT_TRUE(ssn->dispatch().preemptive_tasks(q, tasks));
  EXPECT_EQ(together.seen_tasks, 2u);
  together.yes = 0;
  EXPECT_FALSE(ssn->dispatch().preemptive_tasks(q, tasks));
  together.yes = 1;
  Fake single{.yes = 0};
  add(1, single);
  EXPECT_FALSE(ssn->dispatch().preemptive_tasks(q, tasks));
  EXPECT_FALSE(ssn->dispatch().preemptive(q, ssn->tasks()[0]));
}

TEST_F(TierDispatch, VictimTasksUnionWithinFirstSelectingTier) {
  std::vector<const Task*> tasks = {&ssn->tasks()[0], &ssn->tasks()[1], &ssn->tasks()[2]};
  std::vector<uint8_t> sel(3);
  Fake a{.select = {1, 0, 0}}, b{.select = {0, 1, 0}}, c{.select = {0, 0, 1}};
  add(0, a);
  add(0, b);
  add(1, c);
  ssn->dispatch().victim_tasks(tasks, sel.data());
  EXPECT_EQ(sel, (std::vector<uint8_t>{1, 1, 0}));
}

}  // namespace
}  // namespace scoria::session
