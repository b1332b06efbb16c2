// Server-side apply over the field schema, as kube-apiserver's field
// manager answers: the fields an applied configuration owns (lists of type
// map by their keys, sets by value, atomic lists whole), merges, pruning of
// what an applier stops applying, conflicts worded as the API server words
// them, force, and the Update operations that record their managers too.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/managed_fields.h"
#include "api/server_side_apply.h"
#include "api/structured_merge.h"
#include "schema/field_schema.h"

namespace scoria::api {
namespace {

using nlohmann::json;

const schema::Type* pod_type() { return schema::find_kind("v1", "Pod"); }

json pod(const std::string& image) {
  return json{{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "p"}, {"namespace", "default"}, {"labels", {{"app", "x"}}}}},
              {"spec", {{"containers", json::array({{{"name", "web"}, {"image", image}}})}}}};
}

ApplyRequest by(const std::string& manager, bool force = false) {
  ApplyRequest r;
  r.writer = {manager, "v1", "", "2024-01-02T03:04:05Z", true};
  r.force = force;
  return r;
}

json fields_v1_of(const json& object, const std::string& manager, const std::string& operation) {
  for (const json& e : object["metadata"]["managedFields"])
    if (e["manager"] == manager && e["operation"] == operation) return e["fieldsV1"];
  return nullptr;
}

std::string conflict_message(const json& live, const json& config, const ApplyRequest& how) {
  try {
    server_side_apply(&live, config, pod_type(), how);
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), 409u);
    EXPECT_EQ(e.reason(), "Conflict");
    EXPECT_EQ(e.status()["details"]["causes"][0]["type"], "FieldManagerConflict");
    return e.what();
  }
  ADD_FAILURE() << "no conflict";
  return "";
}

TEST(StructuredMerge, FieldsOfAPodByItsListTypes) {
  const json p = R"({"metadata": {"labels": {"a": "1"}, "finalizers": ["x/y"]},
      "spec": {"containers": [{"name": "web", "args": ["-v"],
                               "ports": [{"containerPort": 80}]}],
               "tolerations": [{"key": "k"}], "securityContext": {}}})"_json;
  EXPECT_EQ(fields_of(p, pod_type()).to_fields_v1(), R"({
      "f:metadata": {"f:labels": {"f:a": {}}, "f:finalizers": {"v:\"x/y\"": {}}},
      "f:spec": {"f:containers": {"k:{\"name\":\"web\"}": {".": {}, "f:args": {}, "f:name": {},
          "f:ports": {"k:{\"containerPort\":80,\"protocol\":\"TCP\"}": {".": {},
                                                                  "f:containerPort": {}}}}},
                 "f:securityContext": {}, "f:tolerations": {}}})"_json);
  // A list of type map whose item lacks a key without a default.
  EXPECT_THROW(fields_of(R"({"spec": {"containers": [{"image": "x"}]}})"_json, pod_type()),
               StructureError);
}

TEST(StructuredMerge, CompareAndMergeByKeys) {
  const json a = R"({"spec": {"containers": [{"name": "a", "image": "1"},
                                             {"name": "b", "image": "1"}]}})"_json;
  const json b = R"({"spec": {"containers": [{"name": "c", "image": "1"},
                                             {"name": "b", "image": "2"}]}})"_json;
  const Comparison c = compare(&a, &b, pod_type());
  EXPECT_EQ(c.modified.to_fields_v1(),
            R"({"f:spec": {"f:containers": {"k:{\"name\":\"b\"}": {"f:image": {}}}}})"_json);
  EXPECT_EQ(c.added.to_fields_v1(), R"({"f:spec": {"f:containers": {"k:{\"name\":\"c\"}":
      {".": {}, "f:image": {}, "f:name": {}}}}})"_json);
  EXPECT_EQ(c.removed.to_fields_v1(), R"({"f:spec": {"f:containers": {"k:{\"name\":\"a\"}":
      {".": {}, "f:image": {}, "f:name": {}}}}})"_json);
  // The applied order, the live list's own items kept where they stood.
  EXPECT_EQ(merge(a, b, pod_type()),
            R"({"spec": {"containers": [{"name": "a", "image": "1"}, {"name": "c", "image": "1"},
                                        {"name": "b", "image": "2"}]}})"_json);
  // An atomic list is replaced whole.
  EXPECT_EQ(merge(R"({"spec": {"tolerations": [{"key": "a"}, {"key": "b"}]}})"_json,
                  R"({"spec": {"tolerations": [{"key": "c"}]}})"_json, pod_type()),
            R"({"spec": {"tolerations": [{"key": "c"}]}})"_json);
  EXPECT_EQ(remove_items(a,
                         FieldSet::from_fields_v1(
                             R"({"f:spec": {"f:containers": {"k:{\"name\":\"a\"}": {}}}})"_json),
                         pod_type()),
            R"({"spec": {"containers": [{"name": "b", "image": "1"}]}})"_json);
}

