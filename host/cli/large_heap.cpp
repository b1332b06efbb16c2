#include "cli/large_heap.h"

#include <malloc.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace scoria::cli {

namespace {

constexpr std::string_view kTunable = "glibc.malloc.hugetlb";
// Set on the restart, so that it happens once whatever glibc makes of the
// tunables; tests look for it too.
constexpr const char* kRestarted = "SCORIA_HUGE_PAGES_RESTART";

/// Whether the kernel gives huge pages to memory marked for them and only
/// to it: "always" needs no asking, "never" gives none.
bool huge_pages_on_request() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(in, modes);
  return modes.find("[madvise]") != std::string::npos;
}

// Sanitizers bring their own allocator, which ignores the tunable.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define SCORIA_OWN_ALLOCATOR 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(__GLIBC__)
#define SCORIA_OWN_ALLOCATOR 1
#endif

#ifdef SCORIA_OWN_ALLOCATOR
constexpr bool kGlibcHeap = false;
#else
constexpr bool kGlibcHeap = true;
#endif

constexpr std::uintmax_t kLargeInput = std::uintmax_t{1} << 20;

/// Whether GLIBC_TUNABLES names `tunable`: set either way by the user (or
/// by the restart), which is then left as it is.
bool tunable_given(std::string_view tunable) {
  const char* set = std::getenv("GLIBC_TUNABLES");
  return set != nullptr && std::string_view(set).find(tunable) != std::string_view::npos;
}

}  // namespace

bool may_hold_a_large_cluster(std::span<const std::string_view> args) {
  std::uintmax_t bytes = 0;
  for (std::string_view arg : args) {
    if (arg == "-") return true;
    std::error_code error;
    const std::filesystem::path path(arg);
    const auto status = std::filesystem::status(path, error);
    if (error || !std::filesystem::exists(status)) continue;  // a flag, a value, a file to write
    if (std::filesystem::is_directory(status)) continue;
    if (!std::filesystem::is_regular_file(status)) return true;  // a pipe, a FIFO, a device
    bytes += std::filesystem::file_size(path, error);
    if (!error && bytes >= kLargeInput) return true;
  }
  return false;
}

void restart_with_huge_pages(char** argv) {
  if (!kGlibcHeap || std::getenv(kRestarted) != nullptr) return;
  if (tunable_given(kTunable) || !huge_pages_on_request()) return;
  const char* set = std::getenv("GLIBC_TUNABLES");
  const std::string tunables = set != nullptr ? set : "";
  const std::string with = tunables + (tunables.empty() ? "" : ":") + std::string(kTunable) + "=1";
  if (setenv(kRestarted, "1", 1) != 0) return;
  if (setenv("GLIBC_TUNABLES", with.c_str(), 1) == 0) execv("/proc/self/exe", argv);
  // Still here: the exec failed (no /proc, say). Go on as started, and
  // leave the environment as it was for what this process starts.
  unsetenv(kRestarted);
  if (set != nullptr)
    setenv("GLIBC_TUNABLES", set, 1);
  else
    unsetenv("GLIBC_TUNABLES");
}

bool keep_freed_heap() {
  if (!kGlibcHeap || tunable_given("glibc.malloc.mmap_max") ||
      tunable_given("glibc.malloc.trim_threshold"))
    return false;
  return mallopt(M_MMAP_MAX, 0) == 1 && mallopt(M_TRIM_THRESHOLD, INT_MAX) == 1;
}

}  // namespace scoria::cli
