// The cache updated change by change holds what a full load of the final
// objects gives: a randomized differential test over a few hundred change
// sequences (fixed seed), with names chosen to collide (implicit PodGroup
// names, references that dangle and heal, extended resources that come and
// go, PriorityClasses and queues that change under the pods naming them).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "cache/cluster_cache.h"
#include "cache_change_generator.h"
#include "cache_snapshot_text.h"
#include "source/object_loader.h"

namespace scoria::cache {
namespace {

using test_support::Generator;
using test_support::snapshot_text;
using test_support::SourceState;

std::string full_load(const SourceState& state) {
  ClusterCache fresh;
  fresh.replace(state.all());
  return snapshot_text(fresh);
}

// Adds what the objects name, so completion accepts them: queues, classes
// and PodGroups named, one globalDefault at most. As changes, incrementally.
std::vector<ObjectChange> repairs(SourceState& state) {
  std::set<std::string> queues, classes, defaults;
  for (const auto& q : state.objects<model::Queue>(Kind::Queue)) queues.insert(q.name);
  for (const auto& c : state.objects<model::PriorityClass>(Kind::PriorityClass)) {
    classes.insert(c.name);
    if (c.global_default) defaults.insert(c.name);
  }
  std::set<std::string> groups;
  for (const auto& g : state.objects<model::PodGroup>(Kind::PodGroup)) groups.insert(g.key());
  std::vector<ObjectChange> out;
  auto need_queue = [&](const std::string& name) {
    if (name == "default" || !queues.insert(name).second) return;
    model::Queue q;
    q.name = name;
    out.push_back(ObjectChange::upsert(q));
  };
  auto need_class = [&](const std::string& name) {
    if (name.empty() || name.starts_with("system-") || !classes.insert(name).second) return;
    model::PriorityClass c;
    c.name = name;
    c.value = 7;
    out.push_back(ObjectChange::upsert(c));
  };
  for (const auto& c : state.objects<model::PriorityClass>(Kind::PriorityClass)) {
    if (c.global_default && c.name != *defaults.begin()) {
      model::PriorityClass plain = c;
      plain.global_default = false;
      out.push_back(ObjectChange::upsert(plain));
    }
  }
  for (const auto& g : state.objects<model::PodGroup>(Kind::PodGroup))
    need_queue(g.queue), need_class(g.priority_class_name);
  for (const auto& p : state.objects<model::Pod>(Kind::Pod)) {
    need_class(p.priority_class_name);
    if (!p.group_name.empty() && groups.insert(p.namespace_ + "/" + p.group_name).second) {
      model::PodGroup g;
      g.namespace_ = p.namespace_;
      g.name = p.group_name;
      out.push_back(ObjectChange::upsert(g));
    } else if (const auto q = p.annotations.find("scheduling.volcano.sh/queue-name");
               p.group_name.empty() && q != p.annotations.end()) {
      need_queue(q->second);
    }
  }
  return out;
}

// What the file source's completion makes of the same objects, loaded whole.
std::string completed_load(SourceState& state) {
  model::ClusterObjects objects;
  objects.nodes = state.objects<model::Node>(Kind::Node);
  objects.pods = state.objects<model::Pod>(Kind::Pod);
  objects.pod_groups = state.objects<model::PodGroup>(Kind::PodGroup);
  objects.queues = state.objects<model::Queue>(Kind::Queue);
  objects.priority_classes = state.objects<model::PriorityClass>(Kind::PriorityClass);
  objects.namespaces = state.objects<model::Namespace>(Kind::Namespace);
  source::complete_objects(objects);
  // complete_objects has no preemptionPolicy for classes (the file loader
  // copies it from what it decoded): copy it as admission would.
  std::set<std::string> never;
  std::string default_class;
  for (const ObjectChange& c : state.of(Kind::PriorityClass)) {
    const auto& pc = std::get<model::PriorityClass>(c.object);
    if (c.never_preempt) never.insert(pc.name);
    if (pc.global_default) default_class = pc.name;
  }
  for (model::Pod& p : objects.pods)
    if (never.contains(p.priority_class_name.empty() ? default_class : p.priority_class_name))
      p.preempt_never = true;
  ClusterCache fresh;
  fresh.reset(std::move(objects));
  return snapshot_text(fresh);
}

TEST(CacheChanges, IncrementalMatchesAFullLoadOfTheSameObjects) {
  constexpr int kSequences = 300;
  for (int run = 0; run < kSequences; ++run) {
    Generator gen(static_cast<uint32_t>(1000 + run));
    SourceState state;
    ClusterCache cache;
    const int steps = 10 + run % 40;
    for (int step = 0; step < steps; ++step) {
      std::vector<ObjectChange> batch = gen.batch(state, 1 + step % 4);
      cache.apply_changes(batch);
      ASSERT_EQ(snapshot_text(cache), full_load(state))
          << "sequence " << run << " (seed " << 1000 + run << "), step " << step;
      // The kept snapshot, brought up to date, is the one written whole.
      ASSERT_EQ(snapshot_text(cache.refresh_snapshot(0), true),
                snapshot_text(cache.snapshot(), true))
          << "sequence " << run << " (seed " << 1000 + run << "), step " << step;
    }
    // Make the objects complete, then the file source's own completion is
    // the reference.
    std::vector<ObjectChange> fix = repairs(state);
    for (const ObjectChange& c : fix) state.apply(c);
    cache.apply_changes(fix);
    ASSERT_EQ(snapshot_text(cache), completed_load(state))
        << "sequence " << run << " (seed " << 1000 + run << "), completed";
  }
}

TEST(CacheChanges, KeptSnapshotMatchesOneWrittenWholeThroughChangesAndOutcomes) {
  constexpr int kSequences = 300;
  for (int run = 0; run < kSequences; ++run) {
    Generator gen(static_cast<uint32_t>(5000 + run));
    std::mt19937 rng(static_cast<uint32_t>(9000 + run));
    SourceState state;
    ClusterCache cache;
    for (int step = 0; step < 10 + run % 40; ++step) {
      std::vector<ObjectChange> batch = gen.batch(state, 1 + step % 3);
      if (step % 4 != 3) cache.apply_changes(batch);
      // Sometimes twice in a row, with nothing or only an outcome between.
      for (int again = 0; again < 1 + step % 2; ++again) {
        const cycle::Snapshot& kept = cache.refresh_snapshot(step);
        ASSERT_EQ(snapshot_text(kept, true), snapshot_text(cache.snapshot(), true))
            << "sequence " << run << " (seed " << 5000 + run << "), step " << step;
        if (step % 3 != 0) cache.apply(test_support::made_up_outcome(kept, rng));
      }
    }
  }
}

TEST(CacheChanges, NewExtendedResourceRevectorizesWithDeterministicIds) {
  ClusterCache cache;
  model::Pod pod;
  pod.namespace_ = "a";
  pod.name = "p";
  pod.requests = {{"cpu", 500}, {"zeta.io/x", 2000}};
  std::vector<ObjectChange> changes = {ObjectChange::upsert(pod)};
  cache.apply_changes(changes);
  EXPECT_EQ(cache.dims(), (std::vector<std::string>{"cpu", "memory", "pods", "zeta.io/x"}));
  model::Node node;
  node.name = "n";
  node.allocatable = {{"alpha.io/y", 4000}, {"zeta.io/x", 8000}};
  changes = {ObjectChange::upsert(node)};
  cache.apply_changes(changes);
  EXPECT_EQ(cache.dims(),
            (std::vector<std::string>{"cpu", "memory", "pods", "alpha.io/y", "zeta.io/x"}));
  const cycle::Snapshot snap = cache.snapshot();
  ASSERT_EQ(snap.jobs.size(), 1u);
  ASSERT_EQ(snap.jobs[0].tasks.size(), 1u);
  EXPECT_EQ(
      std::vector<double>(snap.jobs[0].tasks[0].resreq.begin(), snap.jobs[0].tasks[0].resreq.end()),
      (std::vector<double>{500, 0, 1, 0, 2000}));
  // The last object naming a resource gone, its dimension goes.
  changes = {ObjectChange::remove(Kind::Node, "n")};
  cache.apply_changes(changes);
  EXPECT_EQ(cache.dims(), (std::vector<std::string>{"cpu", "memory", "pods", "zeta.io/x"}));
}

TEST(CacheChanges, EntriesKeepTheirAddressesAcrossUnrelatedChanges) {
  ClusterCache cache;
  model::Pod pod;
  pod.namespace_ = "a";
  pod.name = "stay";
  std::vector<ObjectChange> changes = {ObjectChange::upsert(pod)};
  cache.apply_changes(changes);
  const model::Pod* before = cache.snapshot().jobs.at(0).tasks[0].pod;
  for (int i = 0; i < 1000; ++i) {
    model::Pod other;
    other.namespace_ = "a";
    other.name = "churn-" + std::to_string(i);
    changes = {ObjectChange::upsert(other)};
    cache.apply_changes(changes);
    if (i % 2 == 0) {
      changes = {ObjectChange::remove(Kind::Pod, other.key())};
      cache.apply_changes(changes);
    }
  }
  const cycle::Snapshot snap = cache.snapshot();
  ASSERT_FALSE(snap.jobs.at(0).tasks.empty());
  EXPECT_EQ(snap.jobs.at(0).tasks[0].pod, before);
  EXPECT_EQ(cache.pod_count(), 501u);
}

// What the kept snapshot tells a session about its refresh
// (Snapshot::Changes): jobs changed in place and jobs arriving last keep
// the layout, and list what was written again; a job leaving moves the
// others, and a pod's requests taking other values are said.
TEST(CacheChanges, RefreshSaysWhatItWroteAgain) {
  const auto group = [](const std::string& name) {
    model::PodGroup g;
    g.namespace_ = "a";
    g.name = name;
    return ObjectChange::upsert(g);
  };
  const auto pod = [](const std::string& name, const std::string& of, double cpu) {
    model::Pod p;
    p.namespace_ = "a";
    p.name = name;
    p.group_name = of;
    p.requests = {{"cpu", cpu}};
    return ObjectChange::upsert(p);
  };
  ClusterCache cache;
  // (Three pods, so that a fourth's vectors fit where the cache keeps them:
  // when that store has to grow, every job is written again.)
  std::vector<ObjectChange> batch = {group("g0"), pod("p0", "g0", 100), group("g1"),
                                     pod("p1", "g1", 100), pod("p1b", "g1", 100)};
  cache.apply_changes(batch);
  const cycle::Snapshot& first = cache.refresh_snapshot(0);
  const cycle::Snapshot::Changes was = first.changes;
  ASSERT_EQ(first.jobs.size(), 2u);

  // p1 runs now, and g2 arrives: g1 is written again in place, g2 appended.
  batch = {group("g2"), pod("p2", "g2", 100)};
  model::Pod running = std::get<model::Pod>(pod("p1", "g1", 100).object);
  running.phase = model::PodPhase::Running;
  running.node_name = "n0";
  batch.push_back(ObjectChange::upsert(running));
  cache.apply_changes(batch);
  const cycle::Snapshot& second = cache.refresh_snapshot(1);
  EXPECT_EQ(second.changes.writer, was.writer);
  EXPECT_EQ(second.changes.version, was.version + 1);
  EXPECT_EQ(second.changes.layout, was.layout);
  EXPECT_EQ(second.changes.jobs, std::vector<uint32_t>{1});
  EXPECT_FALSE(second.changes.vectors_changed);
  ASSERT_EQ(second.jobs.size(), 3u);
  EXPECT_EQ(second.jobs[2].key, "a/g2");

  // Nothing changed: nothing written again.
  const uint64_t layout = second.changes.layout;
  EXPECT_TRUE(cache.refresh_snapshot(2).changes.jobs.empty());
  EXPECT_EQ(cache.refresh_snapshot(3).changes.layout, layout);

  // p0 asks for more: said, though it stays in place.
  batch = {pod("p0", "g0", 200)};
  cache.apply_changes(batch);
  const cycle::Snapshot& third = cache.refresh_snapshot(4);
  EXPECT_TRUE(third.changes.vectors_changed);
  EXPECT_EQ(third.changes.layout, layout);

  // g0 leaves (its pod with it) as g3 arrives: the others move down in
  // order, the layout holds; g0 is said taken out where it was, and the
  // request it summed still reads as it was through the next session.
  const double* p0_request = third.jobs[0].tasks[0].resreq.data();
  batch = {ObjectChange::remove(Kind::Pod, "a/p0"), ObjectChange::remove(Kind::PodGroup, "a/g0"),
           group("g3"), pod("p3", "g3", 300)};
  cache.apply_changes(batch);
  const cycle::Snapshot& fourth = cache.refresh_snapshot(5);
  EXPECT_EQ(fourth.changes.layout, layout);
  EXPECT_EQ(fourth.changes.removed, std::vector<uint32_t>{0});
  EXPECT_TRUE(fourth.changes.jobs.empty());
  ASSERT_EQ(fourth.jobs.size(), 3u);
  EXPECT_EQ(fourth.jobs[0].key, "a/g1");
  EXPECT_EQ(fourth.jobs[1].key, "a/g2");
  EXPECT_EQ(fourth.jobs[2].key, "a/g3");
  ASSERT_EQ(fourth.jobs[0].tasks.size(), 2u);
  EXPECT_EQ(fourth.jobs[0].tasks.data(), fourth.tasks.data());
  EXPECT_EQ(fourth.jobs[2].tasks.data(), fourth.tasks.data() + 3);
  EXPECT_EQ(p0_request[0], 200.0);
  // A pod arriving before the next refresh does not take its place yet.
  batch = {group("g4"), pod("p4", "g4", 400)};
  cache.apply_changes(batch);
  EXPECT_EQ(p0_request[0], 200.0);
  EXPECT_EQ(cache.refresh_snapshot(6).changes.layout, layout);

  // A job losing one pod of two changes size: the others move.
  batch = {ObjectChange::remove(Kind::Pod, "a/p1b")};
  cache.apply_changes(batch);
  EXPECT_NE(cache.refresh_snapshot(7).changes.layout, layout);

  // Another cache's snapshots are another writer's.
  ClusterCache other;
  EXPECT_NE(other.refresh_snapshot(0).changes.writer, was.writer);
}

}  // namespace
}  // namespace scoria::cache
