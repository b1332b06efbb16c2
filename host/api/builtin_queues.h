// The queues Volcano's scheduler makes when they are missing, as its cache's
// newDefaultAndRootQueue does at start: `root`, never reclaimed, and
// `default`, reclaimable, each of weight 1. The local store makes them at
// its start and the Kubernetes source on the API server it schedules.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

namespace scoria::api {

/// Both queues as objects to create: apiVersion, kind, name and spec.
std::vector<nlohmann::json> builtin_queues();

}  // namespace scoria::api
