#include "plugin/private_copy.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace scoria::plugin {

namespace {

std::string hex_sha256(const std::vector<char>& bytes) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &size, EVP_sha256(), nullptr) != 1)
    return {};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < size; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0xf];
  }
  return out;
}

}  // namespace

std::shared_ptr<const PrivateCopy> PrivateCopy::of(const std::filesystem::path& file,
                                                   std::string& why) {
  // The loader's table of copies, by content: see the header.
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const PrivateCopy>> copies;

  std::ifstream in(file, std::ios::binary);
  if (!in) {
    why = "cannot be read";
    return nullptr;
  }
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  const std::string sha = hex_sha256(bytes);
  if (sha.empty()) {
    why = "cannot be hashed";
    return nullptr;
  }
  const std::lock_guard lock(mutex);
  if (const auto it = copies.find(sha); it != copies.end()) return it->second;
  // Executable on purpose: since Linux 6.3 a copy made without MFD_EXEC may
  // be refused PROT_EXEC (vm.memfd_noexec); older kernels reject the flag.
  constexpr unsigned kExec = 0x0010U;  // MFD_EXEC, absent from older headers
  int fd = ::memfd_create(file.filename().c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING | kExec);
  if (fd < 0 && errno == EINVAL)
    fd = ::memfd_create(file.filename().c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) {
    why = std::string("no in-memory copy (memfd_create: ") + std::strerror(errno) + ")";
    return nullptr;
  }
  auto copy = std::make_shared<const PrivateCopy>(fd, sha);
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      why = std::string("no in-memory copy (write: ") + std::strerror(errno) + ")";
      return nullptr;
    }
    done += static_cast<size_t>(n);
  }
  // Sealed: not even this process can change what it will map.
  if (::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
    why = std::string("no sealed in-memory copy (") + std::strerror(errno) + ")";
    return nullptr;
  }
  copies.emplace(sha, copy);
  return copy;
}

PrivateCopy::~PrivateCopy() {
  if (fd_ >= 0) ::close(fd_);
}

std::string PrivateCopy::path() const { return "/proc/self/fd/" + std::to_string(fd_); }

}  // namespace scoria::plugin
