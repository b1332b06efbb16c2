#include "abi/guarded.h"

#include <string>

#include "log/log.h"

namespace scoria::abi {

void report_host_throw(std::atomic<bool>& logged, std::string_view signature,
                       const char* why) noexcept {
  if (logged.exchange(true)) return;
  try {
    // The adapter's name: gcc writes "... [with auto F = api_task_info;
    // ...]", clang "... [F = &(anonymous namespace)::api_task_info, ...]".
    std::string_view name = "a host function";
    if (const size_t at = signature.find("F = "); at != std::string_view::npos) {
      name = signature.substr(at + 4);
      name = name.substr(0, name.find_first_of(";,]"));
      if (const size_t scope = name.rfind("::"); scope != std::string_view::npos)
        name = name.substr(scope + 2);
      if (name.starts_with('&')) name.remove_prefix(1);
    }
    log::write(log::kError, "host",
               std::string(name) + ", called by a plugin, threw (" + why +
                   "); it answered its failure value instead. This is a bug in Scoria: please "
                   "report it with this line");
  } catch (...) {
    // Nothing may leave: the plugin's frame is below.
  }
}

}  // namespace scoria::abi
