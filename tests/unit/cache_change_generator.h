// Random changes of a cluster, as a source would send them, for tests that
// hold something kept up to date change by change (the cache's snapshot,
// sessions' kept records) to what is written anew: names chosen to collide
// (implicit PodGroup names, references that dangle and heal, extended
// resources that come and go, PriorityClasses and queues that change under
// the pods naming them).
#pragma once

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "cache/object_change.h"
#include "scoria/scoria.h"
#include "session/session.h"

namespace scoria::test_support {

using cache::Kind;
using cache::ObjectChange;

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

  /// `n` changes, each applied to `state` as it is made.
  std::vector<ObjectChange> batch(SourceState& state, int n) {
    std::vector<ObjectChange> out;
    for (int i = 0; i < n; ++i) {
      out.push_back(next(state));
      state.apply(out.back());
    }
    return out;
  }

  /// A job leaving whole, as a finished one is cleaned up: a pod and, if
  /// it names a PodGroup, every pod naming it and the PodGroup.
  std::vector<ObjectChange> job_leaves(SourceState& state) {
    const std::vector<model::Pod> pods = state.objects<model::Pod>(Kind::Pod);
    if (pods.empty()) return {};
    const model::Pod& one_pod = pods[pick(pods.size())];
    std::vector<ObjectChange> out;
    for (const model::Pod& p : pods)
      if (p.key() == one_pod.key() ||
          (!one_pod.group_name.empty() && p.namespace_ == one_pod.namespace_ &&
           p.group_name == one_pod.group_name))
        out.push_back(ObjectChange::remove(Kind::Pod, p.key()));
    if (!one_pod.group_name.empty())
      out.push_back(
          ObjectChange::remove(Kind::PodGroup, one_pod.namespace_ + "/" + one_pod.group_name));
    for (const ObjectChange& c : out) state.apply(c);
    return out;
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

// What a session decided, made up: binds some pending tasks, evicts some
// placed ones and moves some jobs to another phase.
inline cycle::Outcome made_up_outcome(const cycle::Snapshot& snap, std::mt19937& rng) {
  const auto pick = [&rng](size_t n) {
    return std::uniform_int_distribution<size_t>(0, n - 1)(rng);
  };
  cycle::Outcome o;
  for (const auto& j : snap.jobs) {
    for (const auto& t : j.tasks) {
      if (t.status == SCORIA_TASK_PENDING && !snap.nodes.empty() && pick(3) == 0)
        o.binds.push_back({t.views->uid, snap.nodes[pick(snap.nodes.size())].spec->name});
      else if (t.node >= 0 && pick(5) == 0)
        o.evictions.push_back(t.views->uid);
    }
    if (pick(3) == 0) {
      cycle::Outcome::PodGroupStatus st;
      st.key = std::string(j.key.empty() ? j.group->key() : j.key);
      st.phase = static_cast<model::PodGroupPhase>(pick(5));
      st.source = j.source;
      st.source_seq = pick(2) == 0 ? j.source_seq : 0;
      o.pod_groups.push_back(std::move(st));
    }
  }
  return o;
}

}  // namespace scoria::test_support
