// Sessions that keep the last one's records (session::SessionMemory) decide
// as sessions that write every record anew, through random change sequences
// (tests/unit/cache_change_generator.h), jobs leaving whole among them, with
// each session's outcome applied between them: every kept set of records is
// checked against one written anew (Scheduler::set_verify_kept_records,
// which throws at the first difference), and the decisions against the
// plain path's, to the byte.
#include <gtest/gtest.h>

#include <iostream>
#include <random>
#include <sstream>
#include <string>

#include "abi/host_api.h"
#include "cache/cluster_cache.h"
#include "cache_change_generator.h"
#include "config/scheduler_config.h"
#include "plugin/plugin_registry.h"
#include "scheduler/scheduler.h"
#include "source/object_loader.h"

namespace {

using namespace scoria;

// Every action that changes what is placed, and plugins that read what is
// on nodes, in the jobs' queues and their phases.
constexpr const char* kConfig = R"(
actions = "enqueue, allocate, preempt, reclaim, backfill"
[[tiers]]
plugins = [{ name = "priority" }, { name = "gang" }, { name = "conformance" }]
[[tiers]]
plugins = [{ name = "overcommit" }, { name = "drf" }, { name = "predicates" },
           { name = "proportion" }, { name = "nodeorder" }, { name = "binpack" }]
)";

std::string outcome_text(const cycle::Outcome& o) {
  std::ostringstream s;
  for (const auto& b : o.binds) s << "bind " << b.pod << " " << b.node << "\n";
  for (const auto& e : o.evictions) s << "evict " << e << "\n";
  for (const auto& p : o.pipelined) s << "pipelined " << p.pod << " " << p.node << "\n";
  for (const auto& g : o.pod_groups) {
    s << "group " << g.key << " " << static_cast<int>(g.phase) << " " << g.unschedulable << " "
      << g.running << "/" << g.succeeded << "/" << g.failed << " placed " << g.placed << " queue "
      << g.queue << " unready " << g.unready << " share " << g.share << "\n";
    for (const auto& p : g.pending) s << "  pending " << p.pod << " " << p.message << "\n";
  }
  s << "unschedulable tasks " << o.unschedulable_tasks << "\n";
  for (const auto& q : o.queues) {
    s << "queue " << q.name;
    for (double a : q.allocated) s << " " << a;
    s << " request";
    for (double r : q.request) s << " " << r;
    s << " inqueue";
    for (double r : q.inqueue) s << " " << r;
    s << "\n";
  }
  return s.str();
}

config::SchedulerConfig plain_config() {
  config::SchedulerConfig conf = config::parse_config(kConfig, "plain.toml");
  conf.equivalence_cache = false;
  return conf;
}

// A cluster of `objects` scheduled twice: keeping records (each kept set
// checked against one written anew) and writing them anew each session.
struct KeptAndPlain {
  KeptAndPlain(const plugin::PluginRegistry& registry, const model::ClusterObjects& objects)
      : kept_sched(registry, config::parse_config(kConfig, "kept.toml")),
        plain_sched(registry, plain_config()) {
    kept_sched.set_verify_kept_records(true);
    kept_cache.reset(objects);
    plain_cache.reset(objects);
  }
  scheduler::Scheduler kept_sched, plain_sched;
  cache::ClusterCache kept_cache, plain_cache;
};

