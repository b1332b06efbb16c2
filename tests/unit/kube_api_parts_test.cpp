// The parts of the Kubernetes-shaped API that need no server: paths,
// discovery, selectors, patches, server-set metadata, Status objects.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/discovery.h"
#include "api/object_meta.h"
#include "api/patch.h"
#include "api/request_path.h"
#include "api/selectors.h"
#include "api/status.h"

namespace scoria::api {
namespace {

using nlohmann::json;

TEST(KubePaths, CoreGroupNamespacedAndWatchForms) {
  auto p = parse_resource_path("/api/v1/namespaces/ml/pods/train-0/binding");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->resource->kind, "Pod");
  EXPECT_EQ(p->namespace_, "ml");
  EXPECT_EQ(p->name, "train-0");
  EXPECT_EQ(p->subresource, "binding");
  p = parse_resource_path("/apis/scheduling.volcano.sh/v1beta1/watch/namespaces/ml/podgroups");
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->watch_prefix);
  EXPECT_EQ(p->resource->kind, "PodGroup");
  p = parse_resource_path("/api/v1/namespaces/ml");  // the namespace itself
  ASSERT_TRUE(p);
  EXPECT_EQ(p->resource->kind, "Namespace");
  EXPECT_EQ(p->name, "ml");
  p = parse_resource_path("/api/v1/nodes/a%3Fb");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->name, "a?b");
  EXPECT_FALSE(parse_resource_path("/api/v1/gadgets"));
  EXPECT_FALSE(parse_resource_path("/healthz"));
  EXPECT_THROW(parse_resource_path("/api/v1/nodes/a%zz"), ApiError);
}

TEST(KubeDiscovery, AGroupAloneAndItsVersions) {
  // /apis/{group} once read a member of a destroyed temporary (found by
  // fuzz/api_fuzz; ASan reports it here if it comes back).
  const auto group = discovery_document("/apis/scheduling.volcano.sh");
  ASSERT_TRUE(group);
  EXPECT_EQ((*group)["kind"], "APIGroup");
  EXPECT_EQ((*group)["name"], "scheduling.volcano.sh");
  EXPECT_EQ((*group)["preferredVersion"]["version"], "v1beta1");
  EXPECT_FALSE(discovery_document("/apis/v1beta1"));
  const auto resources = discovery_document("/apis/scheduling.volcano.sh/v1beta1/");
  ASSERT_TRUE(resources);
  std::vector<std::string> names;
  for (const json& r : (*resources)["resources"]) names.push_back(r["name"]);
  EXPECT_NE(std::find(names.begin(), names.end(), "podgroups"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "queues/status"), names.end());
  EXPECT_FALSE(discovery_document("/apis/scheduling.volcano.sh/v1beta1/queues"));
}

TEST(KubeSelectors, LabelSelectorForms) {
  const json pod = {{"metadata", {{"labels", {{"app", "web"}, {"tier", "front"}}}}}};
  EXPECT_TRUE(LabelSelector::parse("app=web,tier").matches(pod));
  EXPECT_TRUE(LabelSelector::parse("app==web, tier in (front,back)").matches(pod));
  EXPECT_FALSE(LabelSelector::parse("app!=web").matches(pod));
  EXPECT_FALSE(LabelSelector::parse("tier notin (front)").matches(pod));
  EXPECT_TRUE(LabelSelector::parse("!gpu").matches(pod));
  EXPECT_FALSE(LabelSelector::parse("gpu").matches(pod));
  EXPECT_THROW(LabelSelector::parse("app in web"), ApiError);
}

TEST(KubeSelectors, FieldSelectorKnowsEachKindsFields) {
  const json pod = {{"metadata", {{"name", "p"}, {"namespace", "ml"}}},
                    {"spec", {{"nodeName", "n1"}}},
                    {"status", {{"phase", "Running"}}}};
  EXPECT_TRUE(FieldSelector::parse("spec.nodeName=n1,status.phase!=Pending", "Pod").matches(pod));
  EXPECT_FALSE(FieldSelector::parse("metadata.namespace=default", "Pod").matches(pod));
  EXPECT_TRUE(FieldSelector::parse("spec.unschedulable=false", "Node").matches(json::object()));
  try {
    FieldSelector::parse("spec.nodeName=n1", "Queue");
    FAIL() << "accepted a field queues do not have";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), 400u);
    EXPECT_EQ(std::string(e.what()), "field label not supported: spec.nodeName");
  }
}

