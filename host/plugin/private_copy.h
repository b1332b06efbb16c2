// A plugin file's private copy: its bytes, read once into a sealed
// in-memory file (memfd), which the loader maps instead of the installed
// file. Two things follow. A new build installed at the same path loads as
// new code on the next reload (the dynamic loader hands back the library it
// already has for a path it has mapped). And whatever happens to the
// installed file afterwards (a copy over it, truncating it in place) cannot
// touch the code running: nothing maps it.
//
// The copies are kept by content (SHA-256) for the life of the process, in
// the loader's one table: the same build is always the same copy under the
// same name, so a reload maps an unchanged plugin once and the dynamic
// loader never sees a name reused for other bytes (a library it cannot
// unload keeps its name). One copy per distinct build ever loaded.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <utility>

namespace scoria::plugin {

class PrivateCopy {
 public:
  /// The copy of `file`'s current bytes, made on first sight of them; null,
  /// with `why` set, if the file cannot be read or the system has no sealed
  /// in-memory files.
  static std::shared_ptr<const PrivateCopy> of(const std::filesystem::path& file, std::string& why);
  ~PrivateCopy();
  PrivateCopy(const PrivateCopy&) = delete;
  PrivateCopy& operator=(const PrivateCopy&) = delete;

  /// The path the dynamic loader opens the copy by ("/proc/self/fd/N").
  std::string path() const;
  /// The SHA-256 of the bytes, in hex: which build this is.
  const std::string& sha256() const { return sha256_; }

  PrivateCopy(int fd, std::string sha256) : fd_(fd), sha256_(std::move(sha256)) {}

 private:
  int fd_ = -1;
  std::string sha256_;
};

}  // namespace scoria::plugin
