// What a timed run keeps of the node use and the waiting tasks between
// sessions (simulation::SnapshotTally) is what taking every task anew gives,
// to the bit, through random change sequences with jobs leaving whole and
// sessions' outcomes applied; and a request that is not a whole number has
// it summed anew (in task order, as a fresh sum adds).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "cache/cluster_cache.h"
#include "cache_change_generator.h"
#include "simulation/snapshot_tally.h"

namespace scoria::simulation {
namespace {

using cache::ClusterCache;
using cache::Kind;
using cache::ObjectChange;

std::vector<double> anew(const cycle::Snapshot& snap, size_t dims) {
  SnapshotTally fresh;
  fresh.update(snap, dims);
  return {fresh.used().begin(), fresh.used().end()};
}

// What the tasks occupy, summed here by hand: node by node, in task order.
std::vector<double> by_hand(const cycle::Snapshot& snap, size_t dims) {
  constexpr uint32_t kOccupying = SCORIA_TASK_ALLOCATED | SCORIA_TASK_BINDING | SCORIA_TASK_BOUND |
                                  SCORIA_TASK_RUNNING | SCORIA_TASK_RELEASING;
  std::vector<double> used(snap.nodes.size() * dims, 0.0);
  for (const auto& job : snap.jobs)
    for (const auto& t : job.tasks)
      if (t.node >= 0 && (t.status & kOccupying) != 0)
        for (size_t d = 0; d < dims && d < t.resreq.size(); ++d)
          used[static_cast<size_t>(t.node) * dims + d] += t.resreq[d];
  return used;
}

// The tasks that wait, by hand: pending, in a job the cache can schedule.
std::vector<size_t> waiting_by_hand(const cycle::Snapshot& snap) {
  std::vector<size_t> out;
  for (const auto& job : snap.jobs)
    for (const auto& t : job.tasks)
      if (job.invalid.empty() && t.status == SCORIA_TASK_PENDING)
        out.push_back(static_cast<size_t>(&t - snap.tasks.data()));
  return out;
}

std::vector<size_t> waiting_of(const SnapshotTally& tally, const cycle::Snapshot& snap) {
  std::vector<size_t> out;
  for (size_t i = 0; i < snap.tasks.size(); ++i)
    if (tally.waits(i)) out.push_back(i);
  return out;
}

TEST(SnapshotTally, KeptAsSummedAnewThroughChangesAndOutcomes) {
  size_t followed = 0, refreshes = 0;
  for (int run = 0; run < 150; ++run) {
    test_support::Generator gen(static_cast<uint32_t>(3100 + run));
    test_support::SourceState state;
    std::mt19937 rng(static_cast<uint32_t>(4100 + run));
    ClusterCache cache;
    SnapshotTally kept;
    for (int step = 0; step < 10 + run % 30; ++step) {
      std::vector<ObjectChange> batch = gen.batch(state, 1 + step % 3);
      if (step % 3 == 2)
        for (auto& c : gen.job_leaves(state)) batch.push_back(std::move(c));
      cache.apply_changes(batch);
      const cycle::Snapshot& snap = cache.refresh_snapshot(step);
      const size_t dims = snap.dims.size();
      kept.update(snap, dims);
      const bool follows =
          kept.kept() && (!snap.changes.removed.empty() || !snap.changes.jobs.empty());
      const std::vector<double> got(kept.used().begin(), kept.used().end());
      ASSERT_EQ(got, anew(snap, dims)) << "sequence " << run << ", step " << step;
      ASSERT_EQ(got, by_hand(snap, dims)) << "sequence " << run << ", step " << step;
      const std::vector<size_t> waiting = waiting_by_hand(snap);
      ASSERT_EQ(waiting_of(kept, snap), waiting) << "sequence " << run << ", step " << step;
      ASSERT_EQ(kept.waiting(), waiting.size()) << "sequence " << run << ", step " << step;
      ++refreshes;
      followed += follows ? 1 : 0;
      cache.apply(test_support::made_up_outcome(snap, rng));
    }
  }
  // The comparison means something only if sums were kept through jobs
  // written again or taken out often.
  EXPECT_GT(followed * 8, refreshes) << followed << " of " << refreshes;
}

TEST(SnapshotTally, ARequestNotWholeIsSummedAnewInTaskOrder) {
  ClusterCache cache;
  model::Node node;
  node.name = "n0";
  node.allocatable = {{"cpu", 4000}};
  std::vector<ObjectChange> batch = {ObjectChange::upsert(node)};
  // Three running pods whose cpu, summed in another order, comes out other
  // in its last bits: 0.1 + 0.2 + 0.3 is not 0.3 + 0.2 + 0.1 in doubles.
  for (const auto& [name, cpu] :
       std::vector<std::pair<std::string, double>>{{"p1", 0.1}, {"p2", 0.2}, {"p3", 0.3}}) {
    model::Pod p;
    p.namespace_ = "a";
    p.name = name;
    p.node_name = "n0";
    p.phase = model::PodPhase::Running;
    p.requests = {{"cpu", cpu}};
    batch.push_back(ObjectChange::upsert(p));
  }
  cache.apply_changes(batch);
  SnapshotTally kept;
  const cycle::Snapshot& first = cache.refresh_snapshot(0);
  kept.update(first, first.dims.size());
  EXPECT_EQ(kept.used()[0], (0.1 + 0.2) + 0.3);
  // p1 leaves: what is left is 0.2 + 0.3 as a fresh sum adds it, not
  // 0.6 - 0.1.
  batch = {ObjectChange::remove(Kind::Pod, "a/p1")};
  cache.apply_changes(batch);
  const cycle::Snapshot& second = cache.refresh_snapshot(1);
  ASSERT_EQ(second.changes.removed.size(), 1u);
  kept.update(second, second.dims.size());
  EXPECT_FALSE(kept.kept());
  EXPECT_EQ(kept.used()[0], 0.2 + 0.3);
  EXPECT_EQ(std::vector<double>(kept.used().begin(), kept.used().end()),
            anew(second, second.dims.size()));
}

}  // namespace
}  // namespace scoria::simulation
