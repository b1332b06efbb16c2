// scoria plugins: what the loader finds, and what it refused and why.
#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "cli/plugin_dirs.h"

namespace scoria::cli {

int plugins(std::span<const std::string_view> args) {
  std::vector<std::filesystem::path> dirs;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--plugin-dir" && i + 1 < args.size()) {
      dirs.emplace_back(args[++i]);
    } else {
      std::cerr << "scoria plugins: unexpected argument \"" << args[i]
                << "\"; usage: scoria plugins [--plugin-dir DIR]...\n";
      return 2;
    }
  }
  plugin::PluginRegistry registry;
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
