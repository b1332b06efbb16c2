// Session::close over an earlier outcome: jobs shift as others come and go,
// and each entry still names its own job (a key handed over from the entry
// written for the same PodGroup before, or written afresh).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cache/cluster_cache.h"
#include "config/scheduler_config.h"
#include "session/session.h"
#include "source/object_loader.h"

namespace scoria::cache {
namespace {

ObjectChange reuse_group(const std::string& name) {
  model::PodGroup g;
  g.namespace_ = "ns";
  g.name = name;
  g.min_member = 1;
  return ObjectChange::upsert(g);
}

ObjectChange reuse_pod(const std::string& name, const std::string& group) {
  model::Pod p;
  p.namespace_ = "ns";
  p.name = name;
  p.group_name = group;
  p.requests = {{"cpu", 100}};
  p.init_requests = p.requests;
  return ObjectChange::upsert(p);
}

std::vector<std::string> reuse_keys(const cycle::Outcome& out) {
  std::vector<std::string> k;
  for (const auto& st : out.pod_groups) k.push_back(st.key);
  return k;
}

TEST(OutcomeReuse, EntriesNameTheirJobsAsJobsComeAndGo) {
  ClusterCache cache;
  std::vector<ObjectChange> load;
  for (const char* g : {"long-name-a", "long-name-b", "long-name-c", "long-name-d"}) {
    load.push_back(reuse_group(g));
    load.push_back(reuse_pod(std::string(g) + "-0", g));
  }
  cache.replace(std::move(load));
  const config::SchedulerConfig config;
  cycle::Outcome out;
  {
    session::Session ssn(cache.refresh_snapshot(0), config, nullptr);
    ssn.close(out);
  }
  using V = std::vector<std::string>;
  EXPECT_EQ(reuse_keys(out),
            V({"ns/long-name-a", "ns/long-name-b", "ns/long-name-c", "ns/long-name-d"}));

  // a and c go, e comes: b and d move up, e takes a slot freed before it.
  std::vector<ObjectChange> changes = {ObjectChange::remove(Kind::Pod, "ns/long-name-a-0"),
                                       ObjectChange::remove(Kind::PodGroup, "ns/long-name-a"),
                                       ObjectChange::remove(Kind::Pod, "ns/long-name-c-0"),
                                       ObjectChange::remove(Kind::PodGroup, "ns/long-name-c"),
                                       reuse_group("long-name-e"),
                                       reuse_pod("long-name-e-0", "long-name-e")};
  cache.apply_changes(changes);
  {
    session::Session ssn(cache.refresh_snapshot(1), config, nullptr);
    ssn.close(out);
  }
  EXPECT_EQ(reuse_keys(out), V({"ns/long-name-b", "ns/long-name-d", "ns/long-name-e"}));
  const cycle::Snapshot fresh = cache.snapshot();
  ASSERT_EQ(out.pod_groups.size(), fresh.jobs.size());
  for (size_t j = 0; j < fresh.jobs.size(); ++j) {
    EXPECT_EQ(out.pod_groups[j].source, fresh.jobs[j].source);
    EXPECT_EQ(out.pod_groups[j].source_seq, fresh.jobs[j].source_seq);
  }
}

}  // namespace
}  // namespace scoria::cache
