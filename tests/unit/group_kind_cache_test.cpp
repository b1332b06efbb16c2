// A pod joins a PodGroup of the kind it names (Volcano's through the
// annotation, Kubernetes' own through spec.schedulingGroup), in live sources
// too: the loader refuses files that mix them, but a live source may hold
// one kind under the name the pod gives the other, one deleted and the
// other made. The job then waits, saying why, until the kinds agree.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cache/cluster_cache.h"
#include "source/object_loader.h"

namespace scoria::cache {
namespace {

constexpr std::string_view kVolcanoGroup = R"(
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: g, namespace: ml}
spec: {minMember: 1}
)";

constexpr std::string_view kNativeGroup = R"(
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: g, namespace: ml}
spec:
  schedulingPolicy: {gang: {minCount: 1}}
)";

constexpr std::string_view kNativePod = R"(
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ml}
spec:
  schedulingGroup: {podGroupName: g}
  containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
)";

constexpr std::string_view kNode = R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
)";

ObjectChange upsert(std::string_view text) {
  model::ClusterObjects objects;
  source::parse_objects(text, "change.yaml", objects);
  if (!objects.pods.empty()) return {ObjectChange::Type::Upsert, Kind::Pod, {}, objects.pods[0]};
  return {ObjectChange::Type::Upsert, Kind::PodGroup, {}, objects.pod_groups.at(0)};
}

std::string job_invalid(ClusterCache& cache) {
  const cycle::Snapshot& s = cache.refresh_snapshot(0);
  for (const cycle::Snapshot::JobIn& j : s.jobs)
    if (j.group != nullptr && j.group->name == "g") return std::string(j.invalid);
  return "no job g";
}

TEST(GroupKindInTheCache, APodNamingTheOtherKindWaitsUntilTheKindsAgree) {
  ClusterCache cache;
  model::ClusterObjects start;
  source::parse_objects(std::string(kNode) + "---" + std::string(kVolcanoGroup), "start.yaml",
                        start);
  cache.reset(std::move(start));
  std::vector<ObjectChange> changes;
  changes.push_back(upsert(kNativePod));
  cache.apply_changes(changes);
  EXPECT_EQ(job_invalid(cache),
            "PodGroup \"g\" of pod ml/p is a Volcano PodGroup; name it in the annotation "
            "scheduling.k8s.io/group-name");
  // The Volcano group is replaced by Kubernetes' own of that name.
  changes.clear();
  changes.push_back(upsert(kNativeGroup));
  cache.apply_changes(changes);
  EXPECT_EQ(job_invalid(cache), "");
  // And back.
  changes.clear();
  changes.push_back(upsert(kVolcanoGroup));
  cache.apply_changes(changes);
  EXPECT_NE(job_invalid(cache).find("is a Volcano PodGroup"), std::string::npos);
}

}  // namespace
}  // namespace scoria::cache
