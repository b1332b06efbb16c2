// The `scoria` subcommands. Each returns the process exit code:
// 0 success, 1 failure while running, 2 bad input (usage, config, objects).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "plugin/plugin_registry.h"

namespace scoria::cli {

int simulate(std::span<const std::string_view> args);
// The commands that load plugin files take the trial each file goes
// through first (cli/plugin_trial.h): main() gives this executable's;
// without one (inside a test program) files are loaded directly.
int plugins(std::span<const std::string_view> args,
            const plugin::PluginRegistry::Trial& trial = {});
int check_config(std::span<const std::string_view> args,
                 const plugin::PluginRegistry::Trial& trial = {});
int serve(std::span<const std::string_view> args, const plugin::PluginRegistry::Trial& trial = {});
int ctl(std::span<const std::string_view> args);
int trace_command(std::span<const std::string_view> args);

/// "scoria 0.1.0 (plugin ABI 1.2)": what `scoria version` prints.
std::string version_line();

}  // namespace scoria::cli
