#include "serve/loaded_config.h"

#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "abi/host_api.h"
#include "config/scheduler_config.h"
#include "log/log.h"
#include "model/error.h"
#include "plugin/plugin_dirs.h"

namespace scoria::serve {

LoadedConfig load_config_and_plugins(const ServeOptions& options) {
  config::SchedulerConfig conf = config::load_config(options.config);
  const auto& sampling = options.nodes_to_find;
  if (sampling.min_nodes) conf.min_nodes_to_find = static_cast<int32_t>(*sampling.min_nodes);
  if (sampling.min_percentage)
    conf.min_percentage_of_nodes_to_find = static_cast<int32_t>(*sampling.min_percentage);
  if (sampling.percentage)
    conf.percentage_of_nodes_to_find = static_cast<int32_t>(*sampling.percentage);
  conf.sharding = options.sharding;
  conf.queue_admission_gates = options.queue_admission_gates;
  std::vector<std::filesystem::path> dirs = options.plugin_dirs;
  dirs.insert(dirs.end(), conf.plugin_dirs.begin(), conf.plugin_dirs.end());
  for (const auto& dir : dirs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
      throw InputError("plugin directory " + dir.string() +
                       " does not exist (named by --plugin-dir or the config's plugin_dirs)");
  }
  for (const auto& dir : plugin::default_plugin_dirs()) dirs.push_back(dir);
  std::vector<std::string> names = conf.actions;
  for (const auto& tier : conf.tiers)
    for (const auto& option : tier.plugins) names.push_back(option.name);
  LoadedConfig loaded;
  loaded.registry = std::make_unique<plugin::PluginRegistry>(abi::host_api());
  loaded.registry->set_allow_writable(options.allow_writable_plugins);
  // So that a reload takes a new build installed over an old one.
  loaded.registry->set_private_copies(true);
  // A file that crashes or hangs while loading is refused in a trial
  // process, not left to end the service or wedge its loop.
  if (options.plugin_trial) loaded.registry->set_trial(options.plugin_trial);
  loaded.registry->load_named(dirs, names);
  loaded.scheduler = std::make_shared<scheduler::Scheduler>(*loaded.registry, std::move(conf));
  return loaded;
}

void log_plugin_upgrades(const plugin::PluginRegistry& before,
                         const plugin::PluginRegistry& after) {
  const auto short_sha = [](const std::string& sha) { return sha.substr(0, 12); };
  for (const plugin::PluginInfo& now : after.list())
    for (const plugin::PluginInfo& was : before.list()) {
      if (was.name != now.name || was.sha256 == now.sha256 || was.sha256.empty() ||
          now.sha256.empty())
        continue;
      log::write(log::kInfo, "serve",
                 "plugin " + now.name + " reloaded from a new build of " + now.file.string() +
                     ": version " + was.version + " (sha256 " + short_sha(was.sha256) + ") -> " +
                     now.version + " (sha256 " + short_sha(now.sha256) + ")");
    }
}

}  // namespace scoria::serve
