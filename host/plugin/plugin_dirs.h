// Which plugin directories a command scans: those named on the command line
// (--plugin-dir), then the config's plugin_dirs, then the built-in one and
// /usr/local/lib/scoria/plugins.
#pragma once

#include <filesystem>
#include <vector>

#include "plugin/plugin_registry.h"

namespace scoria::plugin {

/// Scans `extra` then the default directories into `registry`, and prints a
/// warning line per refused file to standard error.
void scan_plugins(plugin::PluginRegistry& registry,
                  const std::vector<std::filesystem::path>& extra);

}  // namespace scoria::plugin
