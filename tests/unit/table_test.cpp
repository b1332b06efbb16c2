// Server-side printing for kubectl get: ages as Kubernetes words them, and
// the Table's shape.
#include <gtest/gtest.h>

#include "api/resources.h"
#include "api/table.h"

namespace scoria::api {
namespace {

using Clock = std::chrono::system_clock;

Clock::time_point at(const char* rfc3339) {
  std::tm tm{};
  strptime(rfc3339, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return Clock::from_time_t(timegm(&tm));
}

TEST(Age, AsKubernetesHumanDurationWordsIt) {
  const char* created = "2026-01-01T00:00:00Z";
  EXPECT_EQ(age(created, at("2026-01-01T00:00:45Z")), "45s");
  EXPECT_EQ(age(created, at("2026-01-01T00:01:59Z")), "119s");
  EXPECT_EQ(age(created, at("2026-01-01T00:03:12Z")), "3m12s");
  EXPECT_EQ(age(created, at("2026-01-01T00:05:00Z")), "5m");
  EXPECT_EQ(age(created, at("2026-01-01T02:30:00Z")), "150m");
  EXPECT_EQ(age(created, at("2026-01-01T05:20:00Z")), "5h20m");
  EXPECT_EQ(age(created, at("2026-01-02T10:00:00Z")), "34h");
  EXPECT_EQ(age(created, at("2026-01-04T03:00:00Z")), "3d3h");
  EXPECT_EQ(age(created, at("2026-03-01T00:00:00Z")), "59d");
  EXPECT_EQ(age(created, at("2025-12-31T23:59:59Z")), "0s");
  EXPECT_EQ(age("", at("2026-01-01T00:00:00Z")), "<unknown>");
}

TEST(Table, WantedOnlyWhenTheFirstAcceptedTypeIsOne) {
  EXPECT_TRUE(wants_table("application/json;as=Table;v=v1;g=meta.k8s.io,application/json"));
  EXPECT_FALSE(wants_table("application/json"));
  EXPECT_FALSE(wants_table("application/json, application/json;as=Table;v=v1;g=meta.k8s.io"));
  EXPECT_FALSE(include_object("Everything").has_value());
  EXPECT_EQ(include_object(std::nullopt), IncludeObject::Metadata);
}

TEST(Table, PodRowsCarryThePrinterCellsAndTheMetadata) {
  const nlohmann::json pods = nlohmann::json::array(
      {{{"metadata",
         {{"name", "p"}, {"namespace", "ns"}, {"creationTimestamp", "2026-01-01T00:00:00Z"}}},
        {"spec", {{"nodeName", "n1"}, {"containers", nlohmann::json::array({{{"name", "c"}}})}}},
        {"status",
         {{"phase", "Running"},
          {"containerStatuses",
           nlohmann::json::array({{{"ready", true}, {"restartCount", 2}}})}}}}});
  const auto t = table(*find_kind("Pod"), pods, {{"resourceVersion", "7"}}, IncludeObject::Metadata,
                       at("2026-01-01T00:00:10Z"));
  EXPECT_EQ(t["kind"], "Table");
  EXPECT_EQ(t["metadata"]["resourceVersion"], "7");
  EXPECT_EQ(t["columnDefinitions"][0]["name"], "Name");
  const auto& cells = t["rows"][0]["cells"];
  EXPECT_EQ(cells[0], "p");
  EXPECT_EQ(cells[1], "1/1");
  EXPECT_EQ(cells[2], "Running");
  EXPECT_EQ(cells[3], "2");
  EXPECT_EQ(cells[4], "10s");
  EXPECT_EQ(cells[6], "n1");  // Node, a wide column
  EXPECT_EQ(t["rows"][0]["object"]["kind"], "PartialObjectMetadata");
  EXPECT_EQ(t["rows"][0]["object"]["metadata"]["namespace"], "ns");
}

}  // namespace
}  // namespace scoria::api
