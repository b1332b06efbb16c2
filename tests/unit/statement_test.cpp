#include "session/statement.h"

#include <gtest/gtest.h>

#include "session_fixture.h"

namespace scoria::session {
namespace {

class StatementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    f.node("n0", 4000, 0);
    f.queue("default");
    f.job("j", 2, 2, 1000);
    ssn = std::make_unique<Session>(f.snap, f.config, nullptr);
  }
  test_support::SessionFixture f;
  std::unique_ptr<Session> ssn;
};

TEST_F(StatementTest, AllocateChangesSessionAtOnce) {
  Statement* st = ssn->open_statement();
  ASSERT_EQ(st->allocate(ssn->tasks()[0], ssn->nodes()[0]), SCORIA_OK);
  EXPECT_EQ(ssn->tasks()[0].status, SCORIA_TASK_ALLOCATED);
  EXPECT_DOUBLE_EQ(ssn->nodes()[0].idle[0], 3000);
  EXPECT_DOUBLE_EQ(ssn->queues()[0].allocated[0], 1000);
  EXPECT_EQ(ssn->jobs()[0].status_count[1], 1);
}

TEST_F(StatementTest, DiscardRestoresEverything) {
  Statement* st = ssn->open_statement();
  st->allocate(ssn->tasks()[0], ssn->nodes()[0]);
  st->pipeline(ssn->tasks()[1], ssn->nodes()[0]);
  EXPECT_DOUBLE_EQ(ssn->nodes()[0].pipelined[0], 1000);
  st->discard();
  for (const auto& t : ssn->tasks()) {
    EXPECT_EQ(t.status, SCORIA_TASK_PENDING);
    EXPECT_EQ(t.node, -1);
  }
  EXPECT_DOUBLE_EQ(ssn->nodes()[0].idle[0], 4000);
  EXPECT_DOUBLE_EQ(ssn->nodes()[0].pipelined[0], 0);
  EXPECT_DOUBLE_EQ(ssn->queues()[0].allocated[0], 0);
  EXPECT_TRUE(ssn->nodes()[0].tasks.empty());
  EXPECT_EQ(ssn->jobs()[0].status_count[0], 2);
}

TEST_F(StatementTest, CommitRecordsBindsAndCloseConfirmsThem) {
  Statement* st = ssn->open_statement();
  st->allocate(ssn->tasks()[0], ssn->nodes()[0]);
  st->allocate(ssn->tasks()[1], ssn->nodes()[0]);
  st->commit();
  EXPECT_EQ(ssn->tasks()[0].status, SCORIA_TASK_BINDING);
  Outcome out = ssn->close();
  ASSERT_EQ(out.binds.size(), 2u);
  EXPECT_EQ(out.binds[0].pod, "ns/j-0");
  EXPECT_EQ(out.binds[0].node, "n0");
  ASSERT_EQ(out.pod_groups.size(), 1u);
  EXPECT_EQ(out.pod_groups[0].phase, model::PodGroupPhase::Running);
}

TEST_F(StatementTest, UncommittedAllocationIsReportedPipelinedNotBound) {
  Statement* st = ssn->open_statement();
  st->allocate(ssn->tasks()[0], ssn->nodes()[0]);
  Outcome out = ssn->close();
  EXPECT_TRUE(out.binds.empty());
  ASSERT_EQ(out.pipelined.size(), 1u);
  EXPECT_EQ(out.pipelined[0].pod, "ns/j-0");
  EXPECT_EQ(out.pod_groups[0].phase, model::PodGroupPhase::Inqueue);
}

TEST_F(StatementTest, EvictMovesTaskToReleasingAndDiscardUndoes) {
  test_support::SessionFixture g;
  g.node("n0", 4000, 0);
  g.queue("default");
  g.job("r", 1, 0, 0);
  g.task(0, "r-0", 1000, SCORIA_TASK_RUNNING, 0);
  Session s(g.snap, g.config, nullptr);
  EXPECT_DOUBLE_EQ(s.nodes()[0].idle[0], 3000);
  Statement* st = s.open_statement();
  ASSERT_EQ(st->evict(s.tasks()[0], "preempted"), SCORIA_OK);
  EXPECT_EQ(s.tasks()[0].status, SCORIA_TASK_RELEASING);
  EXPECT_DOUBLE_EQ(s.nodes()[0].releasing[0], 1000);
  st->discard();
  EXPECT_EQ(s.tasks()[0].status, SCORIA_TASK_RUNNING);
  EXPECT_DOUBLE_EQ(s.nodes()[0].releasing[0], 0);
  EXPECT_DOUBLE_EQ(s.nodes()[0].idle[0], 3000);
}

TEST_F(StatementTest, CommittedEvictionIsReported) {
  test_support::SessionFixture g;
  g.node("n0", 4000, 0);
  g.queue("default");
  g.job("r", 1, 0, 0);
  g.task(0, "r-0", 1000, SCORIA_TASK_RUNNING, 0);
  Session s(g.snap, g.config, nullptr);
  Statement* st = s.open_statement();
  st->evict(s.tasks()[0], "preempted");
  st->commit();
  Outcome out = s.close();
  ASSERT_EQ(out.evictions.size(), 1u);
  EXPECT_EQ(out.evictions[0], "ns/r-0");
}

TEST_F(StatementTest, CannotAllocateATaskTwice) {
  Statement* st = ssn->open_statement();
  ASSERT_EQ(st->allocate(ssn->tasks()[0], ssn->nodes()[0]), SCORIA_OK);
  EXPECT_EQ(st->allocate(ssn->tasks()[0], ssn->nodes()[0]), SCORIA_INVALID_ARGUMENT);
  EXPECT_EQ(st->size(), 1u);
}

TEST_F(StatementTest, MergedOperationsAreDiscardedWithTheTarget) {
  Statement* job_stmt = ssn->open_statement();
  job_stmt->allocate(ssn->tasks()[0], ssn->nodes()[0]);
  Statement* node_stmt = ssn->open_statement();
  node_stmt->pipeline(ssn->tasks()[1], ssn->nodes()[0]);
  job_stmt->merge(*node_stmt);
  EXPECT_EQ(job_stmt->size(), 2u);
  EXPECT_EQ(node_stmt->size(), 0u);
  node_stmt->discard();  // empty: changes nothing
  EXPECT_EQ(ssn->tasks()[1].status, SCORIA_TASK_PIPELINED);
  job_stmt->discard();
  for (const auto& t : ssn->tasks()) EXPECT_EQ(t.status, SCORIA_TASK_PENDING);
  EXPECT_DOUBLE_EQ(ssn->nodes()[0].idle[0], 4000);
  EXPECT_DOUBLE_EQ(ssn->nodes()[0].pipelined[0], 0);
}

TEST_F(StatementTest, MergedOperationsAreCommittedWithTheTarget) {
  Statement* job_stmt = ssn->open_statement();
  Statement* node_stmt = ssn->open_statement();
  node_stmt->allocate(ssn->tasks()[0], ssn->nodes()[0]);
  node_stmt->allocate(ssn->tasks()[1], ssn->nodes()[0]);
  job_stmt->merge(*node_stmt);
  job_stmt->commit();
  Outcome out = ssn->close();
  EXPECT_EQ(out.binds.size(), 2u);
}

}  // namespace
}  // namespace scoria::session
