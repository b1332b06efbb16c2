// What `scoria version` prints. In the library, not in main.cpp, because
// `scoria serve --version` prints it too.
#include <scoria/scoria.h>

#include <string>

#include "cli/commands.h"

std::string scoria::cli::version_line() {
  return "scoria 0.1.0 (plugin ABI " + std::to_string(SCORIA_ABI_VERSION_MAJOR) + "." +
         std::to_string(SCORIA_ABI_VERSION_MINOR) + ")";
}
