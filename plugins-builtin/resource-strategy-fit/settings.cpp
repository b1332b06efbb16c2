#include "settings.h"

#include <scoria/scoria.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>

namespace rsf {

namespace {

using scoria::api;
using scoria::log_line;

constexpr std::string_view kResources = "resources.";
constexpr std::string_view kSraWeights = "sra.resourceWeight.";
constexpr std::string_view kProportions = "proportional.resourceProportion.";

std::string quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> keys(const scoria_args* args) {
  std::vector<std::string_view> out;
  const size_t n = api().args_count(args);
  for (size_t i = 0; i < n; ++i) out.push_back(scoria::view(api().args_key_at(args, i)));
  return out;
}

std::string text(const scoria_args* args, std::string_view key) {
  return scoria::arg_string(args, key).value_or("");
}

[[noreturn]] void refuse(std::string_view key, std::string_view problem) {
  throw std::invalid_argument("argument " + quote(key) + " " + std::string(problem));
}

constexpr std::string_view kResourceForm =
    "; each entry of resources is a map: resources.<resource>.type (LeastAllocated or "
    "MostAllocated) and resources.<resource>.weight (a whole number of at least 1)";

// Volcano drops a pattern it cannot match (a lone "*", a "*" that is not
// last, or two of them) with a warning; a config that names one surely
// meant something else, so it is refused instead.
void check_pattern(std::string_view key, std::string_view name) {
  const size_t stars = static_cast<size_t>(std::count(name.begin(), name.end(), '*'));
  if (stars == 0) return;
  if (name == "*")
    refuse(key,
           "names the resource \"*\"; a lone \"*\" is not supported as a default strategy: name "
           "a prefix such as cloudml.gpu/*");
  if (stars > 1 || name.back() != '*')
    refuse(key, "names the resource pattern " + quote(name) +
                    "; only one \"*\", at the end, is supported (cloudml.gpu/*)");
}

std::vector<ResourceRule> read_rules(const scoria_args* args) {
  struct Entry {
    std::optional<Strategy> type;
    std::optional<int64_t> weight;
  };
  std::map<std::string, Entry, std::less<>> entries;  // by name: a stable order
  for (std::string_view key : keys(args)) {
    if (!key.starts_with(kResources)) continue;
    const std::string_view rest = key.substr(kResources.size());
    const size_t dot = rest.rfind('.');
    const std::string_view field = dot == std::string_view::npos ? "" : rest.substr(dot + 1);
    const std::string_view name = dot == std::string_view::npos ? "" : rest.substr(0, dot);
    if (name.empty() || (field != "type" && field != "weight"))
      refuse(key, "(" + quote(text(args, key)) + ") is not one resource-strategy-fit takes" +
                      std::string(kResourceForm));
    check_pattern(key, name);
    Entry& e = entries[std::string(name)];
    if (field == "type") {
      const std::string value = text(args, key);
      if (value == "LeastAllocated")
        e.type = Strategy::LeastAllocated;
      else if (value == "MostAllocated")
        e.type = Strategy::MostAllocated;
      else
        refuse(key, "is " + quote(value) +
                        ", not a strategy resource-strategy-fit takes: write LeastAllocated or "
                        "MostAllocated (Volcano would score it as LeastAllocated)");
    } else {
      int64_t weight = 0;
      const scoria_code rc = api().args_get_int(args, scoria::str(key), &weight);
      if (rc != SCORIA_OK)
        refuse(key, "is " + quote(text(args, key)) + ", not a whole number" +
                        std::string(kResourceForm));
      // Volcano turns a weight of 0 or less into 1; written so, it surely
      // meant something else (0 would read as "leave the resource out").
      if (weight < 1)
        refuse(key, "is " + quote(text(args, key)) +
                        ", below its minimum 1; a resource's weight is a whole number of at "
                        "least 1 (to leave a resource out, remove its entry)");
      e.weight = weight;
    }
  }
  std::vector<ResourceRule> rules;
  for (const auto& [name, e] : entries)
    rules.push_back({name, e.type.value_or(Strategy::LeastAllocated), e.weight.value_or(1)});
  if (rules.empty())  // Volcano's default when `resources` is absent or empty
    rules = {{"cpu", Strategy::LeastAllocated, 1}, {"memory", Strategy::LeastAllocated, 1}};
  return rules;
}

// A weight given for a resource the list does not name has no effect, as in
// Volcano; say so, since it is most likely a misspelt name.
void warn_unlisted(const scoria_args* args, std::string_view prefix,
                   const std::vector<std::string>& listed, std::string_view list_arg) {
  for (std::string_view key : keys(args)) {
    if (!key.starts_with(prefix)) continue;
    std::string_view name = key.substr(prefix.size());
    if (prefix == kProportions) name = name.substr(0, name.rfind('.'));
    if (std::find(listed.begin(), listed.end(), name) == listed.end())
      log_line(SCORIA_LOG_WARNING, "argument ", key, " has no effect: ", name, " is not in ",
               list_arg);
  }
}

SraSettings read_sra(const scoria_args* args) {
  SraSettings sra;
  if (!scoria::arg_bool(args, "sra.enable", false)) return sra;
  sra.weight = scoria::arg_int(args, "sra.weight", 0);
  const std::vector<std::string> names = split_names(text(args, "sra.resources"));
  for (const std::string& name : names) {
    const int64_t weight = scoria::arg_int(args, std::string(kSraWeights) + name, 1);
    sra.resources.push_back({name, weight});
    sra.weight_sum += weight;
  }
  warn_unlisted(args, kSraWeights, names, "sra.resources");
  if (sra.weight == 0)
    log_line(SCORIA_LOG_WARNING,
             "sra.enable is true but sra.weight is 0 (Volcano's default): sra scores nothing; "
             "give sra.weight");
  return sra;
}

ProportionalSettings read_proportional(const scoria_args* args) {
  // Only <resource>.cpu and <resource>.memory mean anything; Volcano ignores
  // any other key, which is most likely a typo.
  for (std::string_view key : keys(args))
    if (key.starts_with(kProportions) && !key.ends_with(".cpu") && !key.ends_with(".memory"))
      refuse(key,
             "is not one resource-strategy-fit takes: write "
             "proportional.resourceProportion.<resource>.cpu (cores kept free per unit of the "
             "resource) or .memory (GB kept free per unit)");
  ProportionalSettings p;
  p.enabled = scoria::arg_bool(args, "proportional.enable", false);
  if (!p.enabled) return p;
  const std::vector<std::string> names = split_names(text(args, "proportional.resources"));
  for (const std::string& name : names) {
    const std::string key = std::string(kProportions) + name;
    p.resources.push_back({name, scoria::arg_float(args, key + ".cpu", 1),
                           scoria::arg_float(args, key + ".memory", 1)});
  }
  warn_unlisted(args, kProportions, names, "proportional.resources");
  return p;
}

}  // namespace

std::string_view strategy_name(Strategy s) {
  switch (s) {
    case Strategy::LeastAllocated:
      return "LeastAllocated";
    case Strategy::MostAllocated:
      return "MostAllocated";
    default:
      return "other";
  }
}

const ResourceRule* find_rule(const std::vector<ResourceRule>& rules, std::string_view resource) {
  const ResourceRule* best = nullptr;
  for (const ResourceRule& r : rules) {
    if (!r.wildcard()) {
      if (r.pattern == resource) return &r;
      continue;
    }
    if (resource.starts_with(r.prefix()) &&
        (best == nullptr || r.prefix().size() > best->prefix().size()))
      best = &r;
  }
  return best;
}

std::vector<std::string> split_names(std::string_view list) {
  std::vector<std::string> out;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    const std::string_view name = trim(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    // A name listed twice counts once (Volcano would add its weight twice to
    // the sum, halving what the resource is worth).
    if (!name.empty() && std::find(out.begin(), out.end(), name) == out.end())
      out.emplace_back(name);
  }
  return out;
}

Settings read_settings(const scoria_args* args) {
  Settings s;
  if (args == nullptr) {
    s.rules = {{"cpu", Strategy::LeastAllocated, 1}, {"memory", Strategy::LeastAllocated, 1}};
    return s;
  }
  // The host has checked resourceStrategyFitWeight (a whole number of at
  // least 0) and passes its default when the config leaves it out.
  s.weight = scoria::arg_int(args, "resourceStrategyFitWeight", s.weight);
  s.rules = read_rules(args);
  s.sra = read_sra(args);
  s.proportional = read_proportional(args);
  return s;
}

}  // namespace rsf
