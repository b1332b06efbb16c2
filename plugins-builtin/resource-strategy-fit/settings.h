// The arguments of resource-strategy-fit, read once when the plugin is
// created, in Volcano's shape:
//
//   resourceStrategyFitWeight: 10
//   resources:
//     nvidia.com/gpu: {type: MostAllocated, weight: 2}
//     cpu: {type: LeastAllocated, weight: 1}
//   sra:
//     enable: true
//     resources: nvidia.com/gpu
//     weight: 10
//     resourceWeight: {nvidia.com/gpu: 1}
//   proportional:
//     enable: true
//     resources: nvidia.com/gpu
//     resourceProportion: {nvidia.com/gpu.cpu: 4, nvidia.com/gpu.memory: 8}
//
// The host checks what the plugin declares (the weights' types and ranges,
// sra.*, proportional.*); `resources` is a map whose keys the user names, so
// its entries are checked here, and a wrong one refuses the configuration.
#ifndef SCORIA_RESOURCE_STRATEGY_FIT_SETTINGS_H
#define SCORIA_RESOURCE_STRATEGY_FIT_SETTINGS_H

#include <scoria/scoria.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rsf {

// kube-scheduler's scoring strategy names, as Volcano takes them. Other is
// only for a pod's annotation, which Volcano reads unchecked: an unknown
// type there scores 0 for every resource but still counts its weight.
enum class Strategy { LeastAllocated, MostAllocated, Other };

std::string_view strategy_name(Strategy s);

// One entry of `resources`: an exact resource name, or a prefix ending in
// one "*" that matches every resource starting with it.
struct ResourceRule {
  std::string pattern;
  Strategy type = Strategy::LeastAllocated;
  int64_t weight = 1;

  bool wildcard() const { return !pattern.empty() && pattern.back() == '*'; }
  std::string_view prefix() const {
    return std::string_view(pattern).substr(0, pattern.size() - (wildcard() ? 1 : 0));
  }
};

// The rule for `resource`: an exact entry first, else the wildcard with the
// longest prefix; nullptr when none applies.
const ResourceRule* find_rule(const std::vector<ResourceRule>& rules, std::string_view resource);

struct WeightedResource {
  std::string name;
  int64_t weight = 1;
};

struct SraSettings {
  int64_t weight = 0;  // 0: sra does not score (also when sra.enable is false)
  std::vector<WeightedResource> resources;
  int64_t weight_sum = 0;  // of every listed resource, found in the cluster or not
};

struct ProportionalResource {
  std::string name;
  double cpu = 1;     // cores kept free per unit of the resource
  double memory = 1;  // GB (10^9 bytes) kept free per unit of the resource
};

struct ProportionalSettings {
  bool enabled = false;
  std::vector<ProportionalResource> resources;
};

struct Settings {
  int64_t weight = 10;  // resourceStrategyFitWeight; 0 turns the strategy score off
  std::vector<ResourceRule> rules;
  SraSettings sra;
  ProportionalSettings proportional;
};

// Reads the plugin's arguments (NULL: every default). Throws
// std::invalid_argument naming the argument when an entry of `resources`
// or a key of proportional.resourceProportion is not one the plugin takes.
Settings read_settings(const scoria_args* args);

// The names in a comma-separated list, trimmed, empty ones left out.
std::vector<std::string> split_names(std::string_view list);

}  // namespace rsf

#endif  // SCORIA_RESOURCE_STRATEGY_FIT_SETTINGS_H
