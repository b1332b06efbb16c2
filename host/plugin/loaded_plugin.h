// One loaded shared object: the library mapping, its descriptor and the
// context the host identifies it by. Shared by every instance it created,
// so the library stays mapped until the last of them is destroyed.
#pragma once

#include <scoria/scoria.h>

#include <boost/dll/shared_library.hpp>
#include <filesystem>
#include <memory>
#include <string>

#include "plugin/plugin_ctx.h"

namespace scoria::plugin {

class LoadedPlugin {
 public:
  // Declared first so it is destroyed last: nothing of the plugin's code may
  // run after the mapping is gone.
  boost::dll::shared_library library;
  std::unique_ptr<scoria_plugin_ctx> ctx;
  const scoria_descriptor* descriptor = nullptr;
  std::filesystem::path file;
  std::string sha256;  // of a private copy's bytes; empty when loaded from `file`
};

}  // namespace scoria::plugin