TEST(KeptRecords, DecideAsRecordsWrittenAnewThroughRandomChanges) {
  plugin::PluginRegistry registry{scoria::abi::host_api()};
  registry.set_allow_writable(true);  // the build tree's plugins
  registry.scan({SCORIA_PLUGIN_DIR});
  size_t sessions = 0, kept = 0, kept_entries = 0;
  for (int run = 0; run < 150; ++run) {
    config::SchedulerConfig kept_conf = config::parse_config(kConfig, "kept.toml");
    config::SchedulerConfig plain_conf = kept_conf;
    plain_conf.equivalence_cache = false;
    scheduler::Scheduler kept_sched(registry, kept_conf), plain_sched(registry, plain_conf);
    kept_sched.set_verify_kept_records(true);
    test_support::Generator gen(static_cast<uint32_t>(7000 + run));
    test_support::SourceState state;
    cache::ClusterCache kept_cache, plain_cache;
    // Handed back each time, as simulate does: a close then writes again
    // only the entries that may have changed (and, verifying, compares).
    cycle::Outcome kept_out;
    for (int step = 0; step < 10 + run % 30; ++step) {
      // Some sessions follow changes, some only their predecessor's outcome.
      if (step % 3 != 2) {
        std::vector<cache::ObjectChange> batch = gen.batch(state, 1 + step % 3);
        // Now and then a job leaves whole (its records are taken out).
        if (step % 4 == 3)
          for (auto& c : gen.job_leaves(state)) batch.push_back(std::move(c));
        std::vector<cache::ObjectChange> copy = batch;
        kept_cache.apply_changes(batch);
        plain_cache.apply_changes(copy);
      }
      const int64_t now = 1'700'000'000'000 + step * 1000;
      scheduler::SessionTimings timings;
      cycle::Outcome plain_out;
      ASSERT_NO_THROW(
          kept_sched.run_once(kept_cache.refresh_snapshot(now, true), kept_out, &timings))
          << "sequence " << run << ", step " << step;
      plain_sched.run_once(plain_cache.refresh_snapshot(now, false), plain_out);
      ASSERT_EQ(outcome_text(kept_out), outcome_text(plain_out))
          << "sequence " << run << ", step " << step;
      ++sessions;
      kept += timings.kept_records ? 1 : 0;
      kept_entries += timings.kept_entries ? 1 : 0;
      kept_cache.apply(kept_out);
      plain_cache.apply(plain_out);
    }
  }
  std::cout << kept << " of " << sessions << " sessions kept records, " << kept_entries
            << " their closes' entries\n";
  // The comparison means something only if records were kept often.
  EXPECT_GT(kept * 3, sessions) << kept << " of " << sessions << " sessions kept records";
  EXPECT_GT(kept_entries * 4, sessions) << kept_entries << " of " << sessions;
}

// Nodes whose memory, in bytes, adds up past 2^53 while each node's stays
// far below: every sum the records keep holds at most one node's
// allocatable, so they stay exact and are kept (a bound that summed the
// nodes' allocatables kept none at S5's size).
TEST(KeptRecords, KeptWhenOnlyTheNodesTogetherPassExactSums) {
  plugin::PluginRegistry registry{scoria::abi::host_api()};
  registry.set_allow_writable(true);
  registry.scan({SCORIA_PLUGIN_DIR});
  std::string text;
  for (int n = 0; n < 40; ++n)
    text += "---\nkind: Node\napiVersion: v1\nmetadata: {name: n" + std::to_string(n) +
            "}\nstatus: {allocatable: {cpu: \"64\", memory: 300Ti, pods: \"110\"}}\n";
  for (int j = 0; j < 30; ++j) {
    const std::string g = "g" + std::to_string(j);
    text +=
        "---\nkind: PodGroup\napiVersion: scheduling.volcano.sh/v1beta1\nmetadata: {name: " + g +
        ", namespace: w}\nspec: {minMember: 2}\n";
    for (int t = 0; t < 2; ++t)
      text += "---\nkind: Pod\napiVersion: v1\nmetadata: {name: " + g + "-" + std::to_string(t) +
              ", namespace: w, annotations: {scheduling.k8s.io/group-name: " + g +
              "}}\nspec: {containers: [{name: c, resources: {requests: {cpu: \"20\", "
              "memory: 90Ti}}}]}\n";
  }
  model::ClusterObjects objects;
  source::parse_objects(text, "big-nodes.yaml", objects);
  source::complete_objects(objects);
  KeptAndPlain two(registry, objects);
  auto& [kept_sched, plain_sched, kept_cache, plain_cache] = two;
  int kept = 0;
  for (int step = 0; step < 4; ++step) {
    const int64_t now = 1'700'000'000'000 + step * 1000;
    scheduler::SessionTimings timings;
    cycle::Outcome kept_out, plain_out;
    ASSERT_NO_THROW(kept_sched.run_once(kept_cache.refresh_snapshot(now, true), kept_out, &timings))
        << "step " << step;
    plain_sched.run_once(plain_cache.refresh_snapshot(now, false), plain_out);
    ASSERT_EQ(outcome_text(kept_out), outcome_text(plain_out)) << "step " << step;
    if (step == 0) {
      EXPECT_EQ(kept_out.binds.size(), 60u);
    }
    kept += timings.kept_records ? 1 : 0;
    kept_cache.apply(kept_out);
    plain_cache.apply(plain_out);
  }
  // The second session writes anew (the first placed every job, past the
  // quarter that kept records take); the two after it keep theirs.
  EXPECT_EQ(kept, 2);
}