TEST(ServerSideApply, CreatesAndOwnsExactlyWhatItApplied) {
  const json created = server_side_apply(nullptr, pod("nginx:1"), pod_type(), by("kubectl"));
  EXPECT_EQ(created["spec"]["containers"][0]["image"], "nginx:1");
  const json& entry = created["metadata"]["managedFields"][0];
  EXPECT_EQ(entry["manager"], "kubectl");
  EXPECT_EQ(entry["operation"], "Apply");
  EXPECT_EQ(entry["apiVersion"], "v1");
  EXPECT_EQ(entry["fieldsType"], "FieldsV1");
  EXPECT_EQ(entry["time"], "2024-01-02T03:04:05Z");
  EXPECT_EQ(entry["fieldsV1"], R"({"f:metadata": {"f:labels": {"f:app": {}}},
      "f:spec": {"f:containers": {"k:{\"name\":\"web\"}": {".": {}, "f:image": {},
                                                           "f:name": {}}}}})"_json);
}

TEST(ServerSideApply, ConflictsNameFieldAndManagerThenForceTakesOver) {
  const json live = server_side_apply(nullptr, pod("nginx:1"), pod_type(), by("a"));
  EXPECT_EQ(conflict_message(live, pod("nginx:2"), by("b")),
            "Apply failed with 1 conflict: conflict with \"a\": "
            ".spec.containers[name=\"web\"].image");
  // The same value is shared, never a conflict.
  const json shared = server_side_apply(&live, pod("nginx:1"), pod_type(), by("b"));
  EXPECT_FALSE(fields_v1_of(shared, "a", "Apply").is_null());
  EXPECT_FALSE(fields_v1_of(shared, "b", "Apply").is_null());
  // Forced, b owns the image and a no longer does.
  const json forced = server_side_apply(&live, pod("nginx:2"), pod_type(), by("b", true));
  EXPECT_EQ(forced["spec"]["containers"][0]["image"], "nginx:2");
  EXPECT_EQ(fields_v1_of(forced, "a", "Apply"), R"({"f:metadata": {"f:labels": {"f:app": {}}},
      "f:spec": {"f:containers": {"k:{\"name\":\"web\"}": {".": {}, "f:name": {}}}}})"_json);
}

TEST(ServerSideApply, ConflictsWithUpdatersAndSeveralAreGroupedByManager) {
  json live = pod("nginx:1");
  live["metadata"]["uid"] = "u";
  record_update(live, nullptr, pod_type(), {"kubectl-create", "v1", "", "t", true});
  EXPECT_EQ(fields_v1_of(live, "kubectl-create", "Update")["f:metadata"],
            R"({"f:labels": {".": {}, "f:app": {}}})"_json);
  EXPECT_EQ(conflict_message(live, pod("nginx:2"), by("x")),
            "Apply failed with 1 conflict: conflict with \"kubectl-create\" using v1: "
            ".spec.containers[name=\"web\"].image");
  json two = pod("nginx:2");
  two["metadata"]["labels"]["app"] = "y";
  EXPECT_EQ(conflict_message(live, two, by("x")),
            "Apply failed with 2 conflicts: conflicts with \"kubectl-create\" using v1:\n"
            "- .metadata.labels.app\n- .spec.containers[name=\"web\"].image");
  // An object no one manages is first owned by before-first-apply.
  json unmanaged = pod("nginx:1");
  EXPECT_EQ(conflict_message(unmanaged, pod("nginx:2"), by("x")),
            "Apply failed with 1 conflict: conflict with \"before-first-apply\" using v1: "
            ".spec.containers[name=\"web\"].image");
}

