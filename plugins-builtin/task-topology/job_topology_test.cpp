// Buckets and scores of one job, without a session: the worked example of
// Volcano's docs/design/task-topology-plugin.md, and the deallocate event
// undoing the allocate event.
#include "job_topology.h"

#include <gtest/gtest.h>

#include <array>
#include <string_view>
#include <vector>

namespace {

using scoria_task_topology::Annotations;
using scoria_task_topology::JobTopology;
using scoria_task_topology::read_topology;
using scoria_task_topology::TaskEntry;

constexpr size_t kDims = 3;  // cpu (milli), memory (bytes), pods
constexpr std::array<double, kDims> kOneCpu = {1000, 1 << 30, 1};

// ps-0, ps-1, worker-0 .. worker-3 (slots 0-5), 1 cpu each, none placed;
// affinity "ps,worker", anti-affinity "ps".
JobTopology design_example() {
  const std::vector<std::string_view> roles = {"ps", "ps", "worker", "worker", "worker", "worker"};
  const auto read = read_topology(Annotations{"ps,worker", "ps", std::nullopt}, roles);
  EXPECT_TRUE(read.topology) << read.error;
  JobTopology job(*read.topology, kDims);
  const std::array<std::string_view, 6> names = {"ps-0",     "ps-1",     "worker-0",
                                                 "worker-1", "worker-2", "worker-3"};
  std::vector<TaskEntry> tasks;
  for (size_t i = 0; i < names.size(); ++i)
    tasks.push_back(TaskEntry{names[i],
                              roles[i],
                              {},
                              scoria_task_topology::Bucket::kNoNode,
                              std::span<const double>(kOneCpu)});
  job.build(tasks);
  return job;
}

std::array<double, kDims> cpus(double n) { return {n * 1000, 16.0 * (1 << 30), 110}; }

TEST(TaskTopologyBuckets, DesignExampleBuckets) {
  const JobTopology job = design_example();
  // {ps-0, worker-0, worker-2} and {ps-1, worker-1, worker-3}.
  EXPECT_EQ(job.bucket_of(0), 0);
  EXPECT_EQ(job.bucket_of(2), 0);
  EXPECT_EQ(job.bucket_of(4), 0);
  EXPECT_EQ(job.bucket_of(1), 1);
  EXPECT_EQ(job.bucket_of(3), 1);
  EXPECT_EQ(job.bucket_of(5), 1);
  EXPECT_EQ(job.bucket_max_size(), 3);
  // ps has self anti-affinity, the strongest kind: it goes before worker.
  EXPECT_GT(job.affinity_order(0, 2), 0);
  EXPECT_EQ(job.affinity_order(2, 4), 0);
}

TEST(TaskTopologyBuckets, DesignExampleScoresForPs0) {
  const JobTopology job = design_example();
  const auto scorer = job.scorer(0, kOneCpu);
  const std::array<double, kDims> none = {0, 0, 0};
  // node1 (2 cpu) fits two of the bucket, node2 (1 cpu) one, node3 (4 cpu) all three.
  EXPECT_EQ(scorer.score(0, cpus(2), none), 2);
  EXPECT_EQ(scorer.score(1, cpus(1), none), 1);
  EXPECT_EQ(scorer.score(2, cpus(4), none), 3);
  // Releasing resources count; a node the task cannot fit scores 0.
  EXPECT_EQ(scorer.score(1, cpus(0), cpus(4)), 3);
  EXPECT_EQ(scorer.score(1, cpus(0.5), none), 0);
}

TEST(TaskTopologyBuckets, AllocateThenDeallocateRestoresScoresAndOrder) {
  JobTopology job = design_example();
  const std::array<double, kDims> none = {0, 0, 0};
  const auto before = [&](uint32_t slot, uint32_t node, double idle) {
    return job.scorer(slot, kOneCpu).score(node, cpus(idle), none);
  };
  const int ps1_on_node3 = before(1, 2, 3);
  const size_t pending = job.pending_in(0);

  job.placed(0, 2);  // ps-0 onto node3
  EXPECT_EQ(job.pending_in(0), pending - 1);
  EXPECT_EQ(before(2, 2, 3), 1 + 2);      // worker-0: ps-0 there, two of its bucket to place
  EXPECT_EQ(before(1, 2, 3), 0 - 1 + 3);  // ps-1 avoids the ps on node3

  job.unplaced(0);
  EXPECT_EQ(job.pending_in(0), pending);
  EXPECT_EQ(before(1, 2, 3), ps1_on_node3);
  EXPECT_EQ(before(2, 2, 3), 3);
  job.unplaced(0);  // a second deallocate changes nothing
  EXPECT_EQ(job.pending_in(0), pending);
}

// The bisection gives what Volcano's loop gives when it takes the bucket's
// other tasks out one by one in bucket order until the rest fits.
TEST(TaskTopologyBuckets, TakingTasksOutMatchesTheOneByOneLoop) {
  const std::vector<std::string_view> roles(5, "worker");
  const auto read = read_topology(Annotations{"worker", std::nullopt, std::nullopt}, roles);
  ASSERT_TRUE(read.topology) << read.error;
  JobTopology job(*read.topology, kDims);
  const std::array<std::array<double, kDims>, 5> reqs = {
      {{3000, 0, 1}, {500, 0, 1}, {2000, 0, 1}, {1000, 0, 1}, {4000, 0, 1}}};
  const std::array<std::string_view, 5> names = {"w-0", "w-1", "w-2", "w-3", "w-4"};
  std::vector<TaskEntry> tasks;
  for (size_t i = 0; i < 5; ++i)
    tasks.push_back(TaskEntry{names[i],
                              roles[i],
                              {},
                              scoria_task_topology::Bucket::kNoNode,
                              std::span<const double>(reqs[i])});
  job.build(tasks);
  ASSERT_EQ(job.pending_in(0), 5u);  // self-affinity: one bucket, in name order
  const std::array<double, kDims> none = {0, 0, 0};
  for (uint32_t slot = 0; slot < 5; ++slot)
    for (double idle = 0; idle <= 11000; idle += 250) {
      int want = 0;
      if (reqs[slot][0] <= idle) {
        double remains = 10500;
        want = 5;
        for (uint32_t other = 0; other < 5 && remains > idle + 0.05; ++other) {
          if (other == slot) continue;
          remains -= reqs[other][0];
          --want;
        }
      }
      const std::array<double, kDims> free = {idle, 0, 110};
      EXPECT_EQ(job.scorer(slot, reqs[slot]).score(0, free, none), want)
          << "slot " << slot << " idle " << idle;
    }
}

}  // namespace
