// policy/v1 PodDisruptionBudget as the loader reads it: every field the pdb
// plugin weighs, and each malformed one refused as the API server refuses
// it, naming the file, the document, the budget and the field.
#include <gtest/gtest.h>

#include <string>

#include "model/error.h"
#include "objects_from_text.h"
#include "source/object_loader.h"

namespace scoria::source {
namespace {

using test_support::parse;
using test_support::parse_error;

/// A budget in namespace shop named web with `spec` (and `rest` after it).
std::string budget(std::string_view spec, std::string_view rest = "") {
  return "apiVersion: policy/v1\nkind: PodDisruptionBudget\n"
         "metadata: {namespace: shop, name: web}\nspec:\n" +
         std::string(spec) + std::string(rest);
}

TEST(DisruptionBudgetDecoder, ReadsSelectorBudgetAndStatus) {
  const auto objects = parse(budget(R"(  minAvailable: 2
  selector:
    matchLabels: {app: web}
    matchExpressions:
    - {key: tier, operator: NotIn, values: [batch, test]}
    - {key: canary, operator: DoesNotExist}
status:
  disruptionsAllowed: 1
  currentHealthy: 3
  desiredHealthy: 2
  expectedPods: 3
  disruptedPods: {web-0: "2026-01-01T00:00:10Z"}
)"));
  ASSERT_EQ(objects.disruption_budgets.size(), 1u);
  const model::PodDisruptionBudget& b = objects.disruption_budgets[0];
  EXPECT_EQ(b.key(), "shop/web");
  ASSERT_TRUE(b.selector.has_value());
  EXPECT_EQ(b.selector->match_labels.at("app"), "web");
  ASSERT_EQ(b.selector->match_expressions.size(), 2u);
  EXPECT_EQ(b.selector->match_expressions[0].key, "tier");
  EXPECT_EQ(b.selector->match_expressions[0].op, model::SelectorOp::NotIn);
  EXPECT_EQ(b.selector->match_expressions[0].values, (std::vector<std::string>{"batch", "test"}));
  EXPECT_EQ(b.selector->match_expressions[1].op, model::SelectorOp::DoesNotExist);
  ASSERT_TRUE(b.min_available.has_value());
  EXPECT_EQ(b.min_available->value, 2);
  EXPECT_FALSE(b.min_available->percent);
  EXPECT_FALSE(b.max_unavailable.has_value());
  EXPECT_TRUE(b.has_status);
  EXPECT_EQ(b.disruptions_allowed, 1);
  EXPECT_EQ(b.current_healthy, 3);
  EXPECT_EQ(b.desired_healthy, 2);
  EXPECT_EQ(b.expected_pods, 3);
  EXPECT_EQ(b.disrupted_pods.at("web-0"), 1767225610000);
  // Plugins get the object whole.
  EXPECT_NE(b.json.find("\"disruptedPods\""), std::string::npos);
}

TEST(DisruptionBudgetDecoder, PercentagesAndNoStatus) {
  const auto objects =
      parse(budget("  maxUnavailable: \"25%\"\n  selector: {matchLabels: {app: web}}\n"));
  const model::PodDisruptionBudget& b = objects.disruption_budgets.at(0);
  ASSERT_TRUE(b.max_unavailable.has_value());
  EXPECT_EQ(b.max_unavailable->value, 25);
  EXPECT_TRUE(b.max_unavailable->percent);
  EXPECT_FALSE(b.has_status);  // no disruption controller wrote one
  EXPECT_EQ(
      parse(budget("  minAvailable: \"100%\"\n")).disruption_budgets.at(0).min_available->value,
      100);
  EXPECT_EQ(parse(budget("  minAvailable: \"0%\"\n")).disruption_budgets.at(0).min_available->value,
            0);
}

TEST(DisruptionBudgetDecoder, NilAndEmptySelectorsAreKeptApart) {
  EXPECT_FALSE(parse(budget("  minAvailable: 1\n")).disruption_budgets.at(0).selector);
  const auto empty = parse(budget("  minAvailable: 1\n  selector: {}\n"));
  ASSERT_TRUE(empty.disruption_budgets.at(0).selector.has_value());
  EXPECT_TRUE(empty.disruption_budgets.at(0).selector->empty());
}

TEST(DisruptionBudgetDecoder, SameNameInTwoNamespacesButNotTwiceInOne) {
  const std::string other =
      "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\n"
      "metadata: {namespace: lab, name: web}\nspec: {minAvailable: 1}\n";
  EXPECT_EQ(parse(budget("  minAvailable: 1\n") + other).disruption_budgets.size(), 2u);
  EXPECT_EQ(
      parse_error(budget("  minAvailable: 1\n") + "---\n" + budget("  minAvailable: 2\n")),
      "cluster.yaml: document 2 (PodDisruptionBudget shop/web): field metadata.name: \"web\" is "
      "already used by document 1; give each PodDisruptionBudget in namespace \"shop\" its "
      "own name");
}

TEST(DisruptionBudgetDecoderErrors, SelectorsAsTheApiServerValidatesThem) {
  const std::string at = "cluster.yaml: document 1 (PodDisruptionBudget shop/web): field ";
  EXPECT_EQ(parse_error(budget("  selector:\n    matchExpressions:\n"
                               "    - {key: app, operator: Equals, values: [web]}\n")),
            at + "spec.selector.matchExpressions[0].operator: \"Equals\" is not an operator; a "
                 "label selector takes In, NotIn, Exists or DoesNotExist");
  EXPECT_EQ(parse_error(budget("  selector:\n    matchExpressions:\n    - {key: app}\n")),
            at + "spec.selector.matchExpressions[0].operator: is missing; a label selector takes "
                 "In, NotIn, Exists or DoesNotExist");
  EXPECT_EQ(parse_error(budget("  selector:\n    matchExpressions:\n"
                               "    - {key: app, operator: In, values: []}\n")),
            at + "spec.selector.matchExpressions[0].values: is empty; In needs at least one value");
  EXPECT_EQ(parse_error(budget("  selector:\n    matchExpressions:\n"
                               "    - {key: app, operator: Exists, values: [web]}\n")),
            at + "spec.selector.matchExpressions[0].values: must be empty with Exists; remove "
                 "the values");
  EXPECT_EQ(parse_error(budget("  selector:\n    matchExpressions:\n    - {operator: Exists}\n")),
            at + "spec.selector.matchExpressions[0].key: is missing; name the label to match");
  EXPECT_EQ(parse_error(budget("  selector:\n    matchLabels: [app]\n")),
            at + "spec.selector.matchLabels: is a list, not a mapping; write it as key: value "
                 "pairs");
  EXPECT_EQ(parse_error(budget("  selector: app=web\n")),
            at + "spec.selector: is \"app=web\", not a mapping; write it as key: value pairs");
}

TEST(DisruptionBudgetDecoderErrors, BudgetsAsTheApiServerValidatesThem) {
  const std::string at = "cluster.yaml: document 1 (PodDisruptionBudget shop/web): field ";
  const std::string forms = "write a number of pods (2) or a percentage of them (\"50%\")";
  EXPECT_EQ(parse_error(budget("  minAvailable: \"fifty%\"\n")),
            at + "spec.minAvailable: \"fifty%\" is not a percentage; " + forms);
  EXPECT_EQ(parse_error(budget("  minAvailable: \"2\"\n")),
            at + "spec.minAvailable: \"2\" is not a percentage; " + forms);
  EXPECT_EQ(parse_error(budget("  maxUnavailable: \"-5%\"\n")),
            at + "spec.maxUnavailable: \"-5%\" is not a percentage; " + forms);
  EXPECT_EQ(parse_error(budget("  maxUnavailable: \"150%\"\n")),
            at + "spec.maxUnavailable: \"150%\" is more than 100%; write a percentage from \"0%\" "
                 "to \"100%\"");
  EXPECT_EQ(parse_error(budget("  maxUnavailable: \"99999999999%\"\n")),
            at + "spec.maxUnavailable: \"99999999999%\" is more than 100%; write a percentage "
                 "from \"0%\" to \"100%\"");
  EXPECT_EQ(parse_error(budget("  minAvailable: -1\n")),
            at + "spec.minAvailable: -1 is negative; " + forms);
  EXPECT_EQ(parse_error(budget("  minAvailable: 1.5\n")),
            at + "spec.minAvailable: 1.5 is not a whole number; " + forms);
  EXPECT_EQ(parse_error(budget("  minAvailable: [1]\n")),
            at + "spec.minAvailable: is a list, not a number or a percentage; " + forms);
  EXPECT_EQ(parse_error(budget("  minAvailable: 1\n  maxUnavailable: 1\n")),
            at + "spec.maxUnavailable: cannot be set with minAvailable; give one of minAvailable "
                 "and maxUnavailable");
  EXPECT_EQ(parse_error(budget("  minAvailable: 1\n", "status: {disruptionsAllowed: -1}\n")),
            at + "status.disruptionsAllowed: -1 is negative; write 0 or more");
  EXPECT_EQ(
      parse_error(budget("  minAvailable: 1\n", "status:\n  disruptedPods: {web-0: yesterday}\n")),
      at + "status.disruptedPods.web-0: \"yesterday\" is not an RFC 3339 time; write e.g. "
           "\"2024-05-01T12:00:00Z\"");
}

}  // namespace
}  // namespace scoria::source
