// A Kubernetes API path taken apart:
//   /api/v1[/watch][/namespaces/{ns}]/{plural}[/{name}[/{subresource}]]
//   /apis/{group}/{version}[/watch][/namespaces/{ns}]/{plural}[/{name}[/{subresource}]]
// Segments are percent-decoded.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/resources.h"

namespace scoria::api {

struct ResourcePath {
  const Resource* resource = nullptr;
  std::string namespace_;  // empty: every namespace (lists and watches)
  std::string name;        // empty: the collection
  std::string subresource;
  bool watch_prefix = false;  // the deprecated /watch/ form
};

/// Returns nullopt when `path` is not under /api/v1 or /apis/{g}/{v}, or
/// names no resource this server has; throws ApiError (404) for a known
/// prefix with a malformed rest.
std::optional<ResourcePath> parse_resource_path(std::string_view path);

/// The non-empty segments of a path, as they are (not decoded).
std::vector<std::string_view> split_path(std::string_view path);

/// %XX decoded; nullopt for a malformed escape, or when what it decodes to
/// is not valid UTF-8 (no name, namespace or selector can hold such bytes).
std::optional<std::string> percent_decode(std::string_view s);

/// Throws ApiError (400) when the request target holds a byte a client
/// must percent-encode: a control character or one that is not ASCII
/// (HTTP request targets are ASCII; raw bytes would reach names and
/// messages otherwise).
void check_target(std::string_view target);

/// A query parameter's decoded value ("+" is a space), or nullopt; the
/// first where it repeats.
std::optional<std::string> query_param(std::string_view query, std::string_view key);
/// Every value of a parameter that may repeat (dryRun=All&dryRun=All).
std::vector<std::string> query_params(std::string_view query, std::string_view key);

}  // namespace scoria::api
