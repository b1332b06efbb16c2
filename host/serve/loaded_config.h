// What a start or a reload of `serve` loads: the config its options name
// and the plugins that config names, nothing else from the plugin
// directories.
#pragma once

#include <memory>

#include "plugin/plugin_registry.h"
#include "scheduler/scheduler.h"
#include "serve/service.h"

namespace scoria::serve {

struct LoadedConfig {
  std::unique_ptr<plugin::PluginRegistry> registry;
  std::shared_ptr<scheduler::Scheduler> scheduler;
};

/// The config `options` names, with the command line's overrides, and the
/// plugins it names, each through `options.plugin_trial` first and loaded
/// from a private copy of its bytes. Throws InputError if either is bad.
/// Safe off the event loop: it touches nothing of a running service.
LoadedConfig load_config_and_plugins(const ServeOptions& options);

/// Logs each plugin whose build changed from `before` to `after`, old and
/// new version and sha256.
void log_plugin_upgrades(const plugin::PluginRegistry& before, const plugin::PluginRegistry& after);

}  // namespace scoria::serve
