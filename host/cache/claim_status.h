// A ResourceClaim's status as Kubernetes writes it: the allocation
// (results, node selector) and the consumers it is reserved for, and the
// v1 NodeSelector both it and a provisioned volume's node affinity hold.
// Shared by the writes where no controller runs (claim_completion.cpp,
// storage_completion.cpp) and by the Kubernetes source's PreBind writes.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "model/devices.h"

namespace scoria::cache {

/// status.allocation for `allocation`.
nlohmann::json allocation_json(const model::DeviceAllocation& allocation);
/// One status.reservedFor entry.
nlohmann::json consumer_json(const model::ClaimConsumer& consumer);
/// A v1 NodeSelector ({"nodeSelectorTerms": [...]}) for `terms`.
nlohmann::json node_selector_json(const std::vector<model::NodeSelectorTerm>& terms);

}  // namespace scoria::cache
