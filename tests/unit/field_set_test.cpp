// The field sets server-side apply keeps in metadata.managedFields: their
// algebra (union, intersection, difference as structured-merge-diff has
// them), the FieldsV1 encoding, and paths printed as conflicts print them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/field_set.h"

namespace scoria::api {
namespace {

using nlohmann::json;

FieldSet set_of(const json& fields_v1) { return FieldSet::from_fields_v1(fields_v1); }

std::vector<std::string> printed(const FieldSet& s) {
  std::vector<std::string> out;
  s.for_each([&](std::span<const PathElement> p) { out.push_back(path_string(p)); });
  return out;
}

TEST(FieldSet, FieldsV1RoundTripsWithDotForMembersWithChildren) {
  const json v1 = R"({"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
      "f:spec": {"f:containers": {"k:{\"name\":\"web\"}": {".": {}, "f:image": {},
                                                           "f:name": {}}}}})"_json;
  const FieldSet s = set_of(v1);
  EXPECT_EQ(s.to_fields_v1(), v1);
  EXPECT_EQ(printed(s),
            (std::vector<std::string>{
                ".metadata.labels", ".metadata.labels.app", ".spec.containers[name=\"web\"]",
                ".spec.containers[name=\"web\"].image", ".spec.containers[name=\"web\"].name"}));
  EXPECT_FALSE(s.has(FieldPath{"f:spec"}));
  EXPECT_TRUE(s.has(FieldPath{"f:spec", "f:containers", R"(k:{"name":"web"})"}));
  EXPECT_THROW(set_of(R"({"x:y": {}})"_json), std::invalid_argument);
  EXPECT_THROW(set_of(R"([])"_json), std::invalid_argument);
}

TEST(FieldSet, PathsPrintAsTheApiServerPrintsThem) {
  const PathElement port = key_element(R"({"protocol": "TCP", "containerPort": 80})"_json);
  EXPECT_EQ(port, R"(k:{"containerPort":80,"protocol":"TCP"})");
  EXPECT_EQ(path_string(FieldPath{"f:spec", "f:containers", key_element({{"name", "x"}}), "f:ports",
                                  port, "f:hostPort"}),
            R"(.spec.containers[name="x"].ports[containerPort=80,protocol="TCP"].hostPort)");
  EXPECT_EQ(path_string(FieldPath{"f:metadata", "f:finalizers", value_element("a/b")}),
            R"(.metadata.finalizers[="a/b"])");
  EXPECT_EQ(path_string(FieldPath{"f:list", index_element(3)}), ".list[3]");
}

TEST(FieldSet, UnionIntersectionDifference) {
  const FieldSet a = set_of(R"({"f:a": {}, "f:b": {"f:c": {}, "f:d": {}}})"_json);
  const FieldSet b = set_of(R"({"f:b": {".": {}, "f:d": {}, "f:e": {}}, "f:f": {}})"_json);
  EXPECT_EQ(a.union_with(b).to_fields_v1(),
            R"({"f:a": {}, "f:b": {".": {}, "f:c": {}, "f:d": {}, "f:e": {}}, "f:f": {}})"_json);
  EXPECT_EQ(a.intersection(b).to_fields_v1(), R"({"f:b": {"f:d": {}}})"_json);
  EXPECT_EQ(a.difference(b).to_fields_v1(), R"({"f:a": {}, "f:b": {"f:c": {}}})"_json);
  // A member of the other set takes only itself, recursively all under it.
  const FieldSet whole_b = set_of(R"({"f:b": {}})"_json);
  EXPECT_EQ(a.difference(whole_b), a);
  EXPECT_EQ(a.recursive_difference(whole_b).to_fields_v1(), R"({"f:a": {}})"_json);
  EXPECT_TRUE(a.difference(a).empty());
  EXPECT_EQ(a.size(), 3u);
}

TEST(FieldSet, InsertAndErase) {
  FieldSet s;
  s.insert(FieldPath{"f:spec", "f:replicas"});
  s.insert(FieldPath{});  // the whole object is never tracked
  EXPECT_EQ(s.size(), 1u);
  s.erase(FieldPath{"f:spec", "f:replicas"});
  EXPECT_TRUE(s.empty());
}

}  // namespace
}  // namespace scoria::api
