// A job's sub-jobs as Volcano HEAD forms them from spec.subGroupPolicy: the
// cases of its sub_job_info_test.go (getSubJobMatchValues, getSubJobID,
// NewSubJobInfo's defaults) and of how job_info.go places each pod.
#include "session/sub_jobs.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace scoria::session {
namespace {

using Labels = std::map<std::string, std::string>;
using Values = std::vector<std::string>;

model::Pod pod(std::string name, Labels labels) {
  model::Pod p;
  p.namespace_ = "ml";
  p.name = std::move(name);
  p.labels = std::move(labels);
  return p;
}

model::SubGroupPolicy policy(Labels match_labels, Values keys) {
  model::SubGroupPolicy p;
  if (!match_labels.empty()) p.selector = model::LabelSelector{std::move(match_labels), {}};
  p.match_label_keys = std::move(keys);
  return p;
}

TEST(SubJobMatchValues, TheSelectorFiltersAndTheKeysGiveTheValues) {
  // "match label selector and collect match values"
  EXPECT_EQ(sub_job_match_values(policy({{"app", "test"}}, {"version", "env"}),
                                 pod("p", {{"app", "test"}, {"version", "v1"}, {"env", "dev"}})),
            (Values{"v1", "dev"}));
  // "no label selector with match keys"
  EXPECT_EQ(sub_job_match_values(policy({}, {"zone"}), pod("p", {{"zone", "zone-1"}})),
            Values{"zone-1"});
  // "no match keys returns empty slice": which the caller reads as no match.
  EXPECT_TRUE(
      sub_job_match_values(policy({{"app", "test"}}, {}), pod("p", {{"app", "test"}})).empty());
}

TEST(SubJobMatchValues, Boundaries) {
  // "empty label selector matches all"
  model::SubGroupPolicy empty_selector = policy({}, {"key"});
  empty_selector.selector = model::LabelSelector{};
  EXPECT_EQ(sub_job_match_values(empty_selector, pod("p", {{"key", "value"}})), Values{"value"});
  // "match expression selector"
  model::SubGroupPolicy in = policy({}, {"app"});
  in.selector = model::LabelSelector{{}, {{"app", model::SelectorOp::In, {"test", "demo"}}}};
  EXPECT_EQ(sub_job_match_values(in, pod("p", {{"app", "demo"}})), Values{"demo"});
  EXPECT_TRUE(sub_job_match_values(in, pod("p", {{"app", "prod"}})).empty());
  // "multiple match keys with empty values"
  EXPECT_TRUE(
      sub_job_match_values(policy({}, {"a", "b"}), pod("p", {{"a", ""}, {"b", "val"}})).empty());
}

TEST(SubJobMatchValues, NoMatch) {
  // "pod labels do not match selector", "missing label key in pod", "pod
  // has no labels"
  EXPECT_TRUE(sub_job_match_values(policy({{"app", "test"}}, {"version"}),
                                   pod("p", {{"app", "other"}, {"version", "v1"}}))
                  .empty());
  EXPECT_TRUE(sub_job_match_values(policy({}, {"version"}), pod("p", {{"app", "test"}})).empty());
  EXPECT_TRUE(sub_job_match_values(policy({}, {"version"}), pod("p", {})).empty());
}

TEST(SubJobUid, JoinsTheValuesAndHashesLongOnes) {
  EXPECT_EQ(sub_job_uid("job1", "policy1", Values{"value1", "value2"}),
            "job1/policy1-value1-value2");
  EXPECT_EQ(sub_job_uid("job1", "policy1", Values{"value1"}), "job1/policy1-value1");
  // 128 characters stay; past that, FNV-1a 32 of the joined values in
  // decimal (2496612041 here), each digit encoded as rand.SafeEncodeString
  // does.
  EXPECT_EQ(sub_job_uid("j", "p", Values{std::string(128, 'v')}), "j/p-" + std::string(128, 'v'));
  EXPECT_EQ(sub_job_uid("j", "p", Values{std::string(129, 'v')}), "j/p-68fbb56485");
}

// A vcjob's PodGroup: workers in partitions of two (the controller's
// getSubGroupPolicy), a policy without matchLabelKeys, and pods no policy
// takes.
TEST(MakeSubJobs, EachPodGoesToTheFirstPolicyThatTakesIt) {
  model::PodGroup g;
  g.namespace_ = "ml";
  g.name = "train";
  g.min_member = 5;
  model::SubGroupPolicy worker = policy({{"volcano.sh/task-spec", "worker"}}, {"partition"});
  worker.name = "worker";
  worker.sub_group_size = 2;
  worker.min_sub_groups = 1;
  model::SubGroupPolicy never = policy({}, {});  // no keys: takes no pod
  never.name = "never";
  model::SubGroupPolicy rack = policy({}, {"rack"});
  rack.name = "rack";
  g.sub_group_policy = {worker, never, rack};

  const std::vector<model::Pod> pods = {
      pod("w-0", {{"volcano.sh/task-spec", "worker"}, {"partition", "1"}, {"rack", "r1"}}),
      pod("ps-0", {{"volcano.sh/task-spec", "ps"}}),
      pod("w-1", {{"volcano.sh/task-spec", "worker"}, {"partition", "0"}}),
      pod("w-2", {{"volcano.sh/task-spec", "worker"}, {"partition", "1"}}),
      pod("w-3", {{"volcano.sh/task-spec", "worker"}, {"partition", ""}, {"rack", "r2"}}),
      pod("ps-1", {{"volcano.sh/task-spec", "ps"}}),
  };
  std::vector<const model::Pod*> ptrs;
  for (const auto& p : pods) ptrs.push_back(&p);
  const std::vector<int32_t> priorities = {10, -5, 3, 20, 0, -1};
  const SubJobs s = make_sub_jobs(g, "ml/train", ptrs, priorities);

  ASSERT_EQ(s.sub_jobs.size(), 4u);
  EXPECT_EQ(s.of_pod, (std::vector<uint32_t>{0, 1, 2, 0, 3, 1}));
  const FormedSubJob& p1 = s.sub_jobs[0];
  EXPECT_EQ(p1.uid, "ml/train/worker-1");
  EXPECT_EQ(p1.gid, "ml/train/worker");
  EXPECT_EQ(p1.policy, 0);
  EXPECT_EQ(p1.min_available, 2);
  EXPECT_EQ(p1.match_index, 1);
  EXPECT_EQ(p1.priority, 20);
  EXPECT_EQ(p1.members, (std::vector<uint32_t>{0, 3}));
  // The default sub-job: the job's key, 1 (not minMember) since the
  // PodGroup has policies, its priority never below 0.
  const FormedSubJob& def = s.sub_jobs[1];
  EXPECT_EQ(def.uid, "ml/train");
  EXPECT_EQ(def.gid, "ml/train");
  EXPECT_EQ(def.policy, -1);
  EXPECT_EQ(def.min_available, 1);
  EXPECT_EQ(def.priority, 0);
  EXPECT_EQ(def.members, (std::vector<uint32_t>{1, 5}));
  EXPECT_EQ(s.sub_jobs[2].uid, "ml/train/worker-0");
  EXPECT_EQ(s.sub_jobs[2].match_index, 0);
  // An empty partition label fails the worker policy; the next that takes
  // the pod does, with a value that is not a number (index 0).
  const FormedSubJob& r2 = s.sub_jobs[3];
  EXPECT_EQ(r2.uid, "ml/train/rack-r2");
  EXPECT_EQ(r2.policy, 2);
  EXPECT_EQ(r2.min_available, 1);
  EXPECT_EQ(r2.match_index, 0);
}

TEST(MakeSubJobs, WithoutPoliciesTheJobIsOneSubJobOfMinMember) {
  model::PodGroup g;
  g.min_member = 3;
  const model::Pod a = pod("a", {}), b = pod("b", {});
  const std::vector<const model::Pod*> ptrs = {&a, &b};
  const SubJobs s = make_sub_jobs(g, "ml/train", ptrs, std::vector<int32_t>{1, 2});
  ASSERT_EQ(s.sub_jobs.size(), 1u);
  EXPECT_EQ(s.sub_jobs[0].uid, "ml/train");
  EXPECT_EQ(s.sub_jobs[0].min_available, 3);
  EXPECT_EQ(s.sub_jobs[0].priority, 2);
  EXPECT_EQ(s.of_pod, (std::vector<uint32_t>{0, 0}));
}

}  // namespace
}  // namespace scoria::session
