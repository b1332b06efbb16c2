// The strict-JSON fast path must read every text it accepts exactly as the
// YAML reader does, and give way to it on everything else, so that a
// refusal keeps the YAML reader's wording. A leading "---" line sends a
// text down the YAML path, which is how the two are compared here.
#include "input/json_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "input/documents.h"
#include "model/error.h"

namespace scoria::input {
namespace {

using nlohmann::json;

json through_yaml(const std::string& text) {
  const std::vector<Document> docs = read_documents("---\n" + text, "body", kRequestLimits);
  EXPECT_EQ(docs.size(), 1u) << text;
  return docs.empty() ? json() : docs[0].value;
}

std::string refusal(const std::string& text) {
  try {
    read_documents(text, "body", kRequestLimits);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(JsonReader, ReadsWhatTheYamlReaderReadsValueForValueAndTypeForType) {
  const std::vector<std::string> texts = {
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p-0","namespace":"default",)"
      R"("labels":{"app":"x"},"annotations":{"scheduling.k8s.io/group-name":"pg"}},)"
      R"("spec":{"containers":[{"name":"c","image":"busybox","resources":{"requests":)"
      R"({"cpu":"500m","memory":"1Gi"}}}],"priority":100}})",
      R"({"ints":[0,-0,1,-1,9223372036854775807,-9223372036854775808,9223372036854775808,)"
      R"(18446744073709551615,18446744073709551616]})",
      R"({"floats":[1.5,-2.25,1e3,1E-3,0.0,-0.0,123456789.123456789]})",
      R"({"s":["","a\"b","tab\there","new\nline","\u00e9t\u00e9","\ud83d\ude00","\/x",)"
      R"("caf\u00e9"],"k\u00e9y":"v"})",
      R"({"a":null,"b":true,"c":false,"d":{},"e":[],"f":[[],[{}]]})",
      "  \n\t{ \"spaced\" : [ 1 , 2 ] }\n\n",
      R"([{"a":1},{"b":[2,3]}])",
  };
  for (const std::string& text : texts) {
    const std::optional<json> fast = read_strict_json(text, kRequestLimits);
    ASSERT_TRUE(fast.has_value()) << text;
    const json slow = through_yaml(text);
    EXPECT_EQ(fast->dump(), slow.dump()) << text;
    // Types too: the YAML reader's integers are signed, its big ones doubles.
    const std::vector<Document> docs = read_documents(text, "body", kRequestLimits);
    ASSERT_EQ(docs.size(), 1u);
    EXPECT_EQ(docs[0].number, 1);
    EXPECT_EQ(docs[0].value.dump(), slow.dump()) << text;
  }
  const json ints = *read_strict_json(texts[1], kRequestLimits);
  EXPECT_EQ(ints["ints"][2].type(), json::value_t::number_integer);
  EXPECT_EQ(ints["ints"][6].type(), json::value_t::number_float);
  EXPECT_EQ(through_yaml(texts[1])["ints"][6].type(), json::value_t::number_float);
}

TEST(JsonReader, GivesWayOnWhatItIsNotSureOfAndTheYamlReaderDecides) {
  const Limits& limits = kRequestLimits;
  // A key twice: refused, in the YAML reader's words.
  EXPECT_FALSE(read_strict_json(R"({"spec":{"a":1,"a":2}})", limits));
  EXPECT_NE(refusal(R"({"spec":{"a":1,"a":2}})").find("field spec.a: appears twice; keep one"),
            std::string::npos);
  // Too deep: refused with the depth named.
  const std::string deep = std::string(100, '[') + std::string(100, ']');
  EXPECT_FALSE(read_strict_json(deep, limits));
  EXPECT_NE(refusal(deep).find("nested deeper than 64 levels"), std::string::npos);
  // A scalar past the limit.
  Limits small = limits;
  small.max_scalar_bytes = 4;
  EXPECT_FALSE(read_strict_json(R"({"a":"12345"})", small));
  EXPECT_FALSE(read_strict_json(R"({"12345":1})", small));
  EXPECT_TRUE(read_strict_json(R"({"a":"1234"})", small));
  // Not JSON, but YAML: read as YAML.
  EXPECT_FALSE(read_strict_json("{a: 1}", limits));
  EXPECT_EQ(read_documents("{a: 1}", "body", limits)[0].value, json({{"a", 1}}));
  EXPECT_FALSE(read_strict_json("{\"a\": 1} # note", limits));
  EXPECT_EQ(read_documents("{\"a\": 1} # note", "body", limits)[0].value, json({{"a", 1}}));
  // Two documents.
  EXPECT_FALSE(read_strict_json("{\"a\":1}\n---\n{\"b\":2}", limits));
  EXPECT_EQ(read_documents("{\"a\":1}\n---\n{\"b\":2}", "body", limits).size(), 2u);
  // A number no double holds, and a NUL from an escape.
  EXPECT_FALSE(read_strict_json(R"({"a":1e-400})", limits));
  EXPECT_EQ(read_documents(R"({"a":1e-400})", "body", limits)[0].value["a"], "1e-400");
  EXPECT_FALSE(read_strict_json(R"({"a":1e400})", limits));
  EXPECT_EQ(read_documents(R"({"a":1e400})", "body", limits)[0].value["a"], "1e400");
  EXPECT_FALSE(read_strict_json(R"({"a":"x\u0000y"})", limits));
  // Broken JSON: the YAML reader's message, with the line and column.
  EXPECT_FALSE(read_strict_json("{\"a\": [1, 2}", limits));
  EXPECT_NE(refusal("{\"a\": [1, 2}").find("body: document 1: line 1"), std::string::npos);
}

TEST(JsonNesting, CountsBracketsOutsideStrings) {
  EXPECT_EQ(json_nesting(""), 0u);
  EXPECT_EQ(json_nesting("1"), 0u);
  EXPECT_EQ(json_nesting(R"({"a":[1,{"b":[]}],"c":{}})"), 4u);
  // Brackets in strings, escaped quotes included, do not count.
  EXPECT_EQ(json_nesting(R"({"a":"[[[{{\"[["})"), 1u);
  EXPECT_EQ(json_nesting(std::string(60000, '[') + std::string(60000, ']')), 60000u);
}

}  // namespace
}  // namespace scoria::input
