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
  std::atomic<uint64_t> errors{0};
};

namespace scoria::plugin {

/// Logs `message` as an error of the plugin and counts it.
void count_error(const scoria_plugin_ctx* ctx, std::string_view message);

}  // namespace scoria::plugin
