// A PodGroup's spec.minTaskMember as a plugin reads it through the host
// table (job_min_task_member_count and job_min_task_member_at, ABI 1.4):
// from the object files through the decoder and the cache to a session, by
// role in byte order, with the edges a plugin may hit (out of range, NULL).
#include <scoria/scoria.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "host_table_session.h"

namespace scoria::cache {
namespace {

std::string group_yaml(std::string_view name, std::string_view spec) {
  return "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {namespace: ml, "
         "name: " +
         std::string(name) + "}\nspec: " + std::string(spec) + "\n";
}

std::string pod_yaml(std::string_view name, std::string_view group_name) {
  return "apiVersion: v1\nkind: Pod\nmetadata:\n  namespace: ml\n  name: " + std::string(name) +
         "\n  annotations: {scheduling.k8s.io/group-name: " + std::string(group_name) +
         "}\nspec:\n  containers:\n  - {name: main, image: app}\n";
}

using Roles = std::vector<std::pair<std::string, int32_t>>;

class HostTableMinTaskMember : public HostTableSession {
 protected:
  const scoria_job* job(std::string_view name) const {
    const size_t n = api_->job_count(handle());
    for (size_t i = 0; i < n; ++i) {
      const scoria_job* j = api_->job_at(handle(), i);
      scoria_job_info ji{};
      ji.struct_size = sizeof ji;
      if (api_->job_info(j, &ji) != SCORIA_OK) continue;
      if (std::string_view(ji.name.data, ji.name.len) == name) return j;
    }
    ADD_FAILURE() << "no job " << name;
    return nullptr;
  }

  Roles roles(const scoria_job* j) const {
    Roles out;
    const size_t n = api_->job_min_task_member_count(j);
    for (size_t i = 0; i < n; ++i) {
      scoria_str role{};
      int32_t min = -1;
      api_->job_min_task_member_at(j, i, &role, &min);
      out.emplace_back(std::string(role.data, role.len), min);
    }
    return out;
  }
};

TEST_F(HostTableMinTaskMember, TheTableHasBoth) {
  ASSERT_TRUE(SCORIA_HOST_HAS(api_, job_min_task_member_count));
  ASSERT_TRUE(SCORIA_HOST_HAS(api_, job_min_task_member_at));
}

TEST_F(HostTableMinTaskMember, RolesInByteOrderWithTheirMinimums) {
  // Written out of order, with an upper-case role (before lower case in
  // byte order) and a 0 minimum, which the host passes on as given.
  load(group_yaml("tf", "{minMember: 3, minTaskMember: {worker: 2, ps: 1, Chief: 0}}") + "---\n" +
       pod_yaml("tf-ps-0", "tf"));
  EXPECT_EQ(roles(job("tf")), (Roles{{"Chief", 0}, {"ps", 1}, {"worker", 2}}));
}

TEST_F(HostTableMinTaskMember, NoneWhenThePodGroupSetsNone) {
  load(group_yaml("plain", "{minMember: 1}") + "---\n" + pod_yaml("plain-0", "plain"));
  const scoria_job* j = job("plain");
  EXPECT_EQ(api_->job_min_task_member_count(j), 0u);
  EXPECT_TRUE(roles(j).empty());
}

TEST_F(HostTableMinTaskMember, OutOfRangeAndNullAreHarmless) {
  load(group_yaml("tf", "{minMember: 2, minTaskMember: {ps: 1, worker: 1}}") + "---\n" +
       pod_yaml("tf-0", "tf"));
  const scoria_job* j = job("tf");
  ASSERT_EQ(api_->job_min_task_member_count(j), 2u);

  scoria_str role{"stale", 5};
  int32_t min = 7;
  api_->job_min_task_member_at(j, 2, &role, &min);  // past the end: empty and 0
  EXPECT_EQ(role.len, 0u);
  EXPECT_EQ(min, 0);

  // Either output may be NULL.
  min = -1;
  api_->job_min_task_member_at(j, 1, nullptr, &min);
  EXPECT_EQ(min, 1);
  role = {};
  api_->job_min_task_member_at(j, 0, &role, nullptr);
  EXPECT_EQ(std::string_view(role.data, role.len), "ps");

  // No job: no roles.
  EXPECT_EQ(api_->job_min_task_member_count(nullptr), 0u);
  role = {"stale", 5};
  min = 7;
  api_->job_min_task_member_at(nullptr, 0, &role, &min);
  EXPECT_EQ(role.len, 0u);
  EXPECT_EQ(min, 0);
}

}  // namespace
}  // namespace scoria::cache
