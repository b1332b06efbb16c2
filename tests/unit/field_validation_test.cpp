// The API server's field validation as clients see it: the fieldValidation
// parameter, the Warning headers and the Status errors, word for word.
#include "api/field_validation.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace scoria::api {
namespace {

using nlohmann::json;
using schema::FieldValidation;

json typo_pod() {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", "web-0"}}},
          {"spec", {{"containers", {{{"name", "web"}, {"resouces", json::object()}}}}}}};
}

TEST(FieldValidation, TheParameterElseTheServersDefault) {
  EXPECT_EQ(requested_validation("", FieldValidation::kWarn, "CreateOptions"),
            FieldValidation::kWarn);
  EXPECT_EQ(requested_validation("fieldManager=kubectl", FieldValidation::kStrict, "CreateOptions"),
            FieldValidation::kStrict);
  EXPECT_EQ(requested_validation("fieldManager=kubectl&fieldValidation=Ignore",
                                 FieldValidation::kStrict, "CreateOptions"),
            FieldValidation::kIgnore);
  EXPECT_EQ(requested_validation("fieldValidation=Strict", FieldValidation::kWarn, "PatchOptions"),
            FieldValidation::kStrict);
  EXPECT_EQ(requested_validation("fieldValidation=", FieldValidation::kWarn, "PatchOptions"),
            FieldValidation::kWarn);
}

TEST(FieldValidation, AnotherValueIsRefusedAsTheApiServerRefusesIt) {
  try {
    requested_validation("fieldValidation=strict", FieldValidation::kWarn, "UpdateOptions");
    FAIL() << "no error";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), 422u);
    const json s = e.status();
    EXPECT_EQ(s["reason"], "Invalid");
    EXPECT_EQ(s["message"],
              "UpdateOptions.meta.k8s.io \"\" is invalid: fieldValidation: Unsupported value: "
              "\"strict\": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\"");
    EXPECT_EQ(s["details"]["group"], "meta.k8s.io");
    EXPECT_EQ(s["details"]["kind"], "UpdateOptions");
    EXPECT_EQ(s["details"]["causes"][0]["field"], "fieldValidation");
    EXPECT_EQ(s["details"]["causes"][0]["reason"], "FieldValueNotSupported");
  }
}

TEST(FieldValidation, StrictRefusesABodyAndChangesNothing) {
  FieldValidator v("fieldValidation=Strict", FieldValidation::kWarn, "CreateOptions");
  json pod = typo_pod();
  pod["spec"]["nodeNmae"] = "n";
  const json before = pod;
  try {
    v.check_body(*find_kind("Pod"), pod);
    FAIL() << "no error";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), 400u);
    EXPECT_EQ(e.reason(), "BadRequest");
    EXPECT_STREQ(e.what(),
                 "Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown "
                 "field \"spec.containers[0].resouces\", unknown field \"spec.nodeNmae\"");
  }
  EXPECT_EQ(pod, before);
  EXPECT_TRUE(v.warnings().empty());
}

TEST(FieldValidation, ACustomResourceIsNamedByItsVersion) {
  const json group = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                      {"kind", "PodGroup"},
                      {"metadata", {{"name", "g"}}},
                      {"spec", {{"minMembr", 2}}}};
  EXPECT_STREQ(undecodable_body(*find_kind("PodGroup"), schema::find_unknown_fields(group)).what(),
               "PodGroup in version \"v1beta1\" cannot be handled as a PodGroup: strict decoding "
               "error: unknown field \"spec.minMembr\"");
}

TEST(FieldValidation, WarnRemovesAndWarnsIgnoreRemovesSilently) {
  FieldValidator warn("", FieldValidation::kWarn, "CreateOptions");
  json pod = typo_pod();
  warn.check_body(*find_kind("Pod"), pod);
  EXPECT_FALSE(pod["spec"]["containers"][0].contains("resouces"));
  EXPECT_EQ(warn.warnings(), std::vector<std::string>{
                                 "299 - \"unknown field \\\"spec.containers[0].resouces\\\"\""});

  FieldValidator ignore("fieldValidation=Ignore", FieldValidation::kStrict, "CreateOptions");
  pod = typo_pod();
  ignore.check_body(*find_kind("Pod"), pod);
  EXPECT_FALSE(pod["spec"]["containers"][0].contains("resouces"));
  EXPECT_TRUE(ignore.warnings().empty());
}

TEST(FieldValidation, AStrictPatchShowsThePatchAsTheApiServerDoes) {
  FieldValidator v("fieldValidation=Strict", FieldValidation::kWarn, "PatchOptions");
  const json patch = {{"spec", {{"containers", {{{"name", "web"}, {"resouces", {{"x", 1}}}}}}}}};
  json patched = typo_pod();
  try {
    v.check_patched(*find_kind("Pod"), patched, patch, PatchType::StrategicMerge);
    FAIL() << "no error";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), 422u);
    const json s = e.status();
    // kubectl prints: The request is invalid: patch: Invalid value: ...
    const std::string cause =
        "Invalid value: \"map[spec:map[containers:[map[name:web resouces:map[x:1]]]]]\": strict "
        "decoding error: unknown field \"spec.containers[0].resouces\"";
    EXPECT_EQ(s["message"], " \"\" is invalid: patch: " + cause);
    EXPECT_EQ(
        s["details"],
        (json{{"causes",
               {{{"reason", "FieldValueInvalid"}, {"message", cause}, {"field", "patch"}}}}}));
  }
  // A merge patch shows the patched object.
  try {
    v.check_patched(*find_kind("Pod"), patched, patch, PatchType::Merge);
    FAIL() << "no error";
  } catch (const ApiError& e) {
    EXPECT_NE(std::string(e.what()).find(go_quote(typo_pod().dump())), std::string::npos)
        << e.what();
  }
}

TEST(FieldValidation, GoValuesAsFmtPrintsThem) {
  EXPECT_EQ(go_value_text(json::parse(R"({"b":[1,"x",true,null],"a":{"d":-2,"c":""}})")),
            "map[a:map[c: d:-2] b:[1 x true <nil>]]");
  EXPECT_EQ(go_value_text(json(0.5)), "0.5");
  EXPECT_EQ(go_value_text(json(1.0)), "1");
  EXPECT_EQ(go_value_text(json(123456.0)), "123456");
  EXPECT_EQ(go_value_text(json(1000000.0)), "1e+06");
  EXPECT_EQ(go_value_text(json(1.5e-5)), "1.5e-05");
  EXPECT_EQ(go_value_text(json(0.0001)), "0.0001");
  EXPECT_EQ(go_value_text(json::object()), "map[]");
  EXPECT_EQ(go_value_text(json::array()), "[]");
}

TEST(FieldValidation, QuotedAsGoQuotes) {
  EXPECT_EQ(go_quote("spec.x"), "\"spec.x\"");
  EXPECT_EQ(go_quote("a\"b\\c\nd\te\x01"), "\"a\\\"b\\\\c\\nd\\te\\x01\"");
  EXPECT_EQ(go_quote("zone/é"), "\"zone/é\"");
}

TEST(FieldValidation, WarningHeadersEscapeQuotesAndBackslashes) {
  EXPECT_EQ(warning_header("unknown field \"a\\b\""), "299 - \"unknown field \\\"a\\\\b\\\"\"");
}

}  // namespace
}  // namespace scoria::api
