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
#include "cache_snapshot_text.h"
#include "source/object_loader.h"

namespace scoria::cache {
namespace {

using test_support::snapshot_text;

// The source's state: objects of each kind in the order they arrived (a
// modified object keeps its place; a deleted one that comes back is last).
class SourceState {
 public:
  void apply(const ObjectChange& c) {
    auto& list = lists_[c.kind];
    const auto it = std::find_if(list.begin(), list.end(),
                                 [&](const ObjectChange& o) { return o.key == c.key; });
    if (c.type == ObjectChange::Type::Delete) {
      if (it != list.end()) list.erase(it);
    } else if (it != list.end()) {
      *it = c;
    } else {
      list.push_back(c);
    }
  }
  std::vector<ObjectChange> all() const {
    std::vector<ObjectChange> out;
    for (const auto& [kind, list] : lists_) out.insert(out.end(), list.begin(), list.end());
    return out;
  }
  const std::vector<ObjectChange>& of(Kind kind) { return lists_[kind]; }
  template <class T>
  std::vector<T> objects(Kind kind) {
    std::vector<T> out;
    for (const ObjectChange& c : lists_[kind]) out.push_back(std::get<T>(c.object));
    return out;
  }

 private:
  std::map<Kind, std::vector<ObjectChange>> lists_;
};

class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  ObjectChange next(SourceState& state) {
    const int what = pick(10);
    if (what == 0) {
      // A delete, of something there or (rarely) not.
      const Kind kind = static_cast<Kind>(pick(6));
      const auto& list = state.of(kind);
      if (!list.empty() && pick(8) != 0)
        return ObjectChange::remove(kind, list[pick(list.size())].key);
      return ObjectChange::remove(kind, kind == Kind::Pod ? "a/ghost" : "ghost");
    }
    if (what <= 4) return ObjectChange::upsert(pod());
    if (what == 5) return ObjectChange::upsert(group());
    if (what == 6) return ObjectChange::upsert(node());
    if (what == 7) return ObjectChange::upsert(queue());
    if (what == 8) return ObjectChange::upsert(pclass(), pick(4) == 0);
    if (pick(2) == 0) return ObjectChange::upsert(namespace_());
    return ObjectChange::upsert(pod());
  }

  model::Pod pod() {
    static const std::vector<std::string> kNames = {
        "p0", "p1", "g0", "podgroup-p0", "podgroup-p0-2", "x-2", "podgroup-x-2", "podgroup-x-2-2",
        "x"};
    model::Pod p;
    p.namespace_ = pick(4) == 0 ? "b" : "a";
    p.name = one(kNames);
    if (pick(2) == 0) p.group_name = one(group_names());
    if (pick(4) == 0) p.annotations["scheduling.volcano.sh/queue-name"] = one(queue_names());
    if (pick(3) == 0) p.priority_class_name = one(class_names());
    if (pick(5) == 0) p.priority = static_cast<int32_t>(pick(100));
    if (pick(6) == 0) p.preempt_never = true;
    if (pick(3) == 0) p.node_name = one(node_names());
    if (pick(8) == 0) p.scheduler_name = "other";
    p.phase = pick(4) == 0 ? model::PodPhase::Running : model::PodPhase::Pending;
    p.requests = resources();
    p.init_requests = pick(3) == 0 ? resources() : p.requests;
    p.creation_ms = static_cast<int64_t>(pick(5));
    return p;
  }
  model::PodGroup group() {
    model::PodGroup g;
    g.namespace_ = pick(4) == 0 ? "b" : "a";
    g.name = one(group_names());
    g.queue = one(queue_names());
    if (pick(3) == 0) g.priority_class_name = one(class_names());
    g.min_member = static_cast<int32_t>(1 + pick(3));
    g.min_resources = resources();
    g.phase = pick(3) == 0 ? model::PodGroupPhase::Inqueue : model::PodGroupPhase::Pending;
    return g;
  }
  model::Node node() {
    model::Node n;
    n.name = one(node_names());
    n.allocatable = resources();
    if (pick(2) == 0) n.allocatable.emplace_back("pods", 1 + pick(50));
    return n;
  }
  model::Queue queue() {
    model::Queue q;
    q.name = one(queue_names());
    q.weight = static_cast<int32_t>(1 + pick(3));
    q.capability = resources();
    if (pick(2) == 0) q.deserved = resources();
    return q;
  }
  model::PriorityClass pclass() {
    model::PriorityClass c;
    c.name = one(class_names());
    c.value = static_cast<int32_t>(pick(1000));
    c.global_default = pick(4) == 0;
    return c;
  }

