#include "cli/plugin_dirs.h"

#include <iostream>

namespace scoria::cli {

void scan_plugins(plugin::PluginRegistry& registry,
                  const std::vector<std::filesystem::path>& extra) {
  std::vector<std::filesystem::path> dirs = extra;
  auto builtin = plugin::default_plugin_dir();
  std::error_code ec;
  if (std::filesystem::is_directory(builtin, ec)) dirs.push_back(builtin.lexically_normal());
  registry.scan(dirs);
}

}  // namespace scoria::cli
