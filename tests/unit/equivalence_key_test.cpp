// The equivalence key of a pending pod: siblings that differ only in
// identity, placement and status share it; anything else a plugin may read
// tells them apart; JSON that is not an object has none.
#include "cache/equivalence_key.h"

#include <gtest/gtest.h>

#include <string>

namespace scoria::cache {
namespace {

std::string key_of(const std::string& json) {
  model::Pod pod;
  pod.json = json;
  return equivalence_key(pod);
}

constexpr const char* kSibling0 = R"({
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "job-0", "namespace": "a", "uid": "u0", "resourceVersion": "7",
    "creationTimestamp": "2024-05-01T00:00:00Z", "generateName": "job-",
    "ownerReferences": [{"kind": "Job", "name": "job", "uid": "j"}],
    "managedFields": [{"manager": "m"}],
    "labels": {"app": "x", "volcano.sh/task-index": "0"},
    "annotations": {"scheduling.k8s.io/group-name": "pg-0", "note": "same",
                    "volcano.sh/task-index": "0"}},
  "spec": {"nodeName": "", "hostname": "job-0", "subdomain": "s",
    "schedulingGroup": {"podGroupName": "native-0"},
    "containers": [{"name": "c", "image": "i:1",
                    "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}],
    "priority": 5, "weight": 0.5, "paused": false, "extra": null},
  "status": {"phase": "Pending"}
})";

constexpr const char* kSibling1 = R"({
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "job-1", "namespace": "a", "uid": "u1", "resourceVersion": "9",
    "creationTimestamp": "2024-05-01T00:00:09Z", "generateName": "job-",
    "ownerReferences": [{"kind": "Job", "name": "job", "uid": "j"}],
    "managedFields": [{"manager": "other"}],
    "labels": {"app": "x", "volcano.sh/task-index": "1"},
    "annotations": {"scheduling.k8s.io/group-name": "pg-1", "note": "same",
                    "volcano.sh/task-index": "1"}},
  "spec": {"nodeName": "n3", "hostname": "job-1", "subdomain": "t",
    "schedulingGroup": {"podGroupName": "native-1"},
    "containers": [{"name": "c", "image": "i:1",
                    "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}],
    "priority": 5, "weight": 0.5, "paused": false, "extra": null},
  "status": {"phase": "Running", "conditions": [{"type": "Ready"}]}
})";

TEST(EquivalenceKey, SiblingsDifferingInIdentityPlacementAndStatusShareIt) {
  const std::string k = key_of(kSibling0);
  EXPECT_FALSE(k.empty());
  EXPECT_EQ(k, key_of(kSibling1));
}

TEST(EquivalenceKey, WhatAPluginMayReadTellsPodsApart) {
  const std::string k = key_of(kSibling0);
  const auto changed = [](std::string json, const std::string& from, const std::string& to) {
    const size_t at = json.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return key_of(json.replace(at, from.size(), to));
  };
  EXPECT_NE(k, changed(kSibling0, R"("image": "i:1")", R"("image": "i:2")"));
  EXPECT_NE(k, changed(kSibling0, R"("cpu": "1")", R"("cpu": "2")"));
  EXPECT_NE(k, changed(kSibling0, R"("app": "x")", R"("app": "y")"));
  EXPECT_NE(k, changed(kSibling0, R"("note": "same")", R"("note": "other")"));
  EXPECT_NE(k, changed(kSibling0, R"("namespace": "a")", R"("namespace": "b")"));
  EXPECT_NE(k, changed(kSibling0, R"("priority": 5)", R"("priority": 6)"));
  EXPECT_NE(k, changed(kSibling0, R"("weight": 0.5)", R"("weight": 0.25)"));
  EXPECT_NE(k, changed(kSibling0, R"("paused": false)", R"("paused": true)"));
  EXPECT_NE(k, changed(kSibling0, R"("extra": null)", R"("extra": 0)"));
  // Names left out only where they are the pod's own: elsewhere they count.
  EXPECT_NE(k, changed(kSibling0, R"("name": "c")", R"("name": "d")"));
  EXPECT_NE(k, changed(kSibling0, R"("paused": false)", R"("paused": false, "status": 1)"));
  EXPECT_NE(k, changed(kSibling0, R"("image": "i:1")", R"("image": "i:1", "nodeName": "n")"));
}

TEST(EquivalenceKey, StringsCannotPassForStructure) {
  // The same characters, split otherwise between keys and values.
  EXPECT_NE(key_of(R"({"spec": {"a": "b1:c"}})"), key_of(R"({"spec": {"a": "b", "1": "c"}})"));
  EXPECT_NE(key_of(R"({"spec": {"a": "1"}})"), key_of(R"({"spec": {"a": 1}})"));
  EXPECT_NE(key_of(R"({"spec": {"a": [1, 2]}})"), key_of(R"({"spec": {"a": [12]}})"));
  EXPECT_NE(key_of(R"({"spec": {"a": {}}})"), key_of(R"({"spec": {"a": []}})"));
}

TEST(EquivalenceKey, NotAnObjectHasNone) {
  EXPECT_EQ(key_of(""), "");
  EXPECT_EQ(key_of("[1, 2]"), "");
  EXPECT_EQ(key_of("5"), "");
  EXPECT_EQ(key_of(R"({"spec": )"), "");
  EXPECT_EQ(key_of(R"({"spec": {}} trailing)"), "");
  EXPECT_NE(key_of("{}"), "");
}

std::string without_claims(const std::string& json) {
  model::Pod pod;
  pod.json = json;
  return equivalence_key_without_claim_names(pod);
}

TEST(EquivalenceKey, ClaimNamesAreLeftOutOfTheWiderClassOnly) {
  const std::string a = R"({"spec": {"volumes": [{"name": "data",
    "persistentVolumeClaim": {"claimName": "job-0-data", "readOnly": true}},
    {"name": "scratch", "emptyDir": {}}], "containers": [{"name": "c"}]}})";
  std::string b = a;
  b.replace(b.find("job-0-data"), 10, "job-1-data");
  EXPECT_NE(key_of(a), key_of(b));
  EXPECT_EQ(without_claims(a), without_claims(b));
  EXPECT_NE(without_claims(a), key_of(a));  // never one of the narrower keys
  // Everything else of a volume still counts, and a claimName elsewhere
  // (not a volume's persistentVolumeClaim) is not left out.
  std::string ro = a;
  ro.replace(ro.find("true"), 4, "false");
  EXPECT_NE(without_claims(a), without_claims(ro));
  std::string other = a;
  other.replace(other.find("\"name\": \"scratch\""), 17, R"("name": "tmp")");
  EXPECT_NE(without_claims(a), without_claims(other));
  EXPECT_NE(without_claims(R"({"spec": {"x": {"claimName": "p"}}})"),
            without_claims(R"({"spec": {"x": {"claimName": "q"}}})"));
  EXPECT_EQ(without_claims("[1]"), "");
}

}  // namespace
}  // namespace scoria::cache
