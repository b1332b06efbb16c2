// A strategic merge patch's lists as kube-apiserver merges them: by the
// field's merge key (containers by name, ports by containerPort, ...),
// with the $patch directives delete and replace, other lists replaced.
#include <gtest/gtest.h>

#include <string>

#include "api/patch.h"

namespace scoria::api {
namespace {

using nlohmann::json;

json patched(const json& target, const json& patch) {
  return apply_patch(target, patch, PatchType::StrategicMerge);
}

TEST(StrategicPatch, ListsMergeByTheirKeyInTheirOrder) {
  const json pod = R"({"spec": {"containers": [
      {"name": "a", "image": "a:1"}, {"name": "b", "image": "b:1"}]}})"_json;
  EXPECT_EQ(patched(pod, R"({"spec": {"containers": [
                {"name": "b", "image": "b:2"}, {"name": "c", "image": "c:1"}]}})"_json),
            R"({"spec": {"containers": [{"name": "a", "image": "a:1"},
                {"name": "b", "image": "b:2"}, {"name": "c", "image": "c:1"}]}})"_json);
}

TEST(StrategicPatch, DeleteAndReplaceDirectives) {
  const json pod = R"({"spec": {"containers": [
      {"name": "a", "image": "a:1"}, {"name": "b", "image": "b:1"}]}})"_json;
  EXPECT_EQ(patched(pod, R"({"spec": {"containers": [{"name": "a", "$patch": "delete"}]}})"_json),
            R"({"spec": {"containers": [{"name": "b", "image": "b:1"}]}})"_json);
  EXPECT_EQ(patched(pod, R"({"spec": {"containers": [{"name": "z", "image": "z:1"},
                {"$patch": "replace"}]}})"_json),
            R"({"spec": {"containers": [{"name": "z", "image": "z:1"}]}})"_json);
  // Deleting what is not there changes nothing; a repeated key is met in order.
  EXPECT_EQ(patched(pod, R"({"spec": {"containers": [{"name": "q", "$patch": "delete"}]}})"_json),
            pod);
  const json twice =
      R"({"spec": {"containers": [{"name": "a", "n": 1}, {"name": "a", "n": 2}]}})"_json;
  EXPECT_EQ(patched(twice, R"({"spec": {"containers": [{"name": "a", "$patch": "delete"},
                {"name": "a", "m": 3}]}})"_json),
            R"({"spec": {"containers": [{"name": "a", "n": 2, "m": 3}]}})"_json);
}

TEST(StrategicPatch, ListsWithoutAKeyAreReplaced) {
  const json pod = R"({"spec": {"containers": [{"name": "a", "args": ["x", "y"]}]}})"_json;
  EXPECT_EQ(patched(pod, R"({"spec": {"containers": [{"name": "a", "args": ["z"]}]}})"_json),
            R"({"spec": {"containers": [{"name": "a", "args": ["z"]}]}})"_json);
}

TEST(StrategicPatch, ManyItemsMergeInOnePass) {
  // Once quadratic in the list's length: a list this long stalled the API.
  json target = json::array();
  json patch = json::array();
  for (int i = 0; i < 20000; ++i) {
    target.push_back({{"name", "c" + std::to_string(i)}, {"image", "old"}});
    patch.push_back({{"name", "c" + std::to_string(19999 - i)}, {"image", "new"}});
  }
  const json out =
      patched({{"spec", {{"containers", target}}}}, {{"spec", {{"containers", patch}}}});
  const json& merged = out["spec"]["containers"];
  ASSERT_EQ(merged.size(), 20000u);
  EXPECT_EQ(merged[0], (json{{"name", "c0"}, {"image", "new"}}));
  EXPECT_EQ(merged[19999], (json{{"name", "c19999"}, {"image", "new"}}));
}

}  // namespace
}  // namespace scoria::api