// A kept close writes again the entries of the jobs the session touched,
// though none of them was written again at open or had a task waiting:
// here a running job one of whose pods is evicted for a job that arrived.
TEST(KeptRecords, AKeptCloseWritesTheEntryOfAJobPreemptedFrom) {
  plugin::PluginRegistry registry{scoria::abi::host_api()};
  registry.set_allow_writable(true);
  registry.scan({SCORIA_PLUGIN_DIR});
  std::string text =
      "---\nkind: PriorityClass\napiVersion: scheduling.k8s.io/v1\nmetadata: {name: low}\n"
      "value: 10\n---\nkind: PriorityClass\napiVersion: scheduling.k8s.io/v1\n"
      "metadata: {name: high}\nvalue: 1000\n";
  for (int n = 0; n < 5; ++n)
    text += "---\nkind: Node\napiVersion: v1\nmetadata: {name: n" + std::to_string(n) +
            "}\nstatus: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}\n";
  const auto group = [](const std::string& g, const char* priority) {
    return "---\nkind: PodGroup\napiVersion: scheduling.volcano.sh/v1beta1\nmetadata: {name: " + g +
           ", namespace: w}\nspec: {minMember: 1, priorityClassName: " + priority + "}\n";
  };
  const auto pod = [](const std::string& g, const std::string& name, const char* priority,
                      const std::string& node) {
    return "---\nkind: Pod\napiVersion: v1\nmetadata: {name: " + name +
           ", namespace: w, annotations: {scheduling.k8s.io/group-name: " + g +
           "}}\nspec: {priorityClassName: " + priority +
           (node.empty() ? "" : ", nodeName: " + node) +
           ", containers: [{name: c, resources: {requests: {cpu: \"1\", memory: 1Gi}}}]}\n" +
           (node.empty() ? "" : "status: {phase: Running}\n");
  };
  // Ten jobs of two running pods each fill the five nodes.
  for (int j = 0; j < 10; ++j) {
    const std::string g = "g" + std::to_string(j);
    text += group(g, "low");
    for (int t = 0; t < 2; ++t)
      text += pod(g, g + "-" + std::to_string(t), "low", "n" + std::to_string((2 * j + t) % 5));
  }
  model::ClusterObjects objects, arrival;
  source::parse_objects(text, "full.yaml", objects);
  source::complete_objects(objects);
  source::parse_objects(group("urgent", "high") + pod("urgent", "urgent-0", "high", ""),
                        "arrival.yaml", arrival);
  KeptAndPlain two(registry, objects);
  auto& [kept_sched, plain_sched, kept_cache, plain_cache] = two;
  cycle::Outcome kept_out;
  // The first session's outcome writes every PodGroup's status, so the
  // second writes its records anew; the third and fourth keep theirs.
  for (int step = 0; step < 4; ++step) {
    if (step == 3) {
      for (cache::ClusterCache* cache : {&kept_cache, &plain_cache}) {
        std::vector<cache::ObjectChange> changes;
        changes.push_back(cache::ObjectChange::upsert(arrival.pod_groups.front()));
        changes.push_back(cache::ObjectChange::upsert(arrival.pods.front()));
        cache->apply_changes(changes);
      }
    }
    const int64_t now = 1'700'000'000'000 + step * 1000;
    scheduler::SessionTimings timings;
    cycle::Outcome plain_out;
    ASSERT_NO_THROW(kept_sched.run_once(kept_cache.refresh_snapshot(now, true), kept_out, &timings))
        << "step " << step;
    plain_sched.run_once(plain_cache.refresh_snapshot(now, false), plain_out);
    ASSERT_EQ(outcome_text(kept_out), outcome_text(plain_out)) << "step " << step;
    if (step > 1) {
      EXPECT_TRUE(timings.kept_entries) << "step " << step;
    }
    if (step == 3) {
      ASSERT_EQ(kept_out.evictions.size(), 1u);
    }
    kept_cache.apply(kept_out);
    plain_cache.apply(plain_out);
  }
}

}  // namespace
