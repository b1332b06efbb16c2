// Object names as the API server validates them: a name is what every
// path, key and message is built from, so one that could not be fetched or
// deleted later (spaces, '?', '#', '%', NUL, newlines) is refused at once.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace scoria::decode {

/// Why `name` is not an RFC 1123 subdomain (Node, Pod, PodGroup, Queue,
/// PriorityClass names), or nullopt when it is one.
std::optional<std::string> subdomain_error(std::string_view name);

/// Why `name` is not an RFC 1123 label (namespaces), or nullopt.
std::optional<std::string> label_error(std::string_view name);

}  // namespace scoria::decode