TEST(KubeSelectors, TheSelectablePartMatchesAsTheWholeObjectDoes) {
  const json pod = {{"metadata",
                     {{"name", "p"},
                      {"namespace", "ml"},
                      {"labels", {{"app", "web"}}},
                      {"annotations", {{"big", std::string(1000, 'x')}}}}},
                    {"spec", {{"nodeName", "n1"}, {"containers", json::array({{{"name", "c"}}})}}},
                    {"status", {{"phase", "Running"}}}};
  const json event = {{"metadata", {{"name", "e"}}},
                      {"involvedObject", {{"kind", "Pod"}, {"name", "p"}}},
                      {"source", {{"component", "volcano"}}},
                      {"reason", "Scheduled"}};
  const json pod_part = selectable_part(pod);
  const json event_part = selectable_part(event);
  EXPECT_FALSE(pod_part["metadata"].contains("annotations"));
  EXPECT_FALSE(pod_part["spec"].contains("containers"));
  for (const char* text : {"app=web", "app!=web", "tier", "!tier", "app in (db,web)"}) {
    const LabelSelector l = LabelSelector::parse(text);
    EXPECT_EQ(l.matches(pod_part), l.matches(pod)) << text;
  }
  for (const char* text : {"spec.nodeName=n1", "spec.nodeName!=", "status.phase=Running",
                           "metadata.name=p,metadata.namespace=ml", "spec.schedulerName=x",
                           "status.nominatedNodeName="}) {
    const FieldSelector f = FieldSelector::parse(text, "Pod");
    EXPECT_EQ(f.matches(pod_part), f.matches(pod)) << text;
  }
  for (const char* text :
       {"source=volcano", "involvedObject.name=p", "reason!=Scheduled", "involvedObject.uid="}) {
    const FieldSelector f = FieldSelector::parse(text, "Event");
    EXPECT_EQ(f.matches(event_part), f.matches(event)) << text;
  }
}

TEST(KubePatches, StrategicMergeMergesContainersByName) {
  const json pod = {
      {"metadata", {{"labels", {{"a", "1"}}}, {"finalizers", {"x", "y"}}}},
      {"spec",
       {{"containers", {{{"name", "app"}, {"image", "v1"}}, {{"name", "side"}, {"image", "s1"}}}},
        {"tolerations", {{{"key", "k"}}}}}}};
  const json patch = {
      {"metadata",
       {{"labels", {{"b", "2"}, {"a", nullptr}}}, {"$deleteFromPrimitiveList/finalizers", {"x"}}}},
      {"spec",
       {{"$setElementOrder/containers", {{{"name", "app"}}, {{"name", "side"}}}},
        {"containers",
         {{{"name", "app"}, {"image", "v2"}}, {{"name", "side"}, {"$patch", "delete"}}}},
        {"tolerations", {{{"key", "other"}}}}}}};
  const json out = apply_patch(pod, patch, PatchType::StrategicMerge);
  EXPECT_EQ(out["metadata"]["labels"], (json{{"b", "2"}}));
  EXPECT_EQ(out["metadata"]["finalizers"], (json{"y"}));
  ASSERT_EQ(out["spec"]["containers"].size(), 1u);
  EXPECT_EQ(out["spec"]["containers"][0]["image"], "v2");
  EXPECT_EQ(out["spec"]["tolerations"], (json{{{"key", "other"}}}));  // no merge key: replaced
}

TEST(KubePatches, MergeAndJsonPatch) {
  const json q = {{"spec", {{"weight", 1}, {"capability", {{"cpu", "4"}}}}}};
  EXPECT_EQ(apply_patch(q, {{"spec", {{"capability", nullptr}}}}, PatchType::Merge),
            (json{{"spec", {{"weight", 1}}}}));
  const json ops = json::parse(R"([{"op":"replace","path":"/spec/weight","value":5}])");
  EXPECT_EQ(apply_patch(q, ops, PatchType::Json)["spec"]["weight"], 5);
  const json failing = json::parse(R"([{"op":"test","path":"/spec/weight","value":2}])");
  EXPECT_THROW(apply_patch(q, failing, PatchType::Json), ApiError);
  EXPECT_THROW(patch_type("text/plain"), ApiError);
}