  model::Namespace namespace_() {
    model::Namespace n;
    n.name = pick(2) == 0 ? "b" : "a";
    if (pick(2) == 0) n.labels["team"] = pick(2) == 0 ? "data" : "web";
    return n;
  }

  static const std::vector<std::string>& group_names() {
    static const std::vector<std::string> k = {"g0", "g1", "p0", "podgroup-p0", "x"};
    return k;
  }
  static const std::vector<std::string>& queue_names() {
    static const std::vector<std::string> k = {"default", "q1", "q2"};
    return k;
  }
  static const std::vector<std::string>& class_names() {
    static const std::vector<std::string> k = {"low", "high", "system-cluster-critical"};
    return k;
  }
  static const std::vector<std::string>& node_names() {
    static const std::vector<std::string> k = {"n0", "n1", "n2"};
    return k;
  }

 private:
  size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  const std::string& one(const std::vector<std::string>& v) { return v[pick(v.size())]; }
  model::ResourceList resources() {
    model::ResourceList r = {{"cpu", 100.0 * static_cast<double>(pick(10))},
                             {"memory", 1e6 * static_cast<double>(pick(10))}};
    if (pick(4) == 0) r.emplace_back("nvidia.com/gpu", 1000.0 * static_cast<double>(pick(3)));
    if (pick(6) == 0) r.emplace_back("example.com/fpga", 1000.0);
    return r;
  }

  std::mt19937 rng_;
};

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
      std::vector<ObjectChange> batch;
      const int size = 1 + step % 4;
      for (int i = 0; i < size; ++i) {
        batch.push_back(gen.next(state));
        state.apply(batch.back());
      }
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

// What a session decided, made up: binds some pending tasks, evicts some
// placed ones and moves some jobs to another phase.
session::Outcome made_up_outcome(const session::Snapshot& snap, std::mt19937& rng) {
  const auto pick = [&rng](size_t n) {
    return std::uniform_int_distribution<size_t>(0, n - 1)(rng);
  };
  session::Outcome o;
  for (const auto& j : snap.jobs) {
    for (const auto& t : j.tasks) {
      if (t.status == SCORIA_TASK_PENDING && !snap.nodes.empty() && pick(3) == 0)
        o.binds.push_back({t.views->uid, snap.nodes[pick(snap.nodes.size())].spec->name});
      else if (t.node >= 0 && pick(5) == 0)
        o.evictions.push_back(t.views->uid);
    }
    if (pick(3) == 0) {
      session::Outcome::PodGroupStatus st;
      st.key = std::string(j.key.empty() ? j.group->key() : j.key);
      st.phase = static_cast<model::PodGroupPhase>(pick(5));
      st.source = j.source;
      st.source_seq = pick(2) == 0 ? j.source_seq : 0;
      o.pod_groups.push_back(std::move(st));
    }
  }
  return o;
}

TEST(CacheChanges, KeptSnapshotMatchesOneWrittenWholeThroughChangesAndOutcomes) {
  constexpr int kSequences = 300;
  for (int run = 0; run < kSequences; ++run) {
    Generator gen(static_cast<uint32_t>(5000 + run));
    std::mt19937 rng(static_cast<uint32_t>(9000 + run));
    SourceState state;
    ClusterCache cache;
    for (int step = 0; step < 10 + run % 40; ++step) {
      std::vector<ObjectChange> batch;
      for (int i = 0; i < 1 + step % 3; ++i) {
        batch.push_back(gen.next(state));
        state.apply(batch.back());
      }
      if (step % 4 != 3) cache.apply_changes(batch);
      // Sometimes twice in a row, with nothing or only an outcome between.
      for (int again = 0; again < 1 + step % 2; ++again) {
        const session::Snapshot& kept = cache.refresh_snapshot(step);
        ASSERT_EQ(snapshot_text(kept, true), snapshot_text(cache.snapshot(), true))
            << "sequence " << run << " (seed " << 5000 + run << "), step " << step;
        if (step % 3 != 0) cache.apply(made_up_outcome(kept, rng));
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
  const session::Snapshot snap = cache.snapshot();
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
  const session::Snapshot snap = cache.snapshot();
  ASSERT_FALSE(snap.jobs.at(0).tasks.empty());
  EXPECT_EQ(snap.jobs.at(0).tasks[0].pod, before);
  EXPECT_EQ(cache.pod_count(), 501u);
}

}  // namespace
}  // namespace scoria::cache
