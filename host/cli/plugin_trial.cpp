#include "cli/plugin_trial.h"

#include <unistd.h>

#include <string>
#include <vector>

#include "abi/host_api.h"
#include "plugin/trial_load.h"

namespace scoria::cli {

namespace {

/// This executable's path; empty if it cannot be read.
std::string this_executable() {
  std::string path(4096, '\0');
  const ssize_t n = ::readlink("/proc/self/exe", path.data(), path.size());
  if (n <= 0 || static_cast<size_t>(n) >= path.size()) return {};
  path.resize(static_cast<size_t>(n));
  return path;
}

}  // namespace

plugin::PluginRegistry::Trial plugin_trial() {
  std::vector<std::string> command;
  if (std::string exe = this_executable(); !exe.empty()) command = {std::move(exe), "trial-load"};
  return [command](const std::vector<std::filesystem::path>& files) {
    return plugin::trial_load(command, files, kPluginTrialLimit);
  };
}

int trial_load_command(std::span<const std::string_view> files) {
  return plugin::run_trial(abi::host_api(), files);
}

}  // namespace scoria::cli
