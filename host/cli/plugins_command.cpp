// scoria plugins: what the loader finds, and what it refused and why; with
// --describe, what one plugin takes. Unlike serve, it loads every file in
// the directories (that is what it is for), each tried in a child process
// first.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "abi/host_api.h"
#include "cli/commands.h"
#include "plugin/plugin_dirs.h"

namespace scoria::cli {

namespace {

using nlohmann::json;

constexpr const char* kPluginsUsage =
    "usage: scoria plugins [--plugin-dir DIR]... [--describe NAME] [--output table|json]\n"
    "  Lists the actions and plugins found in the plugin directories (--plugin-dir,\n"
    "  then the built-in one, then /usr/local/lib/scoria/plugins for third-party\n"
    "  plugins): name, kind, version, ABI, file and description; and each file\n"
    "  refused, with why. Every file is tried in a child process first, so one that\n"
    "  crashes or hangs when loaded is listed as refused.\n"
    "  --describe NAME   one action or plugin: what it is and every argument it takes\n"
    "                    (type, default, accepted values, help), as a config gives them\n"
    "  --output json     the same as JSON, for tools (a list, or one object with\n"
    "                    --describe)\n";

std::string abi(const plugin::PluginInfo& p) {
  return std::to_string(p.abi_major) + "." + std::to_string(p.abi_minor);
}
const char* kind(const plugin::PluginInfo& p) {
  return p.kind == SCORIA_KIND_ACTION ? "action" : "plugin";
}

json to_json(const plugin::PluginInfo& p) {
  json out = {{"name", p.name},
              {"kind", kind(p)},
              {"version", p.version},
              {"abi", abi(p)},
              {"description", p.description},
              {"file", p.file.lexically_normal().string()},
              {"arguments_declared", p.arguments.has_value()}};
  json args = json::array();
  for (const auto& a : p.arguments.value_or(std::vector<plugin::ArgSpec>{})) {
    json item = {{"name", a.name},
                 {"type", plugin::type_name(a.type)},
                 {"default", a.default_value ? json(*a.default_value) : json(nullptr)},
                 {"accepts", plugin::accepted_form(a)},
                 {"help", a.help}};
    if (!a.allowed.empty()) item["allowed"] = a.allowed;
    if (a.min) item["min"] = *a.min;
    if (a.max) item["max"] = *a.max;
    args.push_back(std::move(item));
  }
  out["arguments"] = std::move(args);
  return out;
}

void describe(const plugin::PluginInfo& p) {
  std::printf("%s (%s %s, ABI %s)\n", p.name.c_str(), kind(p), p.version.c_str(), abi(p).c_str());
  if (!p.description.empty()) std::printf("  %s\n", p.description.c_str());
  std::printf("  file: %s\n\n", p.file.lexically_normal().c_str());
  if (!p.arguments) {
    std::printf(
        "It does not declare its arguments (built for ABI %s, or without "
        "SCORIA_FLAG_DECLARES_ARGS):\nthe host passes whatever the config gives it, unchecked.\n",
        abi(p).c_str());
    return;
  }
  if (p.arguments->empty()) {
    std::printf("It takes no arguments; the host refuses a config that gives it any.\n");
    return;
  }
  size_t name_w = 8, type_w = 4, default_w = 7;
  for (const auto& a : *p.arguments) {
    name_w = std::max(name_w, a.name.size());
    type_w = std::max(type_w, plugin::type_name(a.type).size());
    default_w = std::max(default_w, a.default_value ? a.default_value->size() : 1);
  }
  const auto row = [&](std::string_view n, std::string_view t, std::string_view d,
                       std::string_view takes) {
    std::printf("%-*.*s  %-*.*s  %-*.*s  %.*s\n", static_cast<int>(name_w),
                static_cast<int>(n.size()), n.data(), static_cast<int>(type_w),
                static_cast<int>(t.size()), t.data(), static_cast<int>(default_w),
                static_cast<int>(d.size()), d.data(), static_cast<int>(takes.size()), takes.data());
  };
  row("ARGUMENT", "TYPE", "DEFAULT", "TAKES");
  for (const auto& a : *p.arguments) {
    row(a.name, plugin::type_name(a.type), a.default_value.value_or("-"), plugin::accepted_form(a));
    if (!a.help.empty())
      std::printf("%*s%.*s\n", 4, "", static_cast<int>(a.help.size()), a.help.data());
  }
}

}  // namespace

int plugins(std::span<const std::string_view> args, const plugin::PluginRegistry::Trial& trial) {
  std::vector<std::filesystem::path> dirs;
  std::optional<std::string> name;
  bool as_json = false;
  const auto usage_error = [](std::string_view what) {
    std::cerr << "scoria plugins: " << what
              << "; usage: scoria plugins [--plugin-dir DIR]... [--describe NAME] "
                 "[--output table|json]\n";
    return 2;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--plugin-dir" && i + 1 < args.size()) {
      dirs.emplace_back(args[++i]);
    } else if (args[i] == "--describe" && i + 1 < args.size()) {
      name = std::string(args[++i]);
    } else if (args[i] == "--output" && i + 1 < args.size()) {
      const std::string_view v = args[++i];
      if (v != "json" && v != "table")
        return usage_error("--output takes table or json, not \"" + std::string(v) + "\"");
      as_json = v == "json";
    } else if (args[i] == "-h" || args[i] == "--help") {
      std::cout << kPluginsUsage;
      return 0;
    } else {
      return usage_error("unexpected argument \"" + std::string(args[i]) + "\"");
    }
  }
  plugin::PluginRegistry registry{scoria::abi::host_api()};
  // Listing runs every file's code: a file that crashes or hangs is found
  // in a trial process first and listed as refused.
  registry.set_trial(trial);
  plugin::scan_plugins(registry, dirs);
  const std::vector<plugin::PluginInfo> found = registry.list();

  if (name) {
    const auto it = std::find_if(found.begin(), found.end(),
                                 [&](const plugin::PluginInfo& p) { return p.name == *name; });
    if (it == found.end()) {
      std::string names;
      for (const auto& p : found) names += (names.empty() ? "" : ", ") + p.name;
      std::cerr << "scoria plugins: no action or plugin \"" << *name
                << "\" in the plugin directories; found: " << (names.empty() ? "none" : names)
                << ". Add its directory with --plugin-dir\n";
      return 2;
    }
    if (as_json)
      std::cout << to_json(*it).dump(2) << "\n";
    else
      describe(*it);
    return 0;
  }

  if (as_json) {
    json out = {{"plugins", json::array()}, {"refused", json::array()}};
    for (const auto& p : found) out["plugins"].push_back(to_json(p));
    for (const auto& r : registry.refusals())
      out["refused"].push_back({{"file", r.file.string()}, {"message", r.message}});
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::printf("%-14s %-7s %-9s %-5s %-44s %s\n", "NAME", "KIND", "VERSION", "ABI", "FILE",
              "DESCRIPTION");
  for (const auto& p : found)
    std::printf("%-14s %-7s %-9s %-5s %-44s %s\n", p.name.c_str(), kind(p), p.version.c_str(),
                abi(p).c_str(), p.file.lexically_normal().c_str(), p.description.c_str());
  for (const auto& r : registry.refusals()) std::printf("refused: %s\n", r.message.c_str());
  return 0;
}

}  // namespace scoria::cli
