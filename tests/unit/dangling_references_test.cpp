// Objects naming missing ones never wedge the cache: they are kept, their
// job waits with a reason the session reports, every other job schedules,
// and the job heals when the missing object arrives.
#include <gtest/gtest.h>

#include <stdexcept>

#include "cache/cluster_cache.h"
#include "config/scheduler_config.h"
#include "session/session.h"

namespace scoria::cache {
namespace {

model::Pod pod(const std::string& name, const std::string& group = "") {
  model::Pod p;
  p.namespace_ = "ns";
  p.name = name;
  p.group_name = group;
  p.requests = {{"cpu", 1000}};
  return p;
}

model::PodGroup group(const std::string& name, const std::string& queue) {
  model::PodGroup g;
  g.namespace_ = "ns";
  g.name = name;
  g.queue = queue;
  return g;
}

model::Node node(const std::string& name) {
  model::Node n;
  n.name = name;
  n.allocatable = {{"cpu", 4000}, {"memory", 8e9}};
  return n;
}

void apply(ClusterCache& cache, std::vector<ObjectChange> changes) { cache.apply_changes(changes); }

const cycle::Snapshot::JobIn* job(const cycle::Snapshot& snap, const std::string& key) {
  for (const auto& j : snap.jobs)
    if (j.group->key() == key) return &j;
  return nullptr;
}

/// The job's first task; a missing job or task fails the test (thrown).
const cycle::Snapshot::TaskIn& first_task(const cycle::Snapshot::JobIn* j) {
  if (j == nullptr || j->tasks.empty()) throw std::runtime_error("the job is missing or empty");
  return j->tasks.front();
}

TEST(DanglingReferences, MissingQueueKeepsTheJobWaitingWithAReason) {
  ClusterCache cache;
  apply(cache, {ObjectChange::upsert(node("n1")), ObjectChange::upsert(group("bad", "q9")),
                ObjectChange::upsert(pod("bad-0", "bad")), ObjectChange::upsert(pod("ok"))});
  cycle::Snapshot snap = cache.snapshot();
  const auto* bad = job(snap, "ns/bad");
  const auto* ok = job(snap, "ns/ok");
  ASSERT_NE(bad, nullptr);
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(bad->queue, -1);
  EXPECT_EQ(bad->invalid, "queue \"q9\" does not exist");
  EXPECT_EQ(bad->tasks.size(), 1u);
  EXPECT_GE(ok->queue, 0);
  EXPECT_TRUE(ok->invalid.empty());

  // The session refuses the job with the reason and reports it; the other
  // job is valid.
  config::SchedulerConfig config;
  session::Session ssn(snap, config, nullptr);
  std::string why;
  for (const session::Job& j : ssn.jobs()) {
    if (j.uid == "ns/bad") {
      EXPECT_FALSE(ssn.dispatch().job_valid(j, &why));
      EXPECT_EQ(why, "queue \"q9\" does not exist");
      EXPECT_EQ(j.fit_error, "queue \"q9\" does not exist");
    } else {
      EXPECT_TRUE(ssn.dispatch().job_valid(j, nullptr)) << j.uid;
    }
  }

  // The queue arrives: the job heals in place.
  model::Queue q9;
  q9.name = "q9";
  apply(cache, {ObjectChange::upsert(q9)});
  snap = cache.snapshot();
  bad = job(snap, "ns/bad");
  ASSERT_NE(bad, nullptr);
  EXPECT_GE(bad->queue, 0);
  EXPECT_TRUE(bad->invalid.empty());
  // And strands it again when it goes.
  apply(cache, {ObjectChange::remove(Kind::Queue, "q9")});
  EXPECT_EQ(job(cache.snapshot(), "ns/bad")->queue, -1);
}

TEST(DanglingReferences, PodNamingAMissingPodGroupWaitsForIt) {
  ClusterCache cache;
  apply(cache, {ObjectChange::upsert(pod("orphan-0", "later")), ObjectChange::upsert(pod("ok"))});
  cycle::Snapshot snap = cache.snapshot();
  const auto* later = job(snap, "ns/later");
  ASSERT_NE(later, nullptr);
  EXPECT_EQ(later->invalid, "PodGroup \"later\" does not exist");
  EXPECT_EQ(later->queue, -1);
  EXPECT_TRUE(job(snap, "ns/ok")->invalid.empty());

  apply(cache, {ObjectChange::upsert(group("later", "default"))});
  snap = cache.snapshot();
  later = job(snap, "ns/later");
  ASSERT_NE(later, nullptr);
  EXPECT_TRUE(later->invalid.empty());
  ASSERT_EQ(later->tasks.size(), 1u);
  EXPECT_EQ(later->tasks[0].views->uid, "ns/orphan-0");

  // The group deleted under its pod: the pod waits again.
  apply(cache, {ObjectChange::remove(Kind::PodGroup, "ns/later")});
  EXPECT_EQ(job(cache.snapshot(), "ns/later")->invalid, "PodGroup \"later\" does not exist");
}

TEST(DanglingReferences, PriorityClassesResolveWhenTheyArriveAndChange) {
  ClusterCache cache;
  model::Pod named = pod("named");
  named.priority_class_name = "high";
  model::Pod plain = pod("plain");
  apply(cache, {ObjectChange::upsert(named), ObjectChange::upsert(plain)});
  cycle::Snapshot snap = cache.snapshot();
  // Kubernetes' admission would have refused the pod: its job waits. (A
  // PodGroup's own missing class only gives it the default priority.)
  EXPECT_EQ(job(snap, "ns/named")->invalid,
            "PriorityClass \"high\" of pod ns/named does not exist");
  EXPECT_TRUE(job(snap, "ns/plain")->invalid.empty());

  model::PriorityClass high;
  high.name = "high";
  high.value = 1000;
  apply(cache, {ObjectChange::upsert(high, /*never_preempt=*/true)});
  snap = cache.snapshot();
  const auto* j = job(snap, "ns/named");
  EXPECT_TRUE(j->invalid.empty());
  EXPECT_EQ(first_task(j).priority, 1000);
  EXPECT_TRUE(first_task(j).pod->preempt_never);
  EXPECT_EQ(j->priority, 1000);  // the implicit group takes the pod's class

  // The value changes after the pods named it; a global default reaches
  // the pods that name no class.
  high.value = 5;
  model::PriorityClass base;
  base.name = "base";
  base.value = 42;
  base.global_default = true;
  apply(cache, {ObjectChange::upsert(high), ObjectChange::upsert(base)});
  snap = cache.snapshot();
  EXPECT_EQ(first_task(job(snap, "ns/named")).priority, 5);
  EXPECT_FALSE(first_task(job(snap, "ns/named")).pod->preempt_never);
  EXPECT_EQ(first_task(job(snap, "ns/plain")).priority, 42);
  EXPECT_EQ(job(snap, "ns/plain")->priority, 42);
}

TEST(DanglingReferences, QueueDefaultExistsUntilDefinedAndAfterDeleted) {
  ClusterCache cache;
  apply(cache, {ObjectChange::upsert(pod("p"))});
  cycle::Snapshot snap = cache.snapshot();
  ASSERT_EQ(snap.queues.size(), 1u);
  EXPECT_EQ(snap.queues[0].spec->name, "default");
  model::Queue def;
  def.name = "default";
  def.weight = 3;
  model::Queue other;
  other.name = "other";
  apply(cache, {ObjectChange::upsert(other), ObjectChange::upsert(def)});
  snap = cache.snapshot();
  ASSERT_EQ(snap.queues.size(), 2u);
  EXPECT_EQ(snap.queues[1].spec->weight, 3);
  EXPECT_EQ(job(snap, "ns/p")->queue, 1);
  apply(cache, {ObjectChange::remove(Kind::Queue, "default")});
  snap = cache.snapshot();
  ASSERT_EQ(snap.queues.size(), 2u);
  EXPECT_EQ(snap.queues[1].spec->weight, 1);
  EXPECT_TRUE(job(snap, "ns/p")->invalid.empty());
}

}  // namespace
}  // namespace scoria::cache
