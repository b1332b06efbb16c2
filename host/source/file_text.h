// The text of an object file, as the loader reads it: a regular file is
// mapped rather than copied (a cluster's files run to hundreds of MB, and a
// copy costs its bytes twice, in time and in memory); standard input and
// pipes are read as they come.
#pragma once

#include <string>
#include <string_view>

namespace scoria::source {

class FileText {
 public:
  /// Reads `name` ("-": standard input). Throws InputError naming the file
  /// and the fix when it cannot be opened or read.
  explicit FileText(const std::string& name);
  ~FileText();
  FileText(const FileText&) = delete;
  FileText& operator=(const FileText&) = delete;

  std::string_view text() const {
    return mapped_ != nullptr ? std::string_view(mapped_, size_) : read_;
  }

 private:
  const char* mapped_ = nullptr;  // a private read-only mapping of size_ bytes
  size_t size_ = 0;
  std::string read_;  // what was read where nothing was mapped
};

}  // namespace scoria::source
