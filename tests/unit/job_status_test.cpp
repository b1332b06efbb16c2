// A Volcano Job's status as its controller's pending and running states
// keep it: counts by phase and task, and the state they move it to.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "serve/job_status.h"

namespace scoria::serve {
namespace {

using nlohmann::json;

// A job of two tasks, 1 master and 2 workers.
json job(json status = json::object(), json extra = json::object()) {
  json j = {{"spec",
             {{"tasks", json::array({{{"name", "master"}, {"replicas", 1}},
                                     {{"name", "worker"}, {"replicas", 2}}})}}}};
  for (auto& [k, v] : extra.items()) j["spec"][k] = v;
  if (!status.empty()) j["status"] = status;
  return j;
}

class JobStatus : public ::testing::Test {
 protected:
  const model::Pod* pod(const char* role, model::PodPhase phase, bool deleting = false) {
    auto p = std::make_unique<model::Pod>();
    p->role = role;
    p->phase = phase;
    p->deleting = deleting;
    pods_.push_back(std::move(p));
    return pods_.back().get();
  }
  std::vector<std::unique_ptr<model::Pod>> pods_;
};

using P = model::PodPhase;

TEST_F(JobStatus, PendingUntilMinAvailableRunThenRunning) {
  std::vector<const model::Pod*> pods = {pod("master", P::Running), pod("worker", P::Pending),
                                         pod("worker", P::Pending)};
  json s = job_status(job(), 2, pods, "t1");
  EXPECT_EQ(s["state"], json({{"phase", "Pending"}, {"lastTransitionTime", "t1"}}));
  EXPECT_EQ(s["minAvailable"], 2);
  EXPECT_EQ(s["running"], 1);
  EXPECT_EQ(s["pending"], 2);
  EXPECT_FALSE(s.contains("succeeded"));  // zeros left out, as Volcano writes them
  EXPECT_EQ(s["taskStatusCount"]["worker"]["phase"]["Pending"], 2);

  pods[1] = pod("worker", P::Running);
  json next = job_status(job(s), 2, pods, "t2");
  EXPECT_EQ(next["state"], json({{"phase", "Running"}, {"lastTransitionTime", "t2"}}));
  // Unchanged state keeps its time.
  EXPECT_EQ(job_status(job(next), 2, pods, "t3")["state"]["lastTransitionTime"], "t2");
}

TEST_F(JobStatus, RunningEndsCompletedOrFailedWhenEveryPodFinished) {
  const json running = {{"state", {{"phase", "Running"}, {"lastTransitionTime", "t0"}}}};
  std::vector<const model::Pod*> pods = {pod("master", P::Succeeded), pod("worker", P::Succeeded),
                                         pod("worker", P::Running)};
  EXPECT_EQ(job_status(job(running), 2, pods, "t1")["state"]["phase"], "Running");
  pods[2] = pod("worker", P::Failed);
  EXPECT_EQ(job_status(job(running), 2, pods, "t1")["state"]["phase"], "Completed");
  pods[1] = pod("worker", P::Failed);
  EXPECT_EQ(job_status(job(running), 2, pods, "t1")["state"]["phase"], "Failed");
}

TEST_F(JobStatus, MinSuccessCompletesEarlyAndATasksMinAvailableCanFailIt) {
  const json running = {{"state", {{"phase", "Running"}}}};
  std::vector<const model::Pod*> pods = {pod("master", P::Succeeded), pod("worker", P::Running),
                                         pod("worker", P::Running)};
  EXPECT_EQ(job_status(job(running, {{"minSuccess", 1}}), 2, pods, "t")["state"]["phase"],
            "Completed");
  // Every pod finished, 2 succeeded (minAvailable), but the master's own
  // minAvailable of 1 was not met: checked when the job's minAvailable
  // covers the tasks' (1 + 1 here), as Volcano checks it.
  json spec_tasks = job(running);
  spec_tasks["spec"]["tasks"][0]["minAvailable"] = 1;
  spec_tasks["spec"]["tasks"][1]["minAvailable"] = 1;
  pods = {pod("master", P::Failed), pod("worker", P::Succeeded), pod("worker", P::Succeeded)};
  EXPECT_EQ(job_status(spec_tasks, 2, pods, "t")["state"]["phase"], "Failed");
  EXPECT_EQ(job_status(job(running), 2, pods, "t")["state"]["phase"], "Completed");
}

TEST_F(JobStatus, APodBeingDeletedCountsAsTerminatingOnly) {
  std::vector<const model::Pod*> pods = {pod("master", P::Running, true)};
  const json s = job_status(job(), 1, pods, "t");
  EXPECT_EQ(s["terminating"], 1);
  EXPECT_FALSE(s.contains("running"));
  EXPECT_EQ(s["state"]["phase"], "Pending");
}

}  // namespace
}  // namespace scoria::serve
