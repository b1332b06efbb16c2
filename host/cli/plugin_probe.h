// `scoria plugins` lists every .so in the plugin directories, which means
// running each one's constructors and entry point. A file that crashes or
// hangs while loading is tried first in a child process, so the listing
// survives it and names it.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

namespace scoria::cli {

/// Loads `file` in a child process. Nothing if it loaded or was refused
/// cleanly (the parent then loads it and reports the refusal itself); else
/// why it must not be loaded here: it crashed, or took longer than `limit`.
std::optional<std::string> probe_plugin(const std::filesystem::path& file,
                                        std::chrono::milliseconds limit);

}  // namespace scoria::cli
