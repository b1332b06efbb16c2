// scoria plugins: what the loader finds, and what it refused and why.
// Unlike serve, it loads every file in the directories (that is what it is
// for), each tried in a child process first.
#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "cli/plugin_dirs.h"
#include "cli/plugin_probe.h"

namespace scoria::cli {

namespace {

constexpr const char* kPluginsUsage =
    "usage: scoria plugins [--plugin-dir DIR]...\n"
    "  Lists the actions and plugins found in the plugin directories (--plugin-dir,\n"
    "  then the built-in one, then /usr/local/lib/scoria/plugins for third-party\n"
    "  plugins): name, kind, version, ABI and file; and each file\n"
    "  refused, with why. Every file is tried in a child process first, so one that\n"
    "  crashes or hangs when loaded is listed as refused.\n";

}  // namespace

int plugins(std::span<const std::string_view> args) {
  std::vector<std::filesystem::path> dirs;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--plugin-dir" && i + 1 < args.size()) {
      dirs.emplace_back(args[++i]);
    } else if (args[i] == "-h" || args[i] == "--help") {
      std::cout << kPluginsUsage;
      return 0;
    } else {
      std::cerr << "scoria plugins: unexpected argument \"" << args[i]
                << "\"; usage: scoria plugins [--plugin-dir DIR]...\n";
      return 2;
    }
  }
  plugin::PluginRegistry registry;
  // Listing runs every file's code: a file that crashes or hangs is found
  // in a trial process first and listed as refused.
  registry.set_probe([](const std::filesystem::path& file) {
    return probe_plugin(file, std::chrono::seconds(10));
  });
  scan_plugins(registry, dirs);
  std::printf("%-14s %-7s %-9s %-5s %s\n", "NAME", "KIND", "VERSION", "ABI", "FILE");
  for (const auto& p : registry.list())
    std::printf("%-14s %-7s %-9s %u.%-3u %s\n", p.name.c_str(),
                p.kind == SCORIA_KIND_ACTION ? "action" : "plugin", p.version.c_str(), p.abi_major,
                p.abi_minor, p.file.lexically_normal().c_str());
  for (const auto& r : registry.refusals()) std::printf("refused: %s\n", r.message.c_str());
  return 0;
}

}  // namespace scoria::cli
