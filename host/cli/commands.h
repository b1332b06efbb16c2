// The `scoria` subcommands. Each returns the process exit code:
// 0 success, 1 failure while running, 2 bad input (usage, config, objects).
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace scoria::cli {

int simulate(std::span<const std::string_view> args);
int plugins(std::span<const std::string_view> args);
int check_config(std::span<const std::string_view> args);
int serve(std::span<const std::string_view> args);
int ctl(std::span<const std::string_view> args);
int trace_command(std::span<const std::string_view> args);

/// "scoria 0.1.0 (plugin ABI 1.2)": what `scoria version` prints.
std::string version_line();

}  // namespace scoria::cli
