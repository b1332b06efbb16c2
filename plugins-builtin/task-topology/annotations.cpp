#include "annotations.h"

#include <algorithm>
#include <cstddef>

namespace scoria_task_topology {
namespace {

// strings.Split: n separators give n + 1 items, empty ones included.
std::vector<std::string> split(std::string_view text, char sep) {
  std::vector<std::string> out;
  while (true) {
    const size_t at = text.find(sep);
    out.emplace_back(text.substr(0, at));
    if (at == std::string_view::npos) return out;
    text.remove_prefix(at + 1);
  }
}

std::string in_quotes(std::string_view s) { return "\"" + std::string(s) + "\""; }

// Volcano's affinityCheck: each group's non-empty roles exist and are unique
// within the group. Returns the first problem, or empty.
std::string check(std::string_view key, const std::vector<std::vector<std::string>>& groups,
                  std::span<const std::string_view> sorted_roles, std::string_view within) {
  for (const auto& group : groups) {
    std::vector<std::string_view> seen;
    for (const std::string& role : group) {
      if (role.empty()) continue;
      if (!std::binary_search(sorted_roles.begin(), sorted_roles.end(), std::string_view(role)))
        return std::string(key) + ": task role " + in_quotes(role) +
               " is not a role of the job's tasks";
      if (std::find(seen.begin(), seen.end(), role) != seen.end())
        return std::string(key) + ": task role " + in_quotes(role) + " appears twice " +
               std::string(within);
      seen.emplace_back(role);
    }
  }
  return {};
}

std::vector<std::vector<std::string>> groups_of(std::string_view text) {
  std::vector<std::vector<std::string>> groups;
  for (const std::string& group : split(text, ';')) groups.push_back(split(group, ','));
  return groups;
}

}  // namespace

ReadResult read_topology(const Annotations& annotations, std::span<const std::string_view> roles) {
  if (!annotations.affinity && !annotations.anti_affinity && !annotations.task_order) return {};
  std::vector<std::string_view> sorted(roles.begin(), roles.end());
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());

  Topology topology;
  if (annotations.affinity) {
    topology.affinity = groups_of(*annotations.affinity);
    if (std::string e = check(kAffinityKey, topology.affinity, sorted, "in one group"); !e.empty())
      return {std::nullopt, std::move(e)};
  }
  if (annotations.anti_affinity) {
    topology.anti_affinity = groups_of(*annotations.anti_affinity);
    if (std::string e = check(kAntiAffinityKey, topology.anti_affinity, sorted, "in one group");
        !e.empty())
      return {std::nullopt, std::move(e)};
  }
  if (annotations.task_order) {
    topology.task_order = split(*annotations.task_order, ',');
    if (std::string e = check(kTaskOrderKey, {topology.task_order}, sorted, "in the order");
        !e.empty())
      return {std::nullopt, std::move(e)};
  }
  return {std::move(topology), {}};
}

}  // namespace scoria_task_topology
