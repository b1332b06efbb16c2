// volcano_queue_real_capacity_* as Volcano's capacity exports it: what the
// session's plugin reported, the last value kept through a session that
// reported none, and gone with the queue; no limit as +Inf, which a scrape
// reads (Volcano's math.MaxFloat64 in 16 digits would not be a double).
#include "metrics/queue_metrics.h"

#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace scoria::metrics {
namespace {

const std::vector<std::string> kQueueDims = {"cpu", "memory", "pods", "nvidia.com/gpu"};

cycle::Outcome::QueueStatus real_queue(const std::string& name, std::vector<double> real) {
  cycle::Outcome::QueueStatus q;
  q.name = name;
  q.capability.assign(kQueueDims.size(), std::numeric_limits<double>::infinity());
  q.real_capability = std::move(real);
  return q;
}

/// The real capacity series, "family{queue[,resource]}" to value.
std::map<std::string, double> real_capacity(prometheus::Registry& registry) {
  std::map<std::string, double> out;
  for (const auto& family : registry.Collect()) {
    if (family.name.rfind("volcano_queue_real_capacity_", 0) != 0) continue;
    EXPECT_EQ(family.type, prometheus::MetricType::Gauge);
    for (const auto& metric : family.metric) {
      std::map<std::string, std::string> labels;
      for (const auto& l : metric.label) labels[l.name] = l.value;
      std::string key = family.name.substr(28) + "{" + labels["queue_name"];
      if (labels.count("resource") != 0) key += "," + labels["resource"];
      out[key + "}"] = metric.gauge.value;
    }
  }
  return out;
}

TEST(QueueMetrics, RealCapacityAsThePluginReportedIt) {
  prometheus::Registry registry;
  QueueMetrics metrics(registry);
  constexpr double kNoLimit = std::numeric_limits<double>::infinity();
  cycle::Outcome out;
  out.queues = {real_queue("root", {kNoLimit, kNoLimit, kNoLimit, kNoLimit}),
                real_queue("a", {2000, 1024, 110, 1000})};
  metrics.observe(out, kQueueDims);
  // The pod count is left out.
  EXPECT_EQ(real_capacity(registry),
            (std::map<std::string, double>{{"milli_cpu{root}", kNoLimit},
                                           {"memory_bytes{root}", kNoLimit},
                                           {"scalar_resources{root,nvidia.com/gpu}", kNoLimit},
                                           {"milli_cpu{a}", 2000},
                                           {"memory_bytes{a}", 1024},
                                           {"scalar_resources{a,nvidia.com/gpu}", 1000}}));

  // A session that reported nothing (capacity refused its hierarchy) keeps
  // the values shown; one that reports again replaces them.
  out.queues = {real_queue("root", {}), real_queue("a", {3000, 1024, 110, 0})};
  metrics.observe(out, kQueueDims);
  const auto now = real_capacity(registry);
  EXPECT_EQ(now.at("milli_cpu{root}"), kNoLimit);
  EXPECT_EQ(now.at("milli_cpu{a}"), 3000);
  // An extended resource once shown reads 0 when it goes.
  EXPECT_EQ(now.at("scalar_resources{a,nvidia.com/gpu}"), 0);

  // A queue gone takes its series along.
  out.queues = {real_queue("a", {3000, 1024, 110, 0})};
  metrics.observe(out, kQueueDims);
  for (const auto& [series, value] : real_capacity(registry))
    EXPECT_EQ(series.find("root"), std::string::npos) << series;
}

}  // namespace
}  // namespace scoria::metrics
