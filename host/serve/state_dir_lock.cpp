#include "serve/state_dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

#include "model/error.h"

namespace scoria::serve {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void cannot_write(const fs::path& dir, int error) {
  throw InputError("cannot write STATE_DIR " + dir.string() + ": " + std::strerror(error) +
                   (error == EROFS ? " (it is on a read-only mount; give --state-dir a writable "
                                     "directory)"
                                   : "; give --state-dir a directory this user can write"));
}

// Creates what is missing of `dir`; the last component (the directory serve
// owns) gets 0700, as systemd's StateDirectoryMode would give it.
void create(const fs::path& dir) {
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return;
  if (dir.has_parent_path() && dir.parent_path() != dir) {
    fs::create_directories(dir.parent_path(), ec);
    if (ec) cannot_write(dir, ec.value());
  }
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) cannot_write(dir, errno);
  // mkdir's mode passes through the umask, which can only take bits away.
  if (::chmod(dir.c_str(), 0700) != 0) cannot_write(dir, errno);
}

std::string holder_pid(int fd) {
  char text[32] = {};
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  std::string pid = n > 0 ? std::string(text, static_cast<size_t>(n)) : std::string();
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid.empty() ? std::string("unknown (it is starting)") : pid;
}

}  // namespace

StateDirLock::StateDirLock(const fs::path& dir) {
  create(dir);
  const fs::path file = dir / "lock";
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd_ < 0) cannot_write(dir, errno);
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    const std::string pid = holder_pid(fd_);
    ::close(fd_);
    fd_ = -1;
    if (error == EWOULDBLOCK)
      throw InputError("STATE_DIR " + dir.string() + " is in use by another scoria serve (pid " +
                       pid + "); stop it or give another --state-dir");
    cannot_write(dir, error);
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) != 0 ||
      ::pwrite(fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    const int error = errno;
    ::close(fd_);
    fd_ = -1;
    cannot_write(dir, error);
  }
}

StateDirLock::~StateDirLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace scoria::serve
