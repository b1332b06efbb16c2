// The sub-job functions of the host table (ABI 1.9) as a plugin calls them:
// from object text through the decoder, the cache and a session, a job's
// sub-jobs, their tasks and counts, its policies, each sub-job's prepared
// network topology, and the dispatchers' fallbacks (the job's ready and
// pipelined answers, and a 1.6 plugin's job-level HyperNode hooks, for a
// job without policies; match index then uid for the order).
#include <scoria/scoria.h>

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "host_table_session.h"

namespace scoria::cache {
namespace {

std::string_view V(scoria_str s) { return {s.data, s.len}; }

constexpr std::string_view kNodes =
    "apiVersion: v1\nkind: Node\nmetadata: {name: a0}\n"
    "status: {allocatable: {cpu: '8', memory: 16Gi, pods: '110'}}\n---\n"
    "apiVersion: v1\nkind: Node\nmetadata: {name: b0}\n"
    "status: {allocatable: {cpu: '8', memory: 16Gi, pods: '110'}}\n---\n"
    "apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata: {name: rack-a}\n"
    "spec: {tier: 1, members: [{type: Node, selector: {exactMatch: {name: a0}}}]}\n---\n"
    "apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata: {name: rack-b}\n"
    "spec: {tier: 1, members: [{type: Node, selector: {exactMatch: {name: b0}}}]}\n---\n"
    "apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata: {name: spine}\n"
    "spec: {tier: 2, members: [{type: HyperNode, selector: {exactMatch: {name: rack-a}}},\n"
    "  {type: HyperNode, selector: {exactMatch: {name: rack-b}}}]}\n---\n";

// A pod of PodGroup `group` with labels `labels` (a YAML flow mapping's
// inside), on `node` (running) or pending.
std::string pod(std::string_view name, std::string_view group, std::string_view labels,
                std::string_view node = "", int priority = 0) {
  std::string s =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  namespace: ml\n  name: " + std::string(name) +
      "\n  labels: {" + std::string(labels) +
      "}\n  annotations: {scheduling.k8s.io/group-name: " + std::string(group) +
      "}\nspec:\n  priority: " + std::to_string(priority) +
      "\n  containers: [{name: c, image: x, resources: {requests: {cpu: '1'}}}]\n";
  if (!node.empty()) s += "  nodeName: " + std::string(node) + "\nstatus: {phase: Running}\n";
  return s + "---\n";
}

// PodGroup train: policy master (by role=master, one sub-job per index,
// size 1) and policy worker (by role=worker, sub-jobs by partition, size 2,
// minSubGroups 2, soft topology), under a hard job topology of tier 2.
// PodGroup plain: no policy, minMember 2.
const std::string kObjects =
    std::string(kNodes) +
    "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\n"
    "metadata: {namespace: ml, name: train}\n"
    "spec:\n  minMember: 3\n  networkTopology: {mode: hard, highestTierAllowed: 2}\n"
    "  subGroupPolicy:\n"
    "  - {name: master, subGroupSize: 1, labelSelector: {matchLabels: {role: master}},\n"
    "     matchLabelKeys: [index]}\n"
    "  - {name: worker, subGroupSize: 2, minSubGroups: 2,\n"
    "     labelSelector: {matchLabels: {role: worker}}, matchLabelKeys: [partition],\n"
    "     networkTopology: {mode: soft}}\n---\n"
    "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\n"
    "metadata: {namespace: ml, name: plain}\nspec: {minMember: 2}\n---\n" +
    pod("w-0", "train", "role: worker, partition: '1'", "a0", 5) +
    pod("m-0", "train", "role: master, index: '0'") +
    pod("w-1", "train", "role: worker, partition: '1'", "", 7) +
    pod("w-2", "train", "role: worker, partition: '0'") + pod("loose", "train", "role: other") +
    pod("p-0", "plain", "app: p", "", 3) + pod("p-1", "plain", "app: p");

class HostTableSubJobs : public HostTableSession {
 protected:
  void SetUp() override { load(kObjects); }

