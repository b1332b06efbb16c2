#include "config/config_changes.h"

#include <map>
#include <utility>
#include <vector>

namespace scoria::config {

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "(none)" : out;
}

/// Each plugin by name: its tier (1-based) and options.
std::map<std::string, std::pair<size_t, const PluginOption*>> plugins_of(const SchedulerConfig& c) {
  std::map<std::string, std::pair<size_t, const PluginOption*>> out;
  for (size_t t = 0; t < c.tiers.size(); ++t)
    for (const PluginOption& p : c.tiers[t].plugins) out.try_emplace(p.name, t + 1, &p);
  return out;
}

void describe_arguments(const std::string& owner, const Arguments& before, const Arguments& after,
                        std::vector<std::string>& out) {
  for (const auto& [key, value] : after) {
    const auto was = before.find(key);
    if (was == before.end())
      out.push_back(owner + " argument " + key + " = " + value + " added");
    else if (was->second != value)
      out.push_back(owner + " argument " + key + " " + was->second + " -> " + value);
  }
  for (const auto& [key, value] : before)
    if (!after.contains(key)) out.push_back(owner + " argument " + key + " removed");
}

}  // namespace

std::string describe_changes(const SchedulerConfig& before, const SchedulerConfig& after) {
  std::vector<std::string> out;
  if (before.actions != after.actions)
    out.push_back("actions " + joined(before.actions) + " -> " + joined(after.actions));
  const auto old_plugins = plugins_of(before);
  const auto new_plugins = plugins_of(after);
  for (const auto& [name, at] : new_plugins) {
    const auto was = old_plugins.find(name);
    if (was == old_plugins.end()) {
      out.push_back("plugin " + name + " added (tier " + std::to_string(at.first) + ")");
      continue;
    }
    if (was->second.first != at.first)
      out.push_back("plugin " + name + " moved from tier " + std::to_string(was->second.first) +
                    " to tier " + std::to_string(at.first));
    const PluginOption& o = *was->second.second;
    const PluginOption& n = *at.second;
    for (size_t f = 0; f < kFlagCount; ++f) {
      const Flag flag = static_cast<Flag>(f);
      if (o.enabled(flag) != n.enabled(flag))
        out.push_back("plugin " + name + " enable" + std::string(flag_name(flag)) + " " +
                      (o.enabled(flag) ? "true" : "false") + " -> " +
                      (n.enabled(flag) ? "true" : "false"));
    }
    describe_arguments("plugin " + name, o.arguments, n.arguments, out);
  }
  for (const auto& [name, at] : old_plugins)
    if (!new_plugins.contains(name))
      out.push_back("plugin " + name + " removed (was in tier " + std::to_string(at.first) + ")");
  for (const auto& [action, args] : after.action_arguments) {
    const auto was = before.action_arguments.find(action);
    describe_arguments("action " + action,
                       was == before.action_arguments.end() ? Arguments() : was->second, args, out);
  }
  for (const auto& [action, args] : before.action_arguments)
    if (!after.action_arguments.contains(action))
      describe_arguments("action " + action, args, Arguments(), out);
  const auto setting = [&](const char* name, int64_t was, int64_t now) {
    if (was != now)
      out.push_back(std::string(name) + " " + std::to_string(was) + " -> " + std::to_string(now));
  };
  setting("schedule_period_ms", before.schedule_period_ms, after.schedule_period_ms);
  setting("min_nodes_to_find", before.min_nodes_to_find, after.min_nodes_to_find);
  setting("min_percentage_of_nodes_to_find", before.min_percentage_of_nodes_to_find,
          after.min_percentage_of_nodes_to_find);
  setting("percentage_of_nodes_to_find", before.percentage_of_nodes_to_find,
          after.percentage_of_nodes_to_find);
  if (before.equivalence_cache != after.equivalence_cache)
    out.push_back(std::string("equivalence_cache ") +
                  (before.equivalence_cache ? "true" : "false") + " -> " +
                  (after.equivalence_cache ? "true" : "false"));
  if (before.plugin_dirs != after.plugin_dirs) {
    std::vector<std::string> was, now;
    for (const auto& d : before.plugin_dirs) was.push_back(d.string());
    for (const auto& d : after.plugin_dirs) now.push_back(d.string());
    out.push_back("plugin_dirs " + joined(was) + " -> " + joined(now));
  }
  if (out.empty()) return "nothing changed";
  std::string text;
  for (const std::string& line : out) text += (text.empty() ? "" : "; ") + line;
  return text;
}

}  // namespace scoria::config
