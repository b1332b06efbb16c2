#include "cli/plugin_trial.h"

#include <string>
#include <vector>

#include "abi/host_api.h"
#include "plugin/trial_load.h"

namespace scoria::cli {

plugin::PluginRegistry::Trial plugin_trial() {
  std::vector<std::string> command = {plugin::program_path().string(), "trial-load"};
  return [command](const std::vector<std::filesystem::path>& files) {
    return plugin::trial_load(command, files, kPluginTrialLimit);
  };
}

int trial_load_command(std::span<const std::string_view> files) {
  return plugin::run_trial(abi::host_api(), files);
}

}  // namespace scoria::cli