TEST(KubeMeta, CreateSetsIdentityAndUpdateKeepsIt) {
  ObjectMeta meta;
  json pod = {{"metadata", {{"generateName", "job-"}, {"resourceVersion", "99"}}},
              {"spec", {{"x", 1}}}};
  meta.on_create(pod, *find_kind("Pod"), "ml");
  EXPECT_EQ(pod["kind"], "Pod");
  EXPECT_EQ(pod["metadata"]["namespace"], "ml");
  EXPECT_EQ(pod["metadata"]["name"].get<std::string>().size(), 9u);  // job- + 5
  EXPECT_EQ(pod["metadata"]["uid"].get<std::string>().size(), 36u);
  EXPECT_EQ(pod["metadata"]["generation"], 1);
  EXPECT_FALSE(pod["metadata"].contains("resourceVersion"));
  // Left out, the identity is kept; changed, it is refused (immutable).
  json next = {{"metadata", json::object()}, {"spec", {{"x", 2}}}};
  ObjectMeta::on_update(next, pod, *find_kind("Pod"));
  EXPECT_EQ(next["metadata"]["uid"], pod["metadata"]["uid"]);
  EXPECT_EQ(next["metadata"]["name"], pod["metadata"]["name"]);
  EXPECT_EQ(next["metadata"]["generation"], 2);  // the spec changed
  for (const char* key : {"name", "uid", "namespace"}) {
    json forged = {{"metadata", {{key, "forged"}}}, {"spec", {{"x", 2}}}};
    try {
      ObjectMeta::on_update(forged, pod, *find_kind("Pod"));
      ADD_FAILURE() << key << " was changed";
    } catch (const ApiError& e) {
      EXPECT_EQ(e.code(), 422u) << key;
      EXPECT_NE(std::string(e.what()).find(std::string("metadata.") + key +
                                           ": Invalid value: \"forged\": field is immutable"),
                std::string::npos)
          << e.what();
    }
  }
  json bad = {{"metadata", {{"namespace", "web"}}}};
  EXPECT_THROW(meta.on_create(bad, *find_kind("Pod"), "ml"), ApiError);
}

TEST(KubeMeta, AVersionSlotFilledIsTheStampedDump) {
  // Where resourceVersion sorts among metadata's keys: between others,
  // first, last, alone; a stale one is left out; odd text is kept as dump() keeps it.
  const std::vector<json> objects = {
      {{"apiVersion", "v1"},
       {"kind", "Pod"},
       {"metadata", {{"name", "a"}, {"namespace", "ns"}, {"uid", "u"}}},
       {"spec", {{"nodeName", "n1"}}}},
      {{"metadata", {{"uid", "u"}, {"zz", 1}}}},
      {{"metadata", {{"annotations", {{"resourceVersion", "0"}}}, {"name", "b"}}}},
      {{"metadata", json::object()}, {"status", {{"phase", "Running"}}}},
      {{"metadata", {{"name", "c"}, {"resourceVersion", "3"}}}},
      {{"a", "\xff\"q\"\n"}, {"metadata", {{"name", "\u00e9"}}}},
  };
  for (const json& object : objects) {
    json stamped = object;
    ObjectMeta::stamp(stamped, 1234567);
    EXPECT_EQ(ObjectMeta::version_slot(object).fill(1234567),
              stamped.dump(-1, ' ', false, json::error_handler_t::replace))
        << object.dump(-1, ' ', false, json::error_handler_t::replace);
  }
  EXPECT_THROW(ObjectMeta::version_slot(json{{"spec", 1}}), std::invalid_argument);
}

TEST(KubeStatus, ErrorsAreStatusObjects) {
  const json s = not_found("scheduling.volcano.sh", "podgroups", "g").status();
  EXPECT_EQ(s["kind"], "Status");
  EXPECT_EQ(s["code"], 404);
  EXPECT_EQ(s["reason"], "NotFound");
  EXPECT_EQ(s["message"], "podgroups.scheduling.volcano.sh \"g\" not found");
  const json i = invalid("", "Pod", "p", {{"FieldValueInvalid", "bad", "spec.x"}}).status();
  EXPECT_EQ(i["code"], 422);
  EXPECT_EQ(i["details"]["causes"][0]["field"], "spec.x");
}

}  // namespace
}  // namespace scoria::api
