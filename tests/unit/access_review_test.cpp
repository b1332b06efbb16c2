// kubectl auth can-i: access reviews answered from serve's one rule (reads
// open, writes with the token), and the discovery kubectl reads around
// them: the review's group, and pods/eviction as policy/v1's so that drain
// evicts.
#include <gtest/gtest.h>

#include <string>

#include "api/access_review.h"
#include "api/discovery.h"
#include "api/status.h"

namespace scoria::api {
namespace {

using nlohmann::json;

json review(std::string_view attributes) {
  return json::parse(std::string(R"({"apiVersion":"authorization.k8s.io/v1","spec":)") +
                     std::string(attributes) + "}");
}

std::string answer(std::string_view attributes, bool may_write) {
  const json status = review_access(review(attributes), may_write)["status"];
  return status["allowed"].get<bool>() ? "yes" : "no - " + status.value("reason", "");
}

TEST(AccessReview, ReadsAreOpenAndWritesNeedTheToken) {
  const std::string create = R"({"resourceAttributes":{"verb":"create","resource":"pods"}})";
  EXPECT_EQ(answer(create, true), "yes");
  EXPECT_EQ(answer(create, false),
            "no - writes need the bearer token of scoria serve (Authorization: Bearer TOKEN)");
  EXPECT_EQ(answer(R"({"resourceAttributes":{"verb":"list","resource":"pods"}})", false), "yes");
  EXPECT_EQ(answer(R"({"resourceAttributes":{"verb":"get","group":"scheduling.volcano.sh",
                       "resource":"queues"}})",
                   false),
            "yes");
  EXPECT_EQ(answer(R"({"resourceAttributes":{"verb":"create","resource":"pods",
                       "subresource":"eviction"}})",
                   true),
            "yes");
  EXPECT_EQ(answer(R"({"resourceAttributes":{"verb":"*","resource":"*"}})", true), "yes");
  EXPECT_EQ(answer(R"({"resourceAttributes":{"verb":"get","resource":"*"}})", false), "yes");
  EXPECT_EQ(answer(R"({"nonResourceAttributes":{"verb":"get","path":"/healthz"}})", false), "yes");
  const json done = review_access(review(create), true);
  EXPECT_EQ(done["kind"], "SelfSubjectAccessReview");
  EXPECT_EQ(done["spec"]["resourceAttributes"]["verb"], "create");
}

TEST(AccessReview, WhatServeDoesNotServeIsNoWithTheReason) {
  EXPECT_EQ(answer(R"({"resourceAttributes":{"verb":"create","group":"apps",
                       "resource":"deployments"}})",
                   true),
            "no - this server does not serve deployments.apps");
  EXPECT_EQ(answer(R"({"resourceAttributes":{"verb":"escalate","resource":"pods"}})", true),
            "no - this server does not serve the verb \"escalate\" on pods");
  EXPECT_EQ(answer(R"({"resourceAttributes":{"verb":"get","resource":"pods",
                       "subresource":"log"}})",
                   true),
            "no - this server does not serve pods/log");
  EXPECT_EQ(answer(R"({"resourceAttributes":{"verb":"delete","resource":"pods",
                       "subresource":"status"}})",
                   true),
            "no - this server does not serve the verb \"delete\" on pods/status");
  EXPECT_EQ(answer(R"({"nonResourceAttributes":{"verb":"get","path":"/logs"}})", true),
            "no - this server does not serve the path /logs");
  try {
    (void)review_access(review("{}"), true);
    ADD_FAILURE() << "a review of nothing was answered";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), 422u);
  }
}

TEST(Discovery, EvictionIsPolicysAndReviewsAreListed) {
  const json core = *discovery_document("/api/v1");
  bool found = false;
  for (const json& r : core["resources"])
    if (r["name"] == "pods/eviction") {
      found = true;
      EXPECT_EQ(r.value("group", ""), "policy");
      EXPECT_EQ(r.value("version", ""), "v1");
      EXPECT_EQ(r["kind"], "Eviction");
    }
  EXPECT_TRUE(found);
  const json groups = *discovery_document("/apis");
  EXPECT_NE(groups.dump().find("\"authorization.k8s.io/v1\""), std::string::npos);
  const json reviews = *discovery_document("/apis/authorization.k8s.io/v1");
  EXPECT_EQ(reviews["resources"][0]["name"], "selfsubjectaccessreviews");
  EXPECT_EQ(reviews["resources"][0]["verbs"], json({"create"}));
}

}  // namespace
}  // namespace scoria::api
