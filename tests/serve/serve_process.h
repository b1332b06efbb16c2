// A `scoria serve` child process for tests, and a blocking HTTP client.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
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

/// Runs in the child between fork and exec: limits, environment, mounts.
using ChildSetup = std::function<void()>;

/// How a process that was expected to end ended.
struct Exit {
  int status = -1;  // wait status; -1 if it had to be killed at the deadline
  std::string err;  // its standard error
};

/// Runs `scoria ARGS...` to its end (killed after `deadline`).
Exit run_scoria(const std::vector<std::string>& args, const ChildSetup& setup = {},
                std::chrono::milliseconds deadline = std::chrono::seconds(30));

/// A raw loopback TCP connection, for requests the client library will not
/// send (bad framing, odd headers) and for clients that stall.
class RawConnection {
 public:
  /// Connects; `receive_buffer` > 0 shrinks the socket's receive buffer
  /// (set before connecting, so the window is small from the start).
  explicit RawConnection(unsigned short port, int receive_buffer = 0);
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;
  bool connected() const { return fd_ >= 0; }
  /// Sends all of `bytes`; false if the peer is gone.
  bool send(const std::string& bytes);
  /// Reads until the peer closes or `deadline` passes; what came.
  std::string read_until_closed(std::chrono::milliseconds deadline);
  /// True once read_until_closed saw the peer close.
  bool closed() const { return eof_; }

 private:
  int fd_ = -1;
  bool eof_ = false;
};

/// Whether `pred` comes true within `deadline`, asked every 50ms.
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds deadline = std::chrono::seconds(20)) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (!pred()) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

/// The status code of a raw HTTP response ("HTTP/1.1 403 ..."), 0 if none.
unsigned status_of(const std::string& response);

/// A copy of the default config in `dir`, `extra` appended, so that a test
/// may change it.
std::filesystem::path copy_config(const std::filesystem::path& dir, const std::string& extra = "");
/// `scoria serve`'s arguments with `config` and a short schedule period.
std::vector<std::string> base_args(const std::filesystem::path& config);
/// The resourceVersion of the list at `target`; -1 if it does not answer.
long long version_of(unsigned short port, const std::string& target = "/api/v1/pods");
/// version_of once the service has recorded its first session, whose status
/// writes (the queues' `allocated`, for one) move the version on their own;
/// -1 if no session is recorded within the deadline.
long long settled_version(unsigned short port, const std::string& target = "/api/v1/pods");

/// Applies a node and a pod and expects the pod bound: the service still
/// schedules. A gtest assertion, for tests only.
void expect_still_scheduling(unsigned short port);

class ServeProcess {
 public:
  /// Starts `scoria serve` with `args` (its own --port 0 and --state-dir
  /// are added) and waits for it to listen. Without `pass_state_dir`, the
  /// service chooses its state directory and `state_dir` holds only the log.
  ServeProcess(const std::filesystem::path& state_dir, std::vector<std::string> args,
               const ChildSetup& setup = {}, bool pass_state_dir = true);
  ~ServeProcess();
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  unsigned short port() const { return port_; }
  pid_t pid() const { return pid_; }
  /// Sends a signal; wait() then collects the exit.
  void signal(int signo) const;
  /// Waits for the process to end; returns its wait status.
  int wait();
  /// Waits at most `deadline`; the wait status, or -1 if it still runs.
  int wait_for(std::chrono::milliseconds deadline);
  /// The server's resident set size in KiB (VmRSS), 0 if unknown.
  long rss_kib() const;
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
