// The state directory of `scoria serve` and the one-writer rule over it: an
// exclusive flock on STATE_DIR/lock, taken before anything else is written
// there and held for the life of the process (the kernel drops it when the
// process dies, so a kill -9 leaves no stale lock). The lock file holds the
// holder's pid so a second `serve` can name it.
#pragma once

#include <filesystem>

namespace scoria::serve {

class StateDirLock {
 public:
  /// Creates `dir` (mode 0700) if it is missing, checks it can be written
  /// and takes the lock. Throws InputError: "cannot write STATE_DIR: ..."
  /// or "STATE_DIR is in use by scoria serve pid N".
  explicit StateDirLock(const std::filesystem::path& dir);
  ~StateDirLock();
  StateDirLock(const StateDirLock&) = delete;
  StateDirLock& operator=(const StateDirLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace scoria::serve
