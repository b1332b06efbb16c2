#include "plugin/plugin_dirs.h"

#include <iostream>

namespace scoria::plugin {

void scan_plugins(plugin::PluginRegistry& registry,
                  const std::vector<std::filesystem::path>& extra) {
  std::vector<std::filesystem::path> dirs = extra;
  for (const auto& dir : plugin::default_plugin_dirs()) dirs.push_back(dir);
  registry.scan(dirs);
}

}  // namespace scoria::plugin
