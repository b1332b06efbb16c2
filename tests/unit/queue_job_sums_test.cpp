// session_queue_job_sums and session_jobs_where (ABI 1.11): what each
// queue's jobs hold and ask for, as proportion, capacity and overcommit add
// it up, and the jobs an action works on, both as they stand at the call.
#include <scoria/scoria.h>

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "host_table_session.h"

namespace scoria::cache {
namespace {

std::string sums_group(std::string_view name, std::string_view queue, std::string_view phase,
                       std::string_view min_cpu) {
  std::string s =
      "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\n"
      "metadata: {namespace: ml, name: " +
      std::string(name) + "}\nspec: {minMember: 2, queue: " + std::string(queue);
  if (!min_cpu.empty()) s += ", minResources: {cpu: '" + std::string(min_cpu) + "'}";
  return s + "}\nstatus: {phase: " + std::string(phase) + "}\n---\n";
}

std::string sums_pod(std::string_view name, std::string_view group, std::string_view cpu,
                     bool running) {
  std::string s =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  namespace: ml\n  name: " + std::string(name) +
      "\n  annotations: {scheduling.k8s.io/group-name: " + std::string(group) + "}\nspec:\n";
  if (running) s += "  nodeName: n0\n";
  s += "  containers: [{name: c, image: x, resources: {requests: {cpu: '" + std::string(cpu) +
       "'}}}]\n";
  if (running) s += "status: {phase: Running}\n";
  return s + "---\n";
}

const std::string kSumsCluster =
    "apiVersion: v1\nkind: Node\nmetadata: {name: n0}\n"
    "status: {allocatable: {cpu: '16', memory: 16Gi, pods: '110'}}\n---\n"
    "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: q1}\n"
    "spec: {weight: 1}\n---\n"
    "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: q2}\n"
    "spec: {weight: 1}\n---\n" +
    // Running at its minMember, holding 2 of its 4 cpu minimum.
    sums_group("run", "q1", "Running", "4") + sums_pod("run-0", "run", "1", true) +
    sums_pod("run-1", "run", "1", true) +
    // Admitted for 3 cpu, nothing placed yet.
    sums_group("inq", "q1", "Inqueue", "3") + sums_pod("inq-0", "inq", "1", false) +
    // Not admitted, no minimum.
    sums_group("pend", "q2", "Pending", "") + sums_pod("pend-0", "pend", "2", false) +
    // Its queue does not exist: no queue's, and not summed.
    sums_group("ghost", "nowhere", "Inqueue", "5") + sums_pod("ghost-0", "ghost", "1", false);

class QueueJobSums : public HostTableSession {
 protected:
  // As a source's list hands them over: a PodGroup naming a missing queue
  // is kept, with no queue (file loading would refuse it).
  void SetUp() override {
    model::ClusterObjects objects;
    source::parse_objects(kSumsCluster, "objects.yaml", objects);
    std::vector<ObjectChange> list;
    for (auto& n : objects.nodes) list.push_back(ObjectChange::upsert(std::move(n)));
    for (auto& q : objects.queues) list.push_back(ObjectChange::upsert(std::move(q)));
    for (auto& g : objects.pod_groups) list.push_back(ObjectChange::upsert(std::move(g)));
    for (auto& p : objects.pods) list.push_back(ObjectChange::upsert(std::move(p)));
    cache_.replace(std::move(list));
    snap_ = cache_.snapshot();
    ssn_ = std::make_unique<session::Session>(snap_, config_, nullptr);
  }
  scoria_session* mutable_handle() { return reinterpret_cast<scoria_session*>(ssn_.get()); }

