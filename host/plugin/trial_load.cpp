#include "plugin/trial_load.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <utility>

#include "plugin/plugin_registry.h"

extern char** environ;

namespace scoria::plugin {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

/// A pipe whose ends close with it.
struct Pipe {
  int read = -1, write = -1;
  Pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) == 0) read = fds[0], write = fds[1];
  }
  ~Pipe() {
    close_write();
    if (read >= 0) ::close(read);
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  void close_write() {
    if (write >= 0) ::close(write);
    write = -1;
  }
};

/// One trial process loading files[from..]: how many it loaded before it
/// ended or was stopped, and why it stopped short (nothing if it did not).
struct TrialRun {
  size_t loaded = 0;
  std::optional<std::string> stopped;
};

std::optional<TrialRun> run_one(const std::vector<std::string>& command,
                                const std::vector<fs::path>& files, size_t from,
                                std::chrono::milliseconds limit) {
  Pipe progress;
  if (progress.read < 0) return std::nullopt;
  std::vector<std::string> args = command;
  for (size_t i = from; i < files.size(); ++i) args.push_back(files[i].string());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // The parent reports refusals; the trial's own lines would repeat them.
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  // dup2 leaves the copy open across exec; both pipe ends close there.
  posix_spawn_file_actions_adddup2(&actions, progress.write, kTrialProgressFd);
  pid_t child = -1;
  const int spawned = ::posix_spawn(&child, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return std::nullopt;
  progress.close_write();

  TrialRun run;
  Clock::time_point until = Clock::now() + limit;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
    pollfd p{progress.read, POLLIN, 0};
    const int ready = left.count() > 0 ? ::poll(&p, 1, static_cast<int>(left.count()) + 1) : 0;
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      ::kill(child, SIGKILL);
      ::waitpid(child, nullptr, 0);
      run.stopped = "did not finish loading within " + std::to_string(limit.count()) +
                    "ms (in a trial process); not loaded";
      return run;
    }
    char bytes[256];
    const ssize_t n = ::read(progress.read, bytes, sizeof bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the trial ended
    run.loaded += static_cast<size_t>(n);
    until = Clock::now() + limit;  // each file has the whole limit
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (from + run.loaded >= files.size()) return run;
  if (WIFSIGNALED(status))
    run.stopped = "crashed while loading (signal " + std::to_string(WTERMSIG(status)) + ", " +
                  ::strsignal(WTERMSIG(status)) + ", in a trial process); not loaded";
  else
    run.stopped = "ended the process while loading (exit " +
                  std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                  ", in a trial process); not loaded";
  return run;
}

}  // namespace

std::optional<std::vector<std::optional<std::string>>> trial_load(
    const std::vector<std::string>& command, const std::vector<fs::path>& files,
    std::chrono::milliseconds limit) {
  std::vector<std::optional<std::string>> verdicts(files.size());
  if (command.empty()) return std::nullopt;
  for (size_t next = 0; next < files.size();) {
    std::optional<TrialRun> run = run_one(command, files, next, limit);
    if (!run) {
      if (next == 0) return std::nullopt;
      break;  // the rest load as they would without a trial
    }
    next += run->loaded;
    if (!run->stopped) break;
    verdicts[next] = std::move(run->stopped);
    ++next;
  }
  return verdicts;
}

int run_trial(const scoria_host_api* host, std::span<const std::string_view> files) {
  PluginRegistry registry{host};
  registry.set_allow_writable(true);  // the parent checked ownership before
  for (const std::string_view file : files) {
    registry.load(fs::path(file));
    const char done = 1;
    if (::write(kTrialProgressFd, &done, 1) != 1) return 1;
  }
  // Unloading runs plugins' destructors, which are not on trial here.
  ::_exit(0);
}

}  // namespace scoria::plugin
