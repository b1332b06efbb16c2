// Server-side printing, as the API server answers `kubectl get`: a
// meta.k8s.io/v1 Table with the columns kubectl shows for each kind (the
// built-in kinds' printers; for PodGroups and Queues, Volcano's CRD
// additionalPrinterColumns), when the client's Accept header asks for one.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "api/resources.h"

namespace scoria::api {

/// What each row carries besides its cells (?includeObject=).
enum class IncludeObject { None, Metadata, Object };

/// True if `accept` (an Accept header) asks for a Table ("as=Table").
bool wants_table(std::string_view accept);

/// The includeObject query value: Metadata when absent, as the API server
/// defaults; nullopt for a value it would refuse.
std::optional<IncludeObject> include_object(std::optional<std::string_view> value);

/// A Table of `objects` (served objects of `r`), with `list_meta` (the
/// list's metadata: resourceVersion, continue) and ages as of `now`.
nlohmann::json table(const Resource& r, const nlohmann::json& objects,
                     const nlohmann::json& list_meta, IncludeObject include,
                     std::chrono::system_clock::time_point now);

/// Kubernetes' short age: "45s", "3m12s", "5h", "2d3h", "<unknown>".
std::string age(std::string_view rfc3339, std::chrono::system_clock::time_point now);

}  // namespace scoria::api
