// volcano_job_share as Volcano's drf exports it: a series for every job of
// a session whose config has drf, none without, and gone with the job.
#include "metrics/job_metrics.h"

#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <chrono>
#include <map>
#include <string>

namespace scoria::metrics {
namespace {

cycle::Outcome::PodGroupStatus group(const std::string& key, double share) {
  cycle::Outcome::PodGroupStatus g;
  g.key = key;
  g.queue = "default";
  g.share = share;
  return g;
}

/// volcano_job_share's series, "job_ns/job_id" to value.
std::map<std::string, double> shares(prometheus::Registry& registry) {
  std::map<std::string, double> out;
  for (const auto& family : registry.Collect()) {
    if (family.name != "volcano_job_share") continue;
    EXPECT_EQ(family.type, prometheus::MetricType::Gauge);
    for (const auto& metric : family.metric) {
      std::map<std::string, std::string> labels;
      for (const auto& l : metric.label) labels[l.name] = l.value;
      out[labels["job_ns"] + "/" + labels["job_id"]] = metric.gauge.value;
    }
  }
  return out;
}

TEST(JobMetrics, JobShareFollowsEachSessionAndGoesWithTheJob) {
  prometheus::Registry registry;
  JobMetrics metrics(registry);
  const auto now = std::chrono::system_clock::now();
  cycle::Outcome out;

  // Without drf in the config the session writes no share: no series.
  out.pod_groups = {group("ns/a", -1), group("ns/b", -1)};
  metrics.observe(out, now);
  EXPECT_TRUE(shares(registry).empty());

  // With drf, every job has one, a running job and one holding nothing alike.
  out.pod_groups = {group("ns/a", 0.5), group("ns/b", 0)};
  metrics.observe(out, now);
  EXPECT_EQ(shares(registry), (std::map<std::string, double>{{"ns/a", 0.5}, {"ns/b", 0}}));

  // The next session's value replaces it; a job gone takes its series along.
  out.pod_groups = {group("ns/a", 0.25)};
  metrics.observe(out, now);
  EXPECT_EQ(shares(registry), (std::map<std::string, double>{{"ns/a", 0.25}}));

  // drf taken out of the config (a reload): the series goes.
  out.pod_groups = {group("ns/a", -1)};
  metrics.observe(out, now);
  EXPECT_TRUE(shares(registry).empty());
}

}  // namespace
}  // namespace scoria::metrics
