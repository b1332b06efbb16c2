#include "source/file_text.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <iterator>
#include <sstream>

#include "model/error.h"

namespace scoria::source {

namespace {

/// Closes a descriptor when it goes out of scope.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

std::string read_all(int fd, const std::string& name) {
  std::string text;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) return text;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InputError(name + ": reading it failed (" + std::strerror(errno) + "); check the file");
    }
    text.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace

FileText::FileText(const std::string& name) {
  if (name == "-") {
    std::ostringstream s;
    s << std::cin.rdbuf();
    read_ = s.str();
    return;
  }
  const Descriptor file{::open(name.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) {
    throw InputError(name + ": cannot open it (" + std::strerror(errno) +
                     "); check that the file exists and is readable");
  }
  struct stat st {};
  if (::fstat(file.fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    // Populated at once: the loader reads every byte, in order.
    void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ,
                     MAP_PRIVATE | MAP_POPULATE, file.fd, 0);
    if (p != MAP_FAILED) {
      mapped_ = static_cast<const char*>(p);
      size_ = static_cast<size_t>(st.st_size);
      return;
    }
  }
  // Not a regular file (a pipe, a device), empty, or not mappable.
  read_ = read_all(file.fd, name);
}

FileText::~FileText() {
  if (mapped_ != nullptr) ::munmap(const_cast<char*>(mapped_), size_);
}

}  // namespace scoria::source
