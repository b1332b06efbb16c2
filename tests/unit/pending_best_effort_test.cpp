// job_info.pending_best_effort and sub_job_info.pending_best_effort (ABI
// 1.10): the Pending tasks that ask for nothing, counted live as statements
// place them and undo it; gang reads them for Volcano's IsReady.
#include <scoria/scoria.h>

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "host_table_session.h"

namespace scoria::cache {
namespace {

std::string pod(std::string_view name, bool asks) {
  std::string s =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  namespace: ml\n  name: " + std::string(name) +
      "\n  annotations: {scheduling.k8s.io/group-name: g}\n"
      "spec:\n  containers: [{name: c, image: x";
  s += asks ? ", resources: {requests: {cpu: '1'}}}]\n" : "}]\n";
  return s + "---\n";
}

const std::string kObjects =
    "apiVersion: v1\nkind: Node\nmetadata: {name: n0}\n"
    "status: {allocatable: {cpu: '8', memory: 16Gi, pods: '110'}}\n---\n"
    "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\n"
    "metadata: {namespace: ml, name: g}\nspec: {minMember: 3}\n---\n" +
    pod("b-0", false) + pod("b-1", false) + pod("r-0", true);

class PendingBestEffort : public HostTableSession {
 protected:
  void SetUp() override { load(kObjects); }
  scoria_session* mutable_handle() { return reinterpret_cast<scoria_session*>(ssn_.get()); }

  int32_t job_count_now() const {
    scoria_job_info ji{};
    ji.struct_size = sizeof ji;
    EXPECT_EQ(api_->job_info(api_->job_at(handle(), 0), &ji), SCORIA_OK);
    return ji.pending_best_effort;
  }
  int32_t sub_job_count_now() const {
    scoria_sub_job_info si{};
    si.struct_size = sizeof si;
    EXPECT_EQ(api_->sub_job_info(api_->job_sub_job_at(api_->job_at(handle(), 0), 0), &si),
              SCORIA_OK);
    return si.pending_best_effort;
  }
  const scoria_task* task(std::string_view name) const {
    const scoria_job* j = api_->job_at(handle(), 0);
    for (size_t i = 0; i < api_->job_task_count(j); ++i) {
      scoria_task_info ti{};
      ti.struct_size = sizeof ti;
      api_->task_info(api_->job_task_at(j, i), &ti);
      if (std::string_view(ti.name.data, ti.name.len) == name) return api_->job_task_at(j, i);
    }
    ADD_FAILURE() << "no task " << name;
    return nullptr;
  }
};

TEST_F(PendingBestEffort, CountedAsStatementsPlaceAndUndo) {
  ASSERT_EQ(api_->job_count(handle()), 1u);
  EXPECT_EQ(job_count_now(), 2);
  EXPECT_EQ(sub_job_count_now(), 2);

  scoria_statement* stmt = api_->statement_open(mutable_handle());
  ASSERT_NE(stmt, nullptr);
  const scoria_node* n0 = api_->node_at(handle(), 0);
  ASSERT_EQ(api_->statement_allocate(stmt, task("b-0"), n0), SCORIA_OK);
  EXPECT_EQ(job_count_now(), 1);
  EXPECT_EQ(sub_job_count_now(), 1);
  // A task that asks for something is not counted either way.
  ASSERT_EQ(api_->statement_allocate(stmt, task("r-0"), n0), SCORIA_OK);
  EXPECT_EQ(job_count_now(), 1);
  api_->statement_discard(stmt);
  EXPECT_EQ(job_count_now(), 2);
  EXPECT_EQ(sub_job_count_now(), 2);
}

TEST_F(PendingBestEffort, AnOlderStructIsNotWrittenPastItsSize) {
  // A 1.9 plugin's job_info ends at total_request.
  scoria_job_info ji{};
  ji.struct_size = offsetof(scoria_job_info, pending_best_effort);
  ji.pending_best_effort = -7;
  ASSERT_EQ(api_->job_info(api_->job_at(handle(), 0), &ji), SCORIA_OK);
  EXPECT_EQ(ji.pending_best_effort, -7);
  EXPECT_EQ(ji.task_count, 3);
}

}  // namespace
}  // namespace scoria::cache
