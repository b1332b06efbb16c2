// How many candidates topology-aware preemption looks for, and which one it
// preempts on (candidate.h), as Volcano's preempt_test.go and
// kube-scheduler's default preemption tests check them.
#include "candidate.h"

#include <gtest/gtest.h>

#include <vector>

namespace preempt {
namespace {

TEST(CandidatesWanted, PercentageBoundedByTheAbsoluteLimitsAndTheNodes) {
  const CandidateLimits defaults;
  EXPECT_EQ(candidates_wanted(3, defaults), 1u);       // 10% of 3 is 0: at least 1
  EXPECT_EQ(candidates_wanted(50, defaults), 5u);      // 10%
  EXPECT_EQ(candidates_wanted(5000, defaults), 100u);  // at most 100
  EXPECT_EQ(candidates_wanted(0, defaults), 0u);
  EXPECT_EQ(candidates_wanted(3, {100, 1, 100}), 3u);
  EXPECT_EQ(candidates_wanted(3, {10, 5, 100}), 3u);  // never more than the nodes
  EXPECT_EQ(candidates_wanted(30, {0, 0, 100}), 0u);  // nothing wanted: no preemption
}

using Facts = std::vector<VictimFacts>;

TEST(SelectCandidate, LowestFirstVictimWins) {
  const std::vector<Facts> c = {{{30, 0}}, {{10, 0}, {10, 0}}, {{20, 0}}};
  EXPECT_EQ(select_candidate(c), 1u);
}

TEST(SelectCandidate, ThenLowestSumOfPriorities) {
  const std::vector<Facts> c = {{{10, 0}, {5, 0}}, {{10, 0}, {-5, 0}}};
  EXPECT_EQ(select_candidate(c), 1u);
}

TEST(SelectCandidate, NegativePrioritiesDoNotMakeMoreVictimsLookCheaper) {
  // Shifted to be non-negative, two victims of -10 sum higher than one.
  const std::vector<Facts> c = {{{-10, 0}, {-10, 0}}, {{-10, 0}}};
  EXPECT_EQ(select_candidate(c), 1u);
}

TEST(SelectCandidate, ThenLatestStartOfTheHighestPriorityVictims) {
  // Same priorities and counts: the candidate whose top victims started
  // last loses the least work.
  const std::vector<Facts> c = {{{10, 500}, {10, 100}}, {{10, 300}, {10, 200}}};
  EXPECT_EQ(select_candidate(c), 1u);  // earliest 200 beats earliest 100
}

TEST(SelectCandidate, FinallyTheFirst) {
  const std::vector<Facts> c = {{{10, 100}}, {{10, 100}}};
  EXPECT_EQ(select_candidate(c), 0u);
}

}  // namespace
}  // namespace preempt
