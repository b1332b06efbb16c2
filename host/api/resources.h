// The resources the Kubernetes-compatible API serves, as discovery lists
// them: group, version, plural, kind, scope, short names, verbs and
// subresources. One table serves the router, discovery and the store.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace scoria::api {

struct Resource {
  std::string_view group;  // "" for the core group
  std::string_view version;
  std::string_view plural;
  std::string_view singular;
  std::string_view kind;  // also the store's kind
  bool namespaced;
  std::span<const std::string_view> short_names;
  std::span<const std::string_view> subresources;  // "status", "binding", "eviction"
  bool scheduled;                                  // decoded into the cluster the scheduler sees
};

std::span<const Resource> resources();
/// Whether `r` serves subresource `sub` ("status", "binding", "eviction").
bool has_subresource(const Resource& r, std::string_view sub);
const Resource* find_resource(std::string_view group, std::string_view version,
                              std::string_view plural);
/// The first resource of `kind` (Volcano's PodGroup before Kubernetes' own).
const Resource* find_kind(std::string_view kind);

/// The kind the store keeps `r`'s objects under: its kind, qualified by its
/// group where another group serves that kind too.
std::string_view store_kind(const Resource& r);
/// The resource whose objects the store keeps under `kind`.
const Resource* find_store_kind(std::string_view kind);

/// "v1" or "group/version".
std::string api_version(const Resource& r);

/// The verbs of a resource, as discovery lists them.
std::span<const std::string_view> resource_verbs();
/// The verbs of a subresource ("status", "binding", "eviction"), as
/// discovery lists them.
std::span<const std::string_view> subresource_verbs(std::string_view subresource);

}  // namespace scoria::api
