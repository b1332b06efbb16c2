// How session_evictable walks the tiers, as Volcano's UnifiedEvictable does
// (framework/session_plugins.go): the permitted sets of a tier intersect, the
// first tier with a non-empty set decides, and a tier whose set comes out
// empty passes the question on. (tier_dispatch_test.cpp covers the
// intersection itself, the enable flags it ignores and the context.)
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "session/session.h"
#include "session_fixture.h"

namespace scoria::session {
namespace {

// A plugin with only an evictable hook, answering what the test sets.
struct Answer {
  scoria_vote vote = SCORIA_VOTE_PERMIT;
  std::vector<uint8_t> select;
  int calls = 0;
};

scoria_hooks evictable_only(Answer& a) {
  scoria_hooks h{};
  h.struct_size = sizeof h;
  h.user_data = &a;
  h.on_evictable = [](void* u, const scoria_eviction_context*, const scoria_task* const*, size_t n,
                      uint8_t* sel) {
    auto* me = static_cast<Answer*>(u);
    ++me->calls;
    for (size_t i = 0; i < n && i < me->select.size(); ++i) sel[i] = me->select[i];
    return me->vote;
  };
  return h;
}

class EvictableWalk : public ::testing::Test {
 protected:
  void SetUp() override {
    f.node("n0", 4000, 0);
    f.queue("default");
    f.job("victims", 1, 2, 1000);
    f.job("gang", 1, 1, 1000);
    ssn = std::make_unique<Session>(f.snap, f.config, nullptr);
    ctx.struct_size = sizeof ctx;
    ctx.kind = SCORIA_EVICTION_GANG_PREEMPT;
    ctx.job = &ssn->jobs()[1];
  }
  void add(size_t tier, Answer& a) {
    PluginHooks p;
    p.name = "fake";
    p.hooks = evictable_only(a);
    ssn->add_plugin_hooks(tier, p);
  }
  std::vector<uint8_t> ask() {
    const std::vector<const Task*> cands = {&ssn->tasks()[0], &ssn->tasks()[1]};
    std::vector<uint8_t> sel(cands.size(), 1);
    ssn->dispatch().evictable(ctx, cands, sel.data());
    return sel;
  }

  test_support::SessionFixture f;
  std::unique_ptr<Session> ssn;
  scoria_eviction_context ctx{};
};

TEST_F(EvictableWalk, FirstTierThatPermitsAnyDecides) {
  Answer first{.select = {1, 0}}, later{.select = {1, 1}};
  add(0, first);
  add(1, later);
  EXPECT_EQ(ask(), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(later.calls, 0);
}

TEST_F(EvictableWalk, EmptyTierPassesTheQuestionOn) {
  Answer none{.select = {0, 0}}, abstain{.vote = SCORIA_VOTE_ABSTAIN, .select = {1, 1}},
      later{.select = {0, 1}};
  add(0, none);
  add(0, abstain);
  add(1, later);
  EXPECT_EQ(ask(), (std::vector<uint8_t>{0, 1}));
}

TEST_F(EvictableWalk, DisjointPermitsInATierLeaveItToTheNext) {
  Answer a{.select = {1, 0}}, b{.select = {0, 1}}, later{.select = {1, 1}};
  add(0, a);
  add(0, b);
  EXPECT_EQ(ask(), (std::vector<uint8_t>{0, 0}));  // no later tier: no victims
  add(1, later);
  EXPECT_EQ(ask(), (std::vector<uint8_t>{1, 1}));
}

}  // namespace
}  // namespace scoria::session