  std::vector<scoria_queue_job_sums> sums() {
    std::vector<scoria_queue_job_sums> out(api_->queue_count(handle()));
    for (auto& s : out) s.struct_size = sizeof s;
    EXPECT_EQ(api_->session_queue_job_sums(mutable_handle(), out.data(), out.size()), SCORIA_OK);
    return out;
  }
  size_t queue(std::string_view name) const {
    for (size_t q = 0; q < api_->queue_count(handle()); ++q) {
      scoria_queue_info qi{};
      qi.struct_size = sizeof qi;
      api_->queue_info(api_->queue_at(handle(), q), &qi);
      if (std::string_view(qi.name.data, qi.name.len) == name) return q;
    }
    ADD_FAILURE() << "no queue " << name;
    return 0;
  }
  std::vector<std::string> where(uint32_t which) {
    size_t count = 99;
    const scoria_job* const* jobs = api_->session_jobs_where(mutable_handle(), which, &count);
    EXPECT_NE(jobs, nullptr);
    std::vector<std::string> names;
    for (size_t i = 0; i < count; ++i) {
      scoria_job_info ji{};
      ji.struct_size = sizeof ji;
      api_->job_info(jobs[i], &ji);
      names.emplace_back(ji.name.data, ji.name.len);
    }
    return names;
  }
  const scoria_task* first_task(std::string_view job) const {
    for (size_t j = 0; j < api_->job_count(handle()); ++j) {
      scoria_job_info ji{};
      ji.struct_size = sizeof ji;
      api_->job_info(api_->job_at(handle(), j), &ji);
      if (std::string_view(ji.name.data, ji.name.len) == job)
        return api_->job_task_at(api_->job_at(handle(), j), 0);
    }
    ADD_FAILURE() << "no job " << job;
    return nullptr;
  }
};

constexpr size_t kCpu = 0;  // milli-cpu

TEST_F(QueueJobSums, SumEachQueuesJobsAsFairSharePluginsDo) {
  const auto s = sums();
  const scoria_queue_job_sums& q1 = s[queue("q1")];
  EXPECT_EQ(q1.jobs, 2u);
  EXPECT_EQ(q1.allocated[kCpu], 2000);
  EXPECT_EQ(q1.request[kCpu], 3000);  // run's two and inq's pending one
  EXPECT_EQ(q1.elastic[kCpu], 0);     // nobody holds beyond its minimum
  EXPECT_EQ(q1.inqueue_minimum[kCpu], 3000);
  EXPECT_EQ(q1.inqueue_unallocated[kCpu], 3000);
  EXPECT_EQ(q1.running_unallocated[kCpu], 2000);
  const scoria_queue_job_sums& q2 = s[queue("q2")];
  EXPECT_EQ(q2.jobs, 1u);
  EXPECT_EQ(q2.allocated[kCpu], 0);
  EXPECT_EQ(q2.request[kCpu], 2000);
  EXPECT_EQ(q2.inqueue_minimum[kCpu], 0);
  EXPECT_EQ(q2.running_unallocated[kCpu], 0);
}

TEST_F(QueueJobSums, FollowWhatTheSessionPlaced) {
  scoria_statement* stmt = api_->statement_open(mutable_handle());
  ASSERT_EQ(api_->statement_allocate(stmt, first_task("pend"), api_->node_at(handle(), 0)),
            SCORIA_OK);
  const auto s = sums();
  const scoria_queue_job_sums& q2 = s[queue("q2")];
  EXPECT_EQ(q2.allocated[kCpu], 2000);
  EXPECT_EQ(q2.request[kCpu], 2000);
  EXPECT_EQ(q2.elastic[kCpu], 2000);  // no minResources: all it holds is elastic
  api_->statement_discard(stmt);
  EXPECT_EQ(sums()[queue("q2")].allocated[kCpu], 0);
}

TEST_F(QueueJobSums, RefuseTooManyQueuesOrTooSmallAStruct) {
  std::vector<scoria_queue_job_sums> out(api_->queue_count(handle()) + 1);
  for (auto& s : out) s.struct_size = sizeof s;
  EXPECT_EQ(api_->session_queue_job_sums(mutable_handle(), out.data(), out.size()),
            SCORIA_INVALID_ARGUMENT);
  out.pop_back();
  out[0].struct_size = offsetof(scoria_queue_job_sums, running_unallocated);
  EXPECT_EQ(api_->session_queue_job_sums(mutable_handle(), out.data(), out.size()),
            SCORIA_INVALID_ARGUMENT);
}

TEST_F(QueueJobSums, JobsWhereListsTheMatchingJobsInJobOrder) {
  using V = std::vector<std::string>;
  EXPECT_EQ(where(SCORIA_JOBS_PHASE_PENDING), V({"pend"}));
  EXPECT_EQ(where(SCORIA_JOBS_WITH_PENDING_TASKS), V({"inq", "pend", "ghost"}));
  EXPECT_EQ(where(SCORIA_JOBS_WITHOUT_QUEUE), V({"ghost"}));
  EXPECT_EQ(where(SCORIA_JOBS_PHASE_PENDING | SCORIA_JOBS_WITHOUT_QUEUE), V({"pend", "ghost"}));
  EXPECT_EQ(where(0), V());
  // As they stand: a placed task leaves its job without Pending tasks.
  scoria_statement* stmt = api_->statement_open(mutable_handle());
  ASSERT_EQ(api_->statement_allocate(stmt, first_task("inq"), api_->node_at(handle(), 0)),
            SCORIA_OK);
  EXPECT_EQ(where(SCORIA_JOBS_WITH_PENDING_TASKS), V({"pend", "ghost"}));
  api_->statement_discard(stmt);
}

}  // namespace
}  // namespace scoria::cache
