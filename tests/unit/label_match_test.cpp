// One answer for a label requirement, the host's and the plugins'
// (scoria/label_match.hpp, model/label_selector.h), as Kubernetes'
// labels.Requirement.Matches gives it.
#include <scoria/label_match.hpp>

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "model/label_selector.h"

namespace scoria::model {
namespace {

TEST(LabelMatch, IntegersReadAsGoParseIntReadsThem) {
  EXPECT_EQ(label_integer("42"), 42);
  EXPECT_EQ(label_integer("+42"), 42);
  EXPECT_EQ(label_integer("-42"), -42);
  EXPECT_EQ(label_integer("-9223372036854775808"), INT64_MIN);
  EXPECT_EQ(label_integer("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(label_integer("9223372036854775808"), std::nullopt);
  for (const char* bad : {"", "+", "-", "1.0", " 1", "1 ", "0x10", "1e3"})
    EXPECT_EQ(label_integer(bad), std::nullopt) << bad;
}

SelectorRequirement requirement(SelectorOp op, std::vector<std::string> values) {
  return {"rank", op, std::move(values), false};
}

TEST(LabelMatch, TheHostDecidesEachOperatorAsKubernetes) {
  const std::map<std::string, std::string> ranked = {{"rank", "7"}};
  const std::map<std::string, std::string> none;
  EXPECT_TRUE(meets(requirement(SelectorOp::In, {"3", "7"}), ranked));
  EXPECT_FALSE(meets(requirement(SelectorOp::In, {"3", "7"}), none));
  EXPECT_FALSE(meets(requirement(SelectorOp::NotIn, {"7"}), ranked));
  EXPECT_TRUE(meets(requirement(SelectorOp::NotIn, {"7"}), none));
  EXPECT_TRUE(meets(requirement(SelectorOp::Exists, {}), ranked));
  EXPECT_TRUE(meets(requirement(SelectorOp::DoesNotExist, {}), none));
  EXPECT_TRUE(meets(requirement(SelectorOp::Gt, {"5"}), ranked));
  EXPECT_FALSE(meets(requirement(SelectorOp::Lt, {"5"}), ranked));
  EXPECT_FALSE(meets(requirement(SelectorOp::Gt, {"5"}), none));
  // Two values, or one that is no integer: never.
  EXPECT_FALSE(meets(requirement(SelectorOp::Gt, {"5", "6"}), ranked));
  EXPECT_FALSE(meets(requirement(SelectorOp::Gt, {"five"}), ranked));
  // A sign is part of an integer (strconv.ParseInt), on either side.
  EXPECT_TRUE(meets(requirement(SelectorOp::Gt, {"+5"}), ranked));
  EXPECT_TRUE(meets(requirement(SelectorOp::Lt, {"9"}), {{"rank", "+8"}}));
  // A field requirement is never met by labels.
  SelectorRequirement field = requirement(SelectorOp::In, {"7"});
  field.is_field = true;
  EXPECT_FALSE(meets(field, ranked));
}

}  // namespace
}  // namespace scoria::model