  const scoria_job* job(std::string_view name) const {
    for (size_t i = 0; i < api_->job_count(handle()); ++i) {
      const scoria_job* j = api_->job_at(handle(), i);
      scoria_job_info ji{};
      ji.struct_size = sizeof ji;
      api_->job_info(j, &ji);
      if (V(ji.name) == name) return j;
    }
    ADD_FAILURE() << "no job " << name;
    return nullptr;
  }
  static scoria_sub_job_info info(const scoria_sub_job* s) {
    scoria_sub_job_info si{};
    si.struct_size = sizeof si;
    EXPECT_EQ(abi::host_api()->sub_job_info(s, &si), SCORIA_OK);
    return si;
  }
  std::vector<std::string> task_names(const scoria_sub_job* s) const {
    std::vector<std::string> out;
    for (size_t i = 0; i < api_->sub_job_task_count(s); ++i) {
      scoria_task_info ti{};
      ti.struct_size = sizeof ti;
      api_->task_info(api_->sub_job_task_at(s, i), &ti);
      out.emplace_back(V(ti.name));
      EXPECT_EQ(api_->task_sub_job(api_->sub_job_task_at(s, i)), s);
    }
    return out;
  }
  scoria_session* mutable_handle() { return reinterpret_cast<scoria_session*>(ssn_.get()); }
};

TEST_F(HostTableSubJobs, EachPodInItsPolicysSubJobAndTheRestInTheDefault) {
  ASSERT_TRUE(SCORIA_HOST_HAS(api_, session_sub_job_hypernode_gradient));
  const scoria_job* train = job("train");
  ASSERT_EQ(api_->job_sub_job_count(train), 4u);  // worker-1, master-0, worker-0, default
  const scoria_sub_job_info w1 = info(api_->job_sub_job_at(train, 0));
  EXPECT_EQ(V(w1.uid), "ml/train/worker-1");
  EXPECT_EQ(V(w1.gid), "ml/train/worker");
  EXPECT_EQ(w1.policy, 1u);
  EXPECT_EQ(w1.min_available, 2);
  EXPECT_EQ(w1.match_index, 1);
  EXPECT_EQ(w1.priority, 7);
  EXPECT_EQ(w1.task_count, 2);
  EXPECT_EQ(w1.status_count[0], 1);  // pending w-1
  EXPECT_EQ(w1.status_count[5], 1);  // running w-0 (bit 5: Running)
  EXPECT_EQ(task_names(api_->job_sub_job_at(train, 0)), (std::vector<std::string>{"w-0", "w-1"}));
  const scoria_sub_job_info m0 = info(api_->job_sub_job_at(train, 1));
  EXPECT_EQ(V(m0.uid), "ml/train/master-0");
  EXPECT_EQ(m0.policy, 0u);
  EXPECT_EQ(m0.min_available, 1);
  const scoria_sub_job_info fallback = info(api_->job_sub_job_at(train, 3));
  EXPECT_EQ(V(fallback.uid), "ml/train");
  EXPECT_EQ(fallback.policy, SCORIA_NO_SUB_GROUP_POLICY);
  EXPECT_EQ(fallback.min_available, 1);  // the job has policies
  EXPECT_EQ(task_names(api_->job_sub_job_at(train, 3)), std::vector<std::string>{"loose"});
  EXPECT_EQ(api_->job_sub_job_at(train, 4), nullptr);

  ASSERT_EQ(api_->job_sub_group_policy_count(train), 2u);
  scoria_sub_group_policy_info p{};
  p.struct_size = sizeof p;
  ASSERT_EQ(api_->job_sub_group_policy_at(train, 1, &p), SCORIA_OK);
  EXPECT_EQ(V(p.name), "worker");
  EXPECT_EQ(p.sub_group_size, 2);
  EXPECT_EQ(p.min_sub_groups, 2);
  EXPECT_EQ(api_->job_sub_group_policy_at(train, 2, &p), SCORIA_INVALID_ARGUMENT);
}

TEST_F(HostTableSubJobs, AJobWithoutPoliciesIsOneSubJobOfItsMinMember) {
  const scoria_job* plain = job("plain");
  ASSERT_EQ(api_->job_sub_job_count(plain), 1u);
  const scoria_sub_job* only = api_->job_sub_job_at(plain, 0);
  const scoria_sub_job_info si = info(only);
  EXPECT_EQ(V(si.uid), "ml/plain");
  EXPECT_EQ(si.min_available, 2);
  EXPECT_EQ(si.priority, 3);
  EXPECT_EQ(task_names(only), (std::vector<std::string>{"p-0", "p-1"}));
  EXPECT_EQ(api_->job_sub_group_policy_count(plain), 0u);
}

TEST_F(HostTableSubJobs, TopologiesArePreparedPerSubJob) {
  const scoria_job* train = job("train");
  const auto topology = [&](size_t i) {
    scoria_network_topology t{};
    t.struct_size = sizeof t;
    EXPECT_EQ(api_->sub_job_network_topology(api_->job_sub_job_at(train, i), &t), SCORIA_OK);
    return t;
  };
  const uint32_t rack_a = api_->hypernode_find(handle(), scoria_str{"rack-a", 6});
  // worker-1: soft, bounded by the job's tier 2; w-0 runs on a0, in rack-a.
  const scoria_network_topology w1 = topology(0);
  EXPECT_EQ(w1.mode, static_cast<uint32_t>(SCORIA_TOPOLOGY_HARD));
  EXPECT_EQ(w1.declared_mode, static_cast<uint32_t>(SCORIA_TOPOLOGY_SOFT));
  EXPECT_EQ(w1.highest_tier_allowed, 2);
  EXPECT_EQ(w1.allocated_hypernode, rack_a);
  // master-0: no topology of its own.
  EXPECT_EQ(topology(1).mode, static_cast<uint32_t>(SCORIA_TOPOLOGY_NONE));
  // The default sub-job has the job's.
  const scoria_network_topology fallback = topology(3);
  EXPECT_EQ(fallback.declared_mode, static_cast<uint32_t>(SCORIA_TOPOLOGY_HARD));
  EXPECT_EQ(fallback.highest_tier_allowed, 2);
  // The job's allocated HyperNode: where its sub-jobs with a topology are.
  scoria_network_topology jt{};
  jt.struct_size = sizeof jt;
  ASSERT_EQ(api_->job_network_topology(train, &jt), SCORIA_OK);
  EXPECT_EQ(jt.allocated_hypernode, rack_a);
}

// Hooks of a plugin built before 1.9: only the job-level HyperNode ones.
int64_t job_gradient(void* calls, const scoria_job*, uint32_t root, uint32_t, uint32_t* hypernodes,
                     uint32_t* gradient, size_t capacity) {
  ++*static_cast<int*>(calls);
  if (capacity < 2) return -1;
  hypernodes[0] = hypernodes[1] = root;
  gradient[0] = 0;
  gradient[1] = 1;
  return 2;
}

TEST_F(HostTableSubJobs, DispatchFallsBackForJobsWithoutPolicies) {
  int calls = 0;
  session::PluginHooks p;
  p.name = "old";
  p.hooks.struct_size = sizeof p.hooks;
  p.hooks.user_data = &calls;
  p.hooks.on_hypernode_gradient = job_gradient;
  ssn_->add_plugin_hooks(0, p);
  const size_t count = api_->hypernode_count(handle());
  std::vector<uint32_t> hypernodes(count), gradient(count);
  const uint32_t top = static_cast<uint32_t>(count - 1);

  const scoria_sub_job* plain = api_->job_sub_job_at(job("plain"), 0);
  EXPECT_EQ(
      api_->session_sub_job_hypernode_gradient(mutable_handle(), plain, top, SCORIA_SEARCH_ALLOCATE,
                                               hypernodes.data(), gradient.data(), count),
      2u);
  EXPECT_EQ(calls, 1);
  // A job with policies: the job-level hook does not answer for its
  // sub-jobs; the root alone is the gradient.
  const scoria_sub_job* w1 = api_->job_sub_job_at(job("train"), 0);
  EXPECT_EQ(
      api_->session_sub_job_hypernode_gradient(mutable_handle(), w1, top, SCORIA_SEARCH_ALLOCATE,
                                               hypernodes.data(), gradient.data(), count),
      1u);
  EXPECT_EQ(hypernodes[0], top);
  EXPECT_EQ(calls, 1);

  // No ready hook: a job without policies answers as the job (no job_ready
  // hook either: ready); the order falls back to match index, then uid.
  EXPECT_EQ(api_->session_sub_job_ready(mutable_handle(), plain), 1);
  const scoria_job* train = job("train");
  const scoria_sub_job* m0 = api_->job_sub_job_at(train, 1);
  const scoria_sub_job* w0 = api_->job_sub_job_at(train, 2);
  EXPECT_EQ(api_->session_sub_job_less(mutable_handle(), w0, w1), 1);  // index 0 before 1
  EXPECT_EQ(api_->session_sub_job_less(mutable_handle(), m0, w0), 1);  // 0 = 0: by uid
  EXPECT_EQ(api_->session_sub_job_less(mutable_handle(), w1, m0), 0);
  // A handle of another session is refused.
  EXPECT_EQ(api_->session_sub_job_ready(nullptr, plain), 0);
}

}  // namespace
}  // namespace scoria::cache
