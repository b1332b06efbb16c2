#include "plugin/private_copy.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <utility>

namespace scoria::plugin {

namespace {

std::string hex(const unsigned char* digest, unsigned int size) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < size; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0xf];
  }
  return out;
}

struct DigestFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

// Writes all of `data` to `fd`; false with errno set if it cannot.
bool write_all(int fd, const char* data, size_t size) {
  for (size_t done = 0; done < size;) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
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
  // Owns the fd from here; dropped if the same build is copied already.
  auto copy = std::make_shared<PrivateCopy>(fd, std::string());
  // Copied and hashed in one pass, in small pieces: what is hashed is what
  // was copied, and no buffer the size of a plugin is left in the heap.
  const std::unique_ptr<EVP_MD_CTX, DigestFree> digest(EVP_MD_CTX_new());
  if (!digest || EVP_DigestInit_ex(digest.get(), EVP_sha256(), nullptr) != 1) {
    why = "cannot be hashed";
    return nullptr;
  }
  std::array<char, 64 * 1024> buffer{};
  while (in) {
    in.read(buffer.data(), buffer.size());
    const auto n = static_cast<size_t>(in.gcount());
    if (n == 0) break;
    if (EVP_DigestUpdate(digest.get(), buffer.data(), n) != 1) {
      why = "cannot be hashed";
      return nullptr;
    }
    if (!write_all(fd, buffer.data(), n)) {
      why = std::string("no in-memory copy (write: ") + std::strerror(errno) + ")";
      return nullptr;
    }
  }
  if (in.bad()) {
    why = "cannot be read";
    return nullptr;
  }
  std::array<unsigned char, EVP_MAX_MD_SIZE> sum{};
  unsigned int size = 0;
  if (EVP_DigestFinal_ex(digest.get(), sum.data(), &size) != 1) {
    why = "cannot be hashed";
    return nullptr;
  }
  copy->sha256_ = hex(sum.data(), size);

  const std::lock_guard lock(mutex);
  if (const auto it = copies.find(copy->sha256_); it != copies.end()) return it->second;
  // Sealed: not even this process can change what it will map.
  if (::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
    why = std::string("no sealed in-memory copy (") + std::strerror(errno) + ")";
    return nullptr;
  }
  copies.emplace(copy->sha256_, copy);
  return copy;
}

PrivateCopy::~PrivateCopy() {
  if (fd_ >= 0) ::close(fd_);
}

std::string PrivateCopy::path() const { return "/proc/self/fd/" + std::to_string(fd_); }

}  // namespace scoria::plugin
