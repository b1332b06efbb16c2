// What the extender plugin is configured to do: Volcano's extender.*
// arguments, read once, and the checks on them that need no session.
#pragma once

#include "http_client.h"

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace scoria_extender {

/// Every call Volcano's extender makes, in the order of its arguments.
enum class Verb {
  kOnSessionOpen,
  kOnSessionClose,
  kPredicate,
  kPrioritize,
  kPreemptable,
  kReclaimable,
  kQueueOverused,
  kJobEnqueueable,
  kJobEnqueued,
  kJobReady,
  kAllocateFunc,
  kDeallocateFunc,
};
inline constexpr size_t kVerbCount = 12;

/// The argument naming a verb's path, e.g. "extender.predicateVerb".
std::string_view verb_argument(Verb v);

/// The configured path of each verb; empty when it is not configured (the
/// verb is then never called and its hook not registered).
using VerbPaths = std::array<std::string, kVerbCount>;

/// Splits Volcano's extender.urlPrefix ("http://host[:port][/path]"); the
/// error names what is wrong. Only plain HTTP: https is refused.
std::optional<Endpoint> parse_url_prefix(std::string_view url, std::string& error);

/// Volcano's IsInterested: with no managed resources every pod is of
/// interest; else a pod whose containers or init containers request or
/// limit one of them. `pod` is the Pod object's JSON.
using ResourceNames = std::set<std::string, std::less<>>;
bool is_interested(const ResourceNames& managed, const nlohmann::json& pod);
/// Whether any of `containers` (a JSON array, or absent/null) requests or
/// limits a managed resource (Volcano's hasManagedResources).
bool has_managed_resources(const ResourceNames& managed, const nlohmann::json& containers);
/// Whether `resources` (a ResourceList object, or null) names a managed
/// resource (Volcano's hasResourcesInList).
bool has_resources_in_list(const ResourceNames& managed, const nlohmann::json& resources);

}  // namespace scoria_extender
