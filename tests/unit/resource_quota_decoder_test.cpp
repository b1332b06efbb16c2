// v1 ResourceQuota as the loader reads it: spec.hard and the status the
// quota controller writes, in Scoria's units by resource name, and a limit
// that is not a quantity refused naming the file, document, quota and field.
#include <gtest/gtest.h>

#include <string>

#include "model/error.h"
#include "objects_from_text.h"
#include "source/object_loader.h"

namespace scoria::source {
namespace {

using test_support::amount;
using test_support::kGi;
using test_support::parse;
using test_support::parse_error;

TEST(ResourceQuotaDecoder, ReadsHardAndStatusInScoriaUnits) {
  const auto objects = parse(R"(apiVersion: v1
kind: ResourceQuota
metadata: {namespace: ml, name: compute}
spec:
  hard:
    pods: "10"
    cpu: "4"
    memory: 8Gi
    requests.cpu: 500m
    requests.memory: 1Gi
    limits.memory: 2Gi
    count/pods: "20"
    requests.nvidia.com/gpu: "2"
  scopes: [NotTerminating]
status:
  hard: {pods: "10", cpu: "4"}
  used: {pods: "3", cpu: 1500m}
)");
  ASSERT_EQ(objects.resource_quotas.size(), 1u);
  const model::ResourceQuota& q = objects.resource_quotas[0];
  EXPECT_EQ(q.key(), "ml/compute");
  EXPECT_EQ(amount(q.hard, "pods"), 10);
  EXPECT_EQ(amount(q.hard, "cpu"), 4000);
  EXPECT_EQ(amount(q.hard, "memory"), 8 * kGi);
  // Every other name counts in milli-units, as an extended resource does.
  EXPECT_EQ(amount(q.hard, "requests.cpu"), 500);
  EXPECT_EQ(amount(q.hard, "requests.memory"), 1000 * kGi);
  EXPECT_EQ(amount(q.hard, "limits.memory"), 2000 * kGi);
  EXPECT_EQ(amount(q.hard, "count/pods"), 20000);
  EXPECT_EQ(amount(q.hard, "requests.nvidia.com/gpu"), 2000);
  EXPECT_EQ(amount(q.status_hard, "cpu"), 4000);
  EXPECT_EQ(amount(q.used, "cpu"), 1500);
  EXPECT_EQ(amount(q.used, "pods"), 3);
  EXPECT_NE(q.json.find("\"scopes\""), std::string::npos);
}

TEST(ResourceQuotaDecoder, NoStatusAndNoSpecAreEmpty) {
  const auto objects = parse(
      "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: none}\n---\n"
      "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: spec-only}\n"
      "spec: {hard: {pods: \"1\"}}\n");
  ASSERT_EQ(objects.resource_quotas.size(), 2u);
  EXPECT_EQ(objects.resource_quotas[0].key(), "default/none");
  EXPECT_TRUE(objects.resource_quotas[0].hard.empty());
  EXPECT_EQ(amount(objects.resource_quotas[1].hard, "pods"), 1);
  EXPECT_TRUE(objects.resource_quotas[1].status_hard.empty());
  EXPECT_TRUE(objects.resource_quotas[1].used.empty());
}

TEST(ResourceQuotaDecoderErrors, QuantitiesThatDoNotParse) {
  const std::string at = "cluster.yaml: document 1 (ResourceQuota ml/compute): field ";
  const auto quota = [](std::string_view hard, std::string_view status = "") {
    return "apiVersion: v1\nkind: ResourceQuota\nmetadata: {namespace: ml, name: compute}\n"
           "spec:\n  hard: " +
           std::string(hard) + "\n" + std::string(status);
  };
  EXPECT_EQ(parse_error(quota("{requests.memory: 8 gigs}")),
            at + "spec.hard[requests.memory]: \"8 gigs\" is not a quantity (unknown suffix \" "
                 "gigs\": use n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei or an exponent "
                 "such as e3); write e.g. \"500m\", \"2\", \"1.5Gi\" or \"1e3\"");
  EXPECT_EQ(parse_error(quota("{pods: \"-1\"}")),
            at + "spec.hard.pods: \"-1\" is negative; resource amounts must be 0 or more");
  EXPECT_EQ(parse_error(quota("{cpu: \"\"}")),
            at + "spec.hard.cpu: has no value; write a quantity, e.g. \"500m\" or \"2Gi\"");
  EXPECT_EQ(parse_error(quota("[cpu]")),
            at + "spec.hard: is a list, not a mapping; write it as key: value pairs");
  EXPECT_EQ(parse_error(quota("{cpu: \"1\"}", "status:\n  used: {cpu: lots}\n")),
            at + "status.used.cpu: \"lots\" is not a quantity (it does not start with a number); "
                 "write e.g. \"500m\", \"2\", \"1.5Gi\" or \"1e3\"");
  EXPECT_EQ(
      parse_error("apiVersion: v1\nkind: ResourceQuota\nmetadata: {namespace: ml, name: q}\n"
                  "---\napiVersion: v1\nkind: ResourceQuota\nmetadata: {namespace: ml, name: q}\n"),
      "cluster.yaml: document 2 (ResourceQuota ml/q): field metadata.name: \"q\" is already "
      "used by document 1; give each ResourceQuota in namespace \"ml\" its own name");
}

}  // namespace
}  // namespace scoria::source
