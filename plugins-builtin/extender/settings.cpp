#include "settings.h"

#include <nlohmann/json.hpp>

#include <cctype>

namespace scoria_extender {

std::string_view verb_argument(Verb v) {
  static constexpr std::array<std::string_view, kVerbCount> kNames = {
      "extender.onSessionOpenVerb", "extender.onSessionCloseVerb", "extender.predicateVerb",
      "extender.prioritizeVerb",    "extender.preemptableVerb",    "extender.reclaimableVerb",
      "extender.queueOverusedVerb", "extender.jobEnqueueableVerb", "extender.jobEnqueuedVerb",
      "extender.jobReadyVerb",      "extender.allocateFuncVerb",   "extender.deallocateFuncVerb",
  };
  return kNames[static_cast<size_t>(v)];
}

std::optional<Endpoint> parse_url_prefix(std::string_view url, std::string& error) {
  constexpr std::string_view kScheme = "http://";
  std::string lower(url.substr(0, std::min(url.size(), size_t{8})));
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.starts_with("https://")) {
    error =
        "https is not supported: the extender speaks plain HTTP (put a TLS proxy on "
        "loopback in front of an https extender)";
    return std::nullopt;
  }
  if (!lower.starts_with(kScheme)) {
    error = "not an http:// URL";
    return std::nullopt;
  }
  std::string_view rest = url.substr(kScheme.size());
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash);
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);  // Volcano's TrimRight
  if (path.find_first_of("?# ") != std::string_view::npos) {
    error = "the path may not hold a query, a fragment or a space";
    return std::nullopt;
  }
  if (authority.find('@') != std::string_view::npos) {
    error = "user information in the URL is not supported";
    return std::nullopt;
  }
  Endpoint ep;
  ep.base_path = std::string(path);
  std::string_view host = authority;
  std::string_view port = "80";
  if (!authority.empty() && authority.front() == '[') {  // [v6]:port
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) {
      error = "unterminated IPv6 address";
      return std::nullopt;
    }
    host = authority.substr(1, close - 1);
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') {
        error = "unexpected text after the IPv6 address";
        return std::nullopt;
      }
      port = after.substr(1);
    }
  } else if (const size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty()) {
    error = "no host";
    return std::nullopt;
  }
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string_view::npos ||
      std::stoi(std::string(port)) > 65535 || std::stoi(std::string(port)) == 0) {
    error = "the port is not a number from 1 to 65535";
    return std::nullopt;
  }
  ep.host = std::string(host);
  ep.port = std::string(port);
  return ep;
}

bool has_resources_in_list(const ResourceNames& managed, const nlohmann::json& resources) {
  if (!resources.is_object()) return false;
  for (const auto& [name, quantity] : resources.items())
    if (managed.contains(name)) return true;
  return false;
}

bool has_managed_resources(const ResourceNames& managed, const nlohmann::json& containers) {
  if (!containers.is_array()) return false;
  for (const auto& c : containers) {
    if (!c.is_object()) continue;
    const auto res = c.find("resources");
    if (res == c.end() || !res->is_object()) continue;
    for (const char* part : {"requests", "limits"}) {
      const auto list = res->find(part);
      if (list != res->end() && has_resources_in_list(managed, *list)) return true;
    }
  }
  return false;
}

bool is_interested(const ResourceNames& managed, const nlohmann::json& pod) {
  if (managed.empty()) return true;
  if (!pod.is_object()) return false;
  const auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return false;
  for (const char* part : {"containers", "initContainers"}) {
    const auto list = spec->find(part);
    if (list != spec->end() && has_managed_resources(managed, *list)) return true;
  }
  return false;
}

}  // namespace scoria_extender
