// A `scoria serve` child process for tests, and a blocking HTTP client.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace scoria::test {

struct HttpResult {
  unsigned status = 0;
  std::string body;
};

/// One request on a fresh connection; status 0 if the server is unreachable.
HttpResult http(unsigned short port, const std::string& method, const std::string& target,
                const std::string& body = "", const std::string& token = "");

/// Reads the watch stream from `after` until `done(line)` returns true or
/// the deadline passes; returns the lines read.
std::vector<std::string> watch_until(unsigned short port, long long after,
                                     const std::function<bool(const std::string&)>& done,
                                     std::chrono::milliseconds deadline);

class ServeProcess {
 public:
  /// Starts `scoria serve` with `args` (its own --port 0 and --state-dir
  /// are added) and waits for it to listen.
  ServeProcess(const std::filesystem::path& state_dir, std::vector<std::string> args);
  ~ServeProcess();
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  unsigned short port() const { return port_; }
  pid_t pid() const { return pid_; }
  /// Sends a signal; wait() then collects the exit.
  void signal(int signo) const;
  /// Waits for the process to end; returns its wait status.
  int wait();
  /// What it wrote to standard error so far.
  std::string log() const;

 private:
  pid_t pid_ = -1;
  unsigned short port_ = 0;
  std::filesystem::path log_;
  bool reaped_ = false;
};

/// A fresh directory, removed afterwards.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::filesystem::path& path() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

}  // namespace scoria::test
