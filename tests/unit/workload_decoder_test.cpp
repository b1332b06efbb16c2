// Kubernetes' own gangs (KEP-4671) as the loader reads them: a
// scheduling.k8s.io PodGroup becomes a job as a Volcano PodGroup does, a pod
// joins it through spec.schedulingGroup, and what kube-apiserver's
// validation refuses is refused naming the field.
#include <gtest/gtest.h>

#include <string>

#include "objects_from_text.h"

namespace scoria::source {
namespace {

using test_support::parse;
using test_support::parse_error;

std::string native_group(std::string_view spec, std::string_view version = "v1beta1",
                         std::string_view metadata = "") {
  return "apiVersion: scheduling.k8s.io/" + std::string(version) +
         "\nkind: PodGroup\nmetadata:\n  namespace: ml\n  name: train\n" + std::string(metadata) +
         "spec:\n" + std::string(spec);
}

TEST(WorkloadDecoder, AGangPodGroupIsAJobWithItsMinCount) {
  const auto objects = parse(
      native_group("  schedulingPolicy: {gang: {minCount: 4}}\n  priorityClassName: high\n"
                   "  priority: 50\n  disruptionMode: {all: {}}\n"
                   "  workloadRef: {workloadName: train, templateName: workers}\n",
                   "v1beta1", "  annotations: {scheduling.volcano.sh/queue-name: research}\n"));
  const model::PodGroup& g = objects.pod_groups.at(0);
  EXPECT_TRUE(g.native);
  EXPECT_EQ(g.key(), "ml/train");
  EXPECT_EQ(g.min_member, 4);
  EXPECT_EQ(g.queue, "research");
  EXPECT_EQ(g.priority_class_name, "high");
  EXPECT_EQ(g.priority, 50);
  EXPECT_TRUE(g.disrupt_whole);
  EXPECT_EQ(g.phase, model::PodGroupPhase::Pending);
}

TEST(WorkloadDecoder, BasicIsOnePodAtATimeInTheDefaultQueue) {
  const auto objects = parse(native_group("  schedulingPolicy: {basic: {}}\n"));
  const model::PodGroup& g = objects.pod_groups.at(0);
  EXPECT_EQ(g.min_member, 1);
  EXPECT_EQ(g.queue, "default");
  EXPECT_FALSE(g.priority.has_value());
  EXPECT_FALSE(g.disrupt_whole);
}

TEST(WorkloadDecoder, V1alpha2ReadsItsOwnShapes) {
  const auto objects = parse(native_group(
      "  schedulingPolicy: {gang: {minCount: 2}}\n  disruptionMode: PodGroup\n"
      "  podGroupTemplateRef: {workload: {workloadName: train, podGroupTemplateName: w}}\n",
      "v1alpha2"));
  EXPECT_EQ(objects.pod_groups.at(0).min_member, 2);
  EXPECT_TRUE(objects.pod_groups.at(0).disrupt_whole);
}

TEST(WorkloadDecoder, AScheduledConditionReadsAsRunning) {
  const auto objects =
      parse(native_group("  schedulingPolicy: {gang: {minCount: 2}}\n") +
            "status:\n  conditions:\n  - {type: PodGroupInitiallyScheduled, status: \"True\", "
            "reason: Scheduled}\n");
  EXPECT_EQ(objects.pod_groups.at(0).phase, model::PodGroupPhase::Running);
  const auto waiting =
      parse(native_group("  schedulingPolicy: {gang: {minCount: 2}}\n") +
            "status:\n  conditions:\n  - {type: PodGroupInitiallyScheduled, status: \"False\", "
            "reason: Unschedulable, message: no room}\n");
  EXPECT_EQ(waiting.pod_groups.at(0).phase, model::PodGroupPhase::Pending);
  EXPECT_EQ(waiting.pod_groups.at(0).unschedulable, "no room");
}

TEST(WorkloadDecoder, APodJoinsThroughSchedulingGroup) {
  const auto objects = parse(native_group("  schedulingPolicy: {gang: {minCount: 1}}\n") +
                             "---\napiVersion: v1\nkind: Pod\nmetadata: {namespace: ml, name: "
                             "w-0}\nspec:\n  schedulingGroup: {podGroupName: train}\n"
                             "  containers: [{name: c, image: i}]\n");
  const model::Pod& pod = objects.pods.at(0);
  EXPECT_EQ(pod.group_name, "train");
  EXPECT_TRUE(pod.native_group);
}

TEST(WorkloadDecoder, RefusesWhatTheApiServerRefuses) {
  const std::string where = "cluster.yaml: document 1 (PodGroup ml/train): field spec.";
  EXPECT_EQ(parse_error(native_group("  priority: 1\n")),
            where + "schedulingPolicy: is missing; write basic: {} or gang: {minCount: N}");
  EXPECT_EQ(parse_error(native_group("  schedulingPolicy: {basic: {}, gang: {minCount: 2}}\n")),
            where + "schedulingPolicy: must give exactly one of basic and gang");
  EXPECT_EQ(parse_error(native_group("  schedulingPolicy: {gang: {}}\n")),
            where +
                "schedulingPolicy.gang.minCount: is missing; write how many pods the gang "
                "needs");
  EXPECT_EQ(
      parse_error(native_group("  schedulingPolicy: {basic: {}}\n  disruptionMode: {all: {}}\n")),
      where +
          "disruptionMode: all is not supported with the basic scheduling policy; use "
          "gang, or single");
  EXPECT_EQ(parse_error(native_group("  schedulingPolicy: {gang: {minCount: 2}}\n"
                                     "  disruptionMode: PodGroup\n")),
            where +
                "disruptionMode: \"PodGroup\" is v1alpha2's form; in v1beta1 write single: {} "
                "or all: {}");
  EXPECT_NE(parse_error(native_group("  schedulingPolicy: {gang: {minCount: 2}}\n"
                                     "  disruptionMode: Everything\n",
                                     "v1alpha2"))
                .find("disruptionMode: \"Everything\" is not a disruption mode; write Pod or "
                      "PodGroup"),
            std::string::npos);
  EXPECT_EQ(parse_error(native_group("  schedulingPolicy: {gang: {minCount: 2}}\n"
                                     "  priority: 2000000000\n")),
            where +
                "priority: 2000000000 is above 1000000000, the highest priority a user may "
                "give; use a PriorityClass above it");
  EXPECT_EQ(parse_error(native_group("  schedulingPolicy: {gang: {minCount: 2}}\n"
                                     "  workloadRef: {workloadName: train}\n")),
            where + "workloadRef.templateName: is missing; name it");
}

TEST(WorkloadDecoder, AWorkloadIsCheckedAndDecidesNothing) {
  const std::string workload =
      "apiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\n"
      "metadata: {namespace: ml, name: train}\nspec:\n";
  const auto objects = parse(workload +
                             "  controllerRef: {apiGroup: batch, kind: Job, name: train}\n"
                             "  podGroupTemplates:\n  - name: workers\n"
                             "    schedulingPolicy: {gang: {minCount: 3}}\n");
  EXPECT_TRUE(objects.pod_groups.empty());
  const std::string where = "cluster.yaml: document 1 (Workload ml/train): field spec.";
  EXPECT_EQ(parse_error(workload + "  controllerRef: {apiGroup: batch}\n"),
            where + "controllerRef.kind: is missing; name the controller's kind");
  EXPECT_EQ(parse_error(workload + "  podGroupTemplates:\n  - {name: a, schedulingPolicy: "
                                   "{basic: {}}}\n  - {name: a, schedulingPolicy: {basic: {}}}\n"),
            where +
                "podGroupTemplates[1].name: \"a\" names an earlier template too; give each "
                "its own");
  // A template is checked as a group would be.
  EXPECT_EQ(parse_error(workload + "  podGroupTemplates:\n  - {name: a, schedulingPolicy: "
                                   "{basic: {}}, disruptionMode: {all: {}}}\n"),
            where +
                "podGroupTemplates[0].disruptionMode: all is not supported with the basic "
                "scheduling policy; use gang, or single");
  EXPECT_EQ(parse_error(workload + "  controllerRef: {kind: Job, name: x}\n"),
            where +
                "podGroupTemplates: must be given, or compositePodGroupTemplates instead, "
                "not both");
}

TEST(WorkloadDecoder, AnApiVersionOfNeitherGroupIsRefusedListingBoth) {
  EXPECT_NE(parse_error(native_group("  schedulingPolicy: {basic: {}}\n", "v1"))
                .find("\"scheduling.k8s.io/v1\" is not an apiVersion of PodGroup; write "
                      "apiVersion: scheduling.volcano.sh/v1beta1 or scheduling.k8s.io/v1beta1 or "
                      "scheduling.k8s.io/v1alpha2"),
            std::string::npos);
}

}  // namespace
}  // namespace scoria::source
