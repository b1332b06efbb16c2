// The host's side of scoria_plugin_ctx: who a loaded shared object is, for
// log lines and error counts.
#pragma once

#include <scoria/scoria.h>

#include <atomic>
#include <cstdint>
#include <string>

struct scoria_plugin_ctx {
  std::string name;
  std::string file;
  std::atomic<uint64_t> errors{0};   // hooks that returned SCORIA_ERROR
  std::atomic<uint64_t> reports{0};  // report_error calls
};

namespace scoria::plugin {

/// Counts a failed hook of the plugin and logs it. Logging is throttled (the
/// 1st, 10th, 100th, ... occurrence) so a predicate failing on every node
/// cannot flood the log; the count is exact.
void count_error(const scoria_plugin_ctx* ctx, std::string_view message);

/// The plugin's own explanation (report_error): logged, throttled as above,
/// not counted (the failing return code is).
void report_error(const scoria_plugin_ctx* ctx, std::string_view message);

}  // namespace scoria::plugin