TEST(ServerSideApply, FieldsNoLongerAppliedGoUnlessOthersOwnThem) {
  json config = pod("nginx:1");
  config["metadata"]["labels"]["tier"] = "web";
  json live = server_side_apply(nullptr, config, pod_type(), by("a"));
  // Another manager labels the object.
  json labelled = live;
  labelled["metadata"]["labels"]["team"] = "t";
  record_update(labelled, &live, pod_type(), {"kubectl-label", "v1", "", "t", true});
  // a applies again without its tier label: it goes; team stays.
  const json next = server_side_apply(&labelled, pod("nginx:1"), pod_type(), by("a"));
  EXPECT_EQ(next["metadata"]["labels"], R"({"app": "x", "team": "t"})"_json);
  // A dropped container goes with all its fields.
  json two = pod("nginx:1");
  two["spec"]["containers"].push_back({{"name", "side"}, {"image", "busybox"}});
  const json both = server_side_apply(nullptr, two, pod_type(), by("a"));
  const json one = server_side_apply(&both, pod("nginx:1"), pod_type(), by("a"));
  EXPECT_EQ(one["spec"]["containers"].size(), 1u);
}

TEST(ServerSideApply, UpdateRecordsChangesAndTakesThemFromOthers) {
  const json live = server_side_apply(nullptr, pod("nginx:1"), pod_type(), by("a"));
  json edited = live;
  edited["spec"]["containers"][0]["image"] = "nginx:3";
  record_update(edited, &live, pod_type(), {"kubectl-edit", "v1", "", "t", true});
  EXPECT_EQ(fields_v1_of(edited, "kubectl-edit", "Update"),
            R"({"f:spec": {"f:containers": {"k:{\"name\":\"web\"}": {"f:image": {}}}}})"_json);
  EXPECT_TRUE(
      fields_v1_of(edited, "a", "Apply")["f:spec"]["f:containers"][R"(k:{"name":"web"})"].contains(
          "f:name"));
  EXPECT_FALSE(
      fields_v1_of(edited, "a", "Apply")["f:spec"]["f:containers"][R"(k:{"name":"web"})"].contains(
          "f:image"));
  // Status is the status subresource's: a main-resource writer never owns it.
  json with_status = live;
  with_status["status"] = {{"phase", "Running"}};
  record_update(with_status, &live, pod_type(), {"w", "v1", "", "t", true});
  EXPECT_TRUE(fields_v1_of(with_status, "w", "Update").is_null());
  record_update(with_status, &live, pod_type(), {"w", "v1", "status", "t", true});
  EXPECT_EQ(fields_v1_of(with_status, "w", "Update"), R"({"f:status": {".": {},
                                                               "f:phase": {}}})"_json);
  // [{}] clears them: an object no one manages is not tracked.
  json cleared = edited;
  cleared["metadata"]["managedFields"] = json::array({json::object()});
  cleared["metadata"]["labels"]["b"] = "c";
  record_update(cleared, &edited, pod_type(), {"w", "v1", "", "t", true});
  EXPECT_FALSE(cleared["metadata"].contains("managedFields"));
}

TEST(ServerSideApply, OptionsAndConfigurationAreChecked) {
  try {
    check_patch_options(true, "", false);
    ADD_FAILURE();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), 422u);
    EXPECT_STREQ(e.what(),
                 "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is "
                 "required for apply patch");
  }
  EXPECT_THROW(check_patch_options(false, "", true), ApiError);
  EXPECT_NO_THROW(check_patch_options(true, "kubectl", true));
  EXPECT_THROW(check_applied_config(R"({"kind": "Pod"})"_json, "v1", "Pod"), ApiError);
  EXPECT_THROW(check_applied_config(R"({"apiVersion": "v1", "kind": "Node"})"_json, "v1", "Pod"),
               ApiError);
  EXPECT_THROW(check_applied_config(R"({"apiVersion": "v1", "kind": "Pod",
                                        "metadata": {"managedFields": []}})"_json,
                                    "v1", "Pod"),
               ApiError);
  EXPECT_EQ(default_manager("kubectl/v1.32.0 (linux/amd64) kubernetes/abc"), "kubectl");
  EXPECT_EQ(default_manager("python-requests/2.31"), "python-requests");
}

}  // namespace
}  // namespace scoria::api
