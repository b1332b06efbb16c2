#include "cli/plugin_probe.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <thread>

#include "abi/host_api.h"
#include "plugin/plugin_registry.h"

namespace scoria::cli {

std::optional<std::string> probe_plugin(const std::filesystem::path& file,
                                        std::chrono::milliseconds limit) {
  const pid_t child = ::fork();
  if (child < 0) return std::nullopt;  // no probe: load it as before
  if (child == 0) {
    // The parent reports refusals; the child's lines would repeat them.
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) ::dup2(null, 2);
    plugin::PluginRegistry registry{scoria::abi::host_api()};
    registry.set_allow_writable(true);  // the parent has checked already
    registry.load(file);
    ::_exit(0);
  }
  const auto until = std::chrono::steady_clock::now() + limit;
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(child, &status, WNOHANG);
    if (done == child) break;
    if (done < 0) return std::nullopt;
    if (std::chrono::steady_clock::now() >= until) {
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
      return "did not finish loading within " + std::to_string(limit.count()) +
             "ms (in a trial process); not loaded";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFSIGNALED(status))
    return "crashed while loading (signal " + std::to_string(WTERMSIG(status)) + ", " +
           ::strsignal(WTERMSIG(status)) + ", in a trial process); not loaded";
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
    return "ended the process while loading (exit " + std::to_string(WEXITSTATUS(status)) +
           ", in a trial process); not loaded";
  return std::nullopt;
}

}  // namespace scoria::cli
