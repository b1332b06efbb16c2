// The task-topology annotations as Volcano reads them: the cases of its
// Test_readTopologyFromPgAnnotations (topology_test.go).
#include "annotations.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace {

using scoria_task_topology::Annotations;
using scoria_task_topology::read_topology;
using scoria_task_topology::Topology;

const std::vector<std::string_view> kRoles = {"ps", "ps", "worker", "worker", "chief", "evaluator"};

TEST(TaskTopologyAnnotations, CorrectAnnotation) {
  const auto r = read_topology(
      Annotations{"ps,worker;ps,chief", "ps;worker,chief", "ps,worker,chief,evaluator"}, kRoles);
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_TRUE(r.topology);
  EXPECT_EQ(*r.topology, (Topology{{{"ps", "worker"}, {"ps", "chief"}},
                                   {{"ps"}, {"worker", "chief"}},
                                   {"ps", "worker", "chief", "evaluator"}}));
}

TEST(TaskTopologyAnnotations, RolesWithDashes) {
  const std::vector<std::string_view> roles = {"ps-some", "worker-another-some", "chief-kk",
                                               "evaluator-tt"};
  const auto r = read_topology(Annotations{"ps-some,worker-another-some;ps-some,chief-kk",
                                           "ps-some;worker-another-some,chief-kk",
                                           "ps-some,worker-another-some,chief-kk,evaluator-tt"},
                               roles);
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_TRUE(r.topology);
  EXPECT_EQ(r.topology->affinity,
            (std::vector<std::vector<std::string>>{{"ps-some", "worker-another-some"},
                                                   {"ps-some", "chief-kk"}}));
}

TEST(TaskTopologyAnnotations, NoAnnotationIsNoTopology) {
  const auto r = read_topology(Annotations{}, kRoles);
  EXPECT_FALSE(r.topology);
  EXPECT_TRUE(r.error.empty());
}

TEST(TaskTopologyAnnotations, GarbageIsARoleTheJobLacks) {
  const auto r = read_topology(Annotations{"$%GF$^trtqwrg^", "ps;worker,chief;#@FGEW^vfa897bgs;;",
                                           "ps,worker,chief,evaluator,,,"},
                               kRoles);
  EXPECT_FALSE(r.topology);
  EXPECT_EQ(r.error,
            "volcano.sh/task-topology-affinity: task role \"$%GF$^trtqwrg^\" is not a role of the "
            "job's tasks");
}

TEST(TaskTopologyAnnotations, TaskOrderNamingAMissingRole) {
  const std::vector<std::string_view> roles = {"ps", "ps", "worker", "worker"};
  const auto r = read_topology(Annotations{"ps,worker", "ps", "ps,worker,chief"}, roles);
  EXPECT_FALSE(r.topology);
  EXPECT_EQ(r.error,
            "volcano.sh/task-topology-task-order: task role \"chief\" is not a role of the job's "
            "tasks");
}

TEST(TaskTopologyAnnotations, DuplicateRoleInAGroup) {
  const std::vector<std::string_view> roles = {"ps", "ps", "worker", "worker"};
  const auto r = read_topology(Annotations{"ps,worker", "ps,ps", "ps,worker"}, roles);
  EXPECT_FALSE(r.topology);
  EXPECT_EQ(r.error,
            "volcano.sh/task-topology-anti-affinity: task role \"ps\" appears twice in one group");
}

TEST(TaskTopologyAnnotations, RedundantPunctuationKeepsEmptyItems) {
  const auto r = read_topology(
      Annotations{"ps,worker;ps,,chief,;", "ps;worker,chief;;;", "ps,worker,chief,evaluator,,,"},
      kRoles);
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_TRUE(r.topology);
  EXPECT_EQ(*r.topology, (Topology{{{"ps", "worker"}, {"ps", "", "chief", ""}, {""}},
                                   {{"ps"}, {"worker", "chief"}, {""}, {""}, {""}},
                                   {"ps", "worker", "chief", "evaluator", "", "", ""}}));
}

// Not in Volcano's cases, but as its strings.Split does: no trimming, so a
// space after a comma makes a role the job does not have.
TEST(TaskTopologyAnnotations, SpacesAreNotTrimmed) {
  const auto r = read_topology(Annotations{"ps, worker", std::nullopt, std::nullopt}, kRoles);
  EXPECT_FALSE(r.topology);
  EXPECT_NE(r.error.find("\" worker\""), std::string::npos) << r.error;
}

}  // namespace
