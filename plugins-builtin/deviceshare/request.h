// What a pod asks of the devices, read once per pod per session: gpushare
// from its resource vector (an extended resource's request equals its
// limit, which is what Volcano reads), vGPU per container from the pod's
// spec (limits, else requests, as Volcano's ExtractResourceRequest) and
// annotations.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "vgpu.h"

namespace scoria_deviceshare {

/// Each container of `pod_json` (a Pod object) that asks for
/// volcano.sh/vgpu-number or volcano.sh/vgpu-memory in its limits, as a
/// request; empty when none does. *bad names what does not parse.
std::vector<ContainerRequest> vgpu_containers(std::string_view pod_json, std::string* bad);

}  // namespace scoria_deviceshare
