// Plugin files are loaded first in a trial process (plugin/trial_load.h):
// this executable again, as `scoria trial-load FILE...`, an internal
// command that loads the files and reports its progress.
#pragma once

#include <chrono>
#include <span>
#include <string_view>

#include "plugin/plugin_registry.h"

namespace scoria::cli {

/// How long a file may take to load in the trial before it is refused.
inline constexpr std::chrono::milliseconds kPluginTrialLimit{10000};

/// A registry's trial that runs this executable's trial-load command: for
/// main() only, as no other program has that command.
plugin::PluginRegistry::Trial plugin_trial();

/// `scoria trial-load FILE...`: the trial process's side.
int trial_load_command(std::span<const std::string_view> files);

}  // namespace scoria::cli
