// host_api.session_predicate_without (ABI 1.5): the predicates answer as if
// some tasks had left their nodes, and afterwards everything is as it was.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "abi/host_api.h"
#include "session/session.h"
#include "session/statement.h"
#include "session_fixture.h"

namespace scoria::session {
namespace {

// What a predicate hook saw of node 0 and of task 0 during its call.
struct Seen {
  std::vector<std::string> tasks_on_node;
  std::string node_of_task0;
  double used_cpu = 0;
  double idle_cpu = 0;
  double releasing_cpu = 0;
  // Refuse the node while a task named `refuse_while` is on it.
  std::string refuse_while;
};

scoria_hooks hooks_for(Seen& seen) {
  scoria_hooks h{};
  h.struct_size = sizeof h;
  h.user_data = &seen;
  h.on_predicate = [](void* u, const scoria_task* task, const scoria_node* node, uint32_t*) {
    auto& s = *static_cast<Seen*>(u);
    const scoria_host_api* api = abi::host_api();
    s.tasks_on_node.clear();
    bool refuse = false;
    for (size_t i = 0; i < api->node_task_count(node); ++i) {
      scoria_task_info info{};
      info.struct_size = sizeof info;
      api->task_info(api->node_task_at(node, i), &info);
      s.tasks_on_node.emplace_back(info.name.data, info.name.len);
      refuse = refuse || s.tasks_on_node.back() == s.refuse_while;
    }
    const Task& t0 = task->ssn->tasks()[0];
    scoria_task_info info{};
    info.struct_size = sizeof info;
    api->task_info(&t0, &info);
    s.node_of_task0.assign(info.node_name.data, info.node_name.len);
    scoria_node_info ni{};
    ni.struct_size = sizeof ni;
    api->node_info(node, &ni);
    s.used_cpu = ni.used[0];
    s.idle_cpu = ni.idle[0];
    s.releasing_cpu = ni.releasing[0];
    return refuse ? SCORIA_UNSCHEDULABLE : SCORIA_OK;
  };
  return h;
}

class PredicateWithout : public ::testing::Test {
 protected:
  void SetUp() override {
    f.node("n0", 4000, 0);
    f.queue("default");
    f.job("run", 1, 0, 0);
    f.task(0, "r-0", 1000, SCORIA_TASK_RUNNING, 0);
    f.task(0, "r-1", 1000, SCORIA_TASK_RUNNING, 0);
    f.task(0, "r-2", 1000, SCORIA_TASK_RUNNING, 0);
    f.job("want", 1, 1, 1000);
    ssn = std::make_unique<Session>(f.snap, f.config, nullptr);
    PluginHooks p;
    p.name = "seeing";
    p.hooks = hooks_for(seen);
    ssn->add_plugin_hooks(0, p);
  }
  scoria_code ask(std::vector<const scoria_task*> gone) {
    uint32_t reason = 0;
    return abi::host_api()->session_predicate_without(reinterpret_cast<scoria_session*>(ssn.get()),
                                                      &ssn->tasks()[3], &ssn->nodes()[0],
                                                      gone.data(), gone.size(), &reason);
  }

  test_support::SessionFixture f;
  std::unique_ptr<Session> ssn;
  Seen seen;
};

TEST_F(PredicateWithout, HooksSeeTheTasksOffTheirNode) {
  seen.refuse_while = "r-0";
  EXPECT_EQ(ask({}), SCORIA_UNSCHEDULABLE);
  EXPECT_EQ(seen.tasks_on_node, (std::vector<std::string>{"r-0", "r-1", "r-2"}));
  EXPECT_EQ(seen.node_of_task0, "n0");

  EXPECT_EQ(ask({&ssn->tasks()[0], &ssn->tasks()[2]}), SCORIA_OK);
  EXPECT_EQ(seen.tasks_on_node, (std::vector<std::string>{"r-1"}));
  EXPECT_EQ(seen.node_of_task0, "");
  EXPECT_DOUBLE_EQ(seen.used_cpu, 1000);
  EXPECT_DOUBLE_EQ(seen.idle_cpu, 3000);
}

TEST_F(PredicateWithout, EverythingIsBackAfterwards) {
  ASSERT_EQ(ask({&ssn->tasks()[1], nullptr, &ssn->tasks()[1], &ssn->tasks()[3]}), SCORIA_OK);
  const Node& n = ssn->nodes()[0];
  EXPECT_EQ(std::vector<uint32_t>(n.tasks.begin(), n.tasks.end()),
            (std::vector<uint32_t>{0, 1, 2}));  // order kept
  EXPECT_DOUBLE_EQ(n.used[0], 3000);
  EXPECT_DOUBLE_EQ(n.idle[0], 1000);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(ssn->tasks()[i].node, 0);
    EXPECT_EQ(ssn->tasks()[i].status, SCORIA_TASK_RUNNING);
  }
  EXPECT_EQ(ssn->tasks()[3].node, -1);
}

// The reason the call exists: a task evicted in a statement is still on its
// node (Releasing) for session_predicate; only the hypothetical call takes
// it off.
TEST_F(PredicateWithout, AnEvictedTaskIsStillOnItsNodeUnlessTakenOff) {
  seen.refuse_while = "r-0";
  Statement* st = ssn->open_statement();
  ASSERT_EQ(st->evict(ssn->tasks()[0], "preempt"), SCORIA_OK);
  uint32_t reason = 0;
  EXPECT_EQ(ssn->predicate(ssn->tasks()[3], ssn->nodes()[0], &reason), SCORIA_UNSCHEDULABLE);
  EXPECT_EQ(ask({&ssn->tasks()[0]}), SCORIA_OK);
  EXPECT_DOUBLE_EQ(seen.releasing_cpu, 0);
  EXPECT_DOUBLE_EQ(ssn->nodes()[0].releasing[0], 1000);  // back as it was
  st->discard();
}

TEST_F(PredicateWithout, RefusesHandlesItCannotUse) {
  uint32_t reason = 0;
  const scoria_host_api* api = abi::host_api();
  auto* handle = reinterpret_cast<scoria_session*>(ssn.get());
  EXPECT_EQ(api->session_predicate_without(handle, nullptr, &ssn->nodes()[0], nullptr, 0, &reason),
            SCORIA_INVALID_ARGUMENT);
  EXPECT_EQ(api->session_predicate_without(handle, &ssn->tasks()[3], &ssn->nodes()[0], nullptr, 1,
                                           &reason),
            SCORIA_INVALID_ARGUMENT);
  EXPECT_EQ(api->session_predicate_without(handle, &ssn->tasks()[3], &ssn->nodes()[0], nullptr, 0,
                                           &reason),
            SCORIA_OK);
}

}  // namespace
}  // namespace scoria::session
