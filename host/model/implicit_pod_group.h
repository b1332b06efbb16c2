// The PodGroup Volcano's podgroup controller makes for a pod that names
// none: minMember 1, in the pod's queue annotation or "default", needing
// what the pod needs. The file source and the cache both make it here.
#pragma once

#include <string>

#include "model/objects.h"

namespace scoria::model {

/// The implicit group of `pod`, named `name` (the caller picks a free name).
PodGroup implicit_pod_group(const Pod& pod, std::string name);

}  // namespace scoria::model
