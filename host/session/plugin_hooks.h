// What a session holds of each plugin of its tiers.
#pragma once

#include <scoria/scoria.h>

#include <atomic>
#include <cstdint>
#include <string>

#include "config/scheduler_config.h"

namespace scoria::session {

/// Hooks of one plugin in one tier, with the config flags that gate them.
struct PluginHooks {
  std::string name;
  const char* mark = "";  // name, kept for the process's life (plugin::InPlugin)
  const config::PluginOption* option = nullptr;
  scoria_plugin_ctx* ctx = nullptr;
  scoria_hooks hooks{};
  bool serial = false;  // SCORIA_FLAG_SERIAL_HOOKS
  // Its arguments as its instance received them (declared defaults
  // included); null when unknown. Read only to explain a placement.
  const config::Arguments* arguments = nullptr;
  // The reason shown for nodes this plugin's failing predicate refused.
  uint32_t failed_reason = 0;
  // Hooks (bits of plugin_answers.h's Answer) whose undefined answer was
  // logged this session; updated through std::atomic_ref by worker threads.
  alignas(std::atomic_ref<uint32_t>::required_alignment) uint32_t undefined_logged = 0;
};

}  // namespace scoria::session
