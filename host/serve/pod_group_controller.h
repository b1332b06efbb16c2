// Volcano's podgroup controller, for the local store. In a cluster,
// vc-controller-manager gives a pod for Volcano that names no PodGroup one
// of its own: `podgroup-<pod uid>`, minMember 1, the pod's queue
// annotation, priorityClassName and requests as minResources, owned by the
// pod; and it annotates the pod with the group's name. The local store has
// no controller manager, so its API does the same as it creates such a pod,
// and removes the group with the pod that owns it, as Kubernetes' garbage
// collector would. The group is then an object like any other: listed,
// described, watched, its status written by the scheduler.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "store/object_store.h"

namespace scoria::serve {

/// The annotation naming a pod's PodGroup.
inline constexpr std::string_view kGroupAnnotation = "scheduling.k8s.io/group-name";

/// For `pod`, about to be created with its metadata.uid set: when it is for
/// this scheduler (schedulerName empty, volcano or scoria) and names no
/// PodGroup, annotates it with the group's name and returns the group to
/// create (a PodGroup object, its key "ns/name" in metadata). Nothing when
/// the pod does not decode (its own write refuses it, naming the field).
std::optional<nlohmann::json> implicit_pod_group(nlohmann::json& pod);

/// The key of the PodGroup `pod` owns (named by its annotation, with an
/// ownerReference to its uid), if it is stored: what goes when the pod goes.
std::optional<std::string> owned_pod_group(const nlohmann::json& pod, store::ObjectStore& store);

}  // namespace scoria::serve
