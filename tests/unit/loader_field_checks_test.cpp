// What reading object files does with fields their kinds do not have:
// warned about with the file, the document, the object, the field and the
// fix, in document order; refused under Strict with nothing read; ignored.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "input/documents.h"
#include "input/limits.h"
#include "model/error.h"
#include "source/object_loader.h"

namespace scoria::source {
namespace {

using schema::FieldValidation;

constexpr std::string_view kCluster = R"(apiVersion: v1
kind: Node
metadata: {name: node-a}
status: {allocatable: {cpu: "4"}}
---
apiVersion: v1
kind: Pod
metadata: {name: web-0, namespace: apps}
spec:
  containers:
  - {name: web, image: nginx, resouces: {requests: {cpu: "1"}}}
  nodeselector: {zone: a}
---
---
apiVersion: v1
kind: List
items:
- apiVersion: scheduling.volcano.sh/v1beta1
  kind: Queue
  metadata: {name: q1}
  spec: {wieght: 2}
- apiVersion: v1
  kind: Pod
  metadata: {name: web-1, namespace: apps}
  spec: {containers: [{name: web, image: nginx}]}
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: train}
spec:
  tasks:
  - replicas: 1
    template:
      spec:
        containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
        restartPolicyy: Never
)";

const std::vector<std::string> kWarnings = {
    "cluster.yaml: document 2 (Pod apps/web-0): unknown field \"spec.containers[0].resouces\"; "
    "remove it or correct its name (did you mean \"resources\"?)",
    "cluster.yaml: document 2 (Pod apps/web-0): unknown field \"spec.nodeselector\"; remove it or "
    "correct its name (did you mean \"nodeSelector\"?)",
    "cluster.yaml: document 4 (Queue q1): unknown field \"items[0].spec.wieght\"; remove it or "
    "correct its name (did you mean \"weight\"?)",
    "cluster.yaml: document 5 (Job default/train): unknown field "
    "\"spec.tasks[0].template.spec.restartPolicyy\"; remove it or correct its name (did you mean "
    "\"restartPolicy\"?)",
};

struct Read {
  model::ClusterObjects objects;
  std::vector<std::string> warnings;
};

Read read(std::string_view text, FieldValidation v) {
  Read r;
  FieldChecks checks{v, [&](const std::string& w) { r.warnings.push_back(w); }};
  parse_objects(text, "cluster.yaml", r.objects, checks);
  return r;
}

TEST(LoaderFieldChecks, WarnsOncePerFieldInDocumentOrder) {
  const Read r = read(kCluster, FieldValidation::kWarn);
  EXPECT_EQ(r.warnings, kWarnings);
  // Everything is read all the same (the mistyped request is not one).
  EXPECT_EQ(r.objects.pods.size(), 3u);  // web-0, web-1 and the Job's train-default0-0
  EXPECT_EQ(r.objects.queues.size(), 1u);
}

TEST(LoaderFieldChecks, TheSameFromDocumentsAlreadyRead) {
  const std::vector<input::Document> docs =
      input::read_documents(kCluster, "cluster.yaml", input::kFileLimits);
  model::ClusterObjects out;
  std::vector<std::string> warnings;
  decode_objects(docs, "cluster.yaml", out,
                 {FieldValidation::kWarn, [&](const std::string& w) { warnings.push_back(w); }});
  EXPECT_EQ(warnings, kWarnings);
}

TEST(LoaderFieldChecks, StrictRefusesTheFirstAndReadsNothing) {
  model::ClusterObjects out;
  out.nodes.emplace_back().name = "before";
  std::vector<std::string> warnings;
  try {
    parse_objects(kCluster, "cluster.yaml", out,
                  {FieldValidation::kStrict, [&](const std::string& w) { warnings.push_back(w); }});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.what(), kWarnings[0]);
  }
  EXPECT_TRUE(warnings.empty());
  ASSERT_EQ(out.nodes.size(), 1u);  // nothing appended
  EXPECT_TRUE(out.pods.empty());
}

TEST(LoaderFieldChecks, StrictNamesTheFirstInTheTextAcrossManyDocuments) {
  // Many documents are read on every core; the error is the first in order.
  std::string text;
  for (int i = 0; i < 3000; ++i) {
    text += "---\napiVersion: v1\nkind: Node\nmetadata: {name: n" + std::to_string(i) + "}\n";
    if (i == 1700 || i == 2900) text += "spec: {unschedulabel: true}\n";
  }
  try {
    model::ClusterObjects out;
    parse_objects(text, "nodes.yaml", out, {FieldValidation::kStrict, {}});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "nodes.yaml: document 1701 (Node n1700): unknown field \"spec.unschedulabel\"; "
              "remove it or correct its name (did you mean \"unschedulable\"?)");
  }
}

TEST(LoaderFieldChecks, IgnoreSaysNothing) {
  const Read r = read(kCluster, FieldValidation::kIgnore);
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(r.objects.pods.size(), 3u);
  model::ClusterObjects out;
  parse_objects(kCluster, "cluster.yaml", out);  // the default: ignore
  EXPECT_EQ(out.pods.size(), 3u);
}

TEST(LoaderFieldChecks, AHundredWarningsThenACount) {
  std::string text;
  for (int i = 0; i < 130; ++i)
    text += "---\napiVersion: v1\nkind: Node\nmetadata: {name: n" + std::to_string(i) +
            ", lables: {a: b}}\nspec: {unschedulabel: true}\n";
  const Read r = read(text, FieldValidation::kWarn);
  ASSERT_EQ(r.warnings.size(), kMaxFieldWarnings + 1);
  EXPECT_EQ(r.warnings[0],
            "cluster.yaml: document 1 (Node n0): unknown field \"metadata.lables\"; remove it or "
            "correct its name (did you mean \"labels\"?)");
  EXPECT_EQ(r.warnings[99],
            "cluster.yaml: document 50 (Node n49): unknown field \"spec.unschedulabel\"; remove it "
            "or correct its name (did you mean \"unschedulable\"?)");
  EXPECT_EQ(r.warnings[100], "160 more unknown fields not shown");
  EXPECT_EQ(r.objects.nodes.size(), 130u);
}

}  // namespace
}  // namespace scoria::source
