// scoria check-config: parse a config and resolve every name it uses against
// the plugins the loader finds, without scheduling anything.
#include <iostream>

#include "abi/host_api.h"
#include "cli/commands.h"
#include "config/scheduler_config.h"
#include "model/error.h"
#include "plugin/plugin_dirs.h"
#include "scheduler/scheduler.h"

namespace scoria::cli {

namespace {

constexpr const char* kCheckConfigUsage =
    "usage: scoria check-config CONF [--plugin-dir DIR]...\n"
    "  Reads a scheduler config (TOML, or Volcano's YAML as it is) and checks that\n"
    "  every action and plugin it names is found and loads: one line (\"ok\", with\n"
    "  the counts), or each problem with its place and fix, and exit 2.\n";

}  // namespace

int check_config(std::span<const std::string_view> args,
                 const plugin::PluginRegistry::Trial& trial) {
  std::string file;
  std::vector<std::filesystem::path> dirs;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--plugin-dir" && i + 1 < args.size())
      dirs.emplace_back(args[++i]);
    else if (args[i] == "-h" || args[i] == "--help") {
      std::cout << kCheckConfigUsage;
      return 0;
    } else if (file.empty() && !args[i].starts_with("-"))
      file = args[i];
    else {
      std::cerr << "usage: scoria check-config CONF [--plugin-dir DIR]...\n";
      return 2;
    }
  }
  if (file.empty()) {
    std::cerr << "usage: scoria check-config CONF [--plugin-dir DIR]...\n";
    return 2;
  }
  try {
    config::SchedulerConfig conf = config::load_config(file);
    dirs.insert(dirs.end(), conf.plugin_dirs.begin(), conf.plugin_dirs.end());
    plugin::PluginRegistry registry{scoria::abi::host_api()};
    // Checking runs every file's code: one that crashes or hangs is found
    // in a trial process and refused, as serve refuses it.
    registry.set_trial(trial);
    plugin::scan_plugins(registry, dirs);
    scheduler::Scheduler sched(registry, conf, 1);
    size_t plugins = 0;
    for (const auto& t : conf.tiers) plugins += t.plugins.size();
    std::cout << file << ": ok (" << conf.actions.size() << " actions, " << conf.tiers.size()
              << " tiers, " << plugins << " plugins)\n";
    return 0;
  } catch (const InputError& e) {
    std::cerr << "scoria: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace scoria::cli
