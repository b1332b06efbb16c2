// Loading a plugin runs its code: constructors and the entry point. A file
// that crashes, hangs or ends the process while loading would take the
// loader with it, so files are loaded first in a trial process, a fresh
// program of its own (not a fork: the loader may have threads holding
// locks), and refused there.
#pragma once

#include <scoria/scoria.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace scoria::plugin {

/// The descriptor the trial process writes a byte to after each file.
inline constexpr int kTrialProgressFd = 3;

/// Runs `command` (a program and its first arguments) with `files` appended;
/// it must load them in order and write a byte to kTrialProgressFd after
/// each (run_trial). Returns, file by file, nothing if it loaded there (or
/// was refused cleanly: the caller's own load reports that), else why it
/// must not be loaded: it crashed, ended the process, or took longer than
/// `limit`. After a bad file a new trial process goes on with the next. If
/// the trial cannot be started at all, nullopt: the caller loads as before.
std::optional<std::vector<std::optional<std::string>>> trial_load(
    const std::vector<std::string>& command, const std::vector<std::filesystem::path>& files,
    std::chrono::milliseconds limit);

/// The trial process's side: loads each of `files` in a registry of its
/// own served by `host`, writing a byte to kTrialProgressFd after each.
/// Returns the process's exit status.
int run_trial(const scoria_host_api* host, std::span<const std::string_view> files);

}  // namespace scoria::plugin
