#include "cli/huge_pages.h"

#include <unistd.h>

#include <cstdlib>
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

}  // namespace

void restart_with_huge_pages(char** argv) {
  if (!kGlibcHeap || std::getenv(kRestarted) != nullptr) return;
  const char* set = std::getenv("GLIBC_TUNABLES");
  const std::string tunables = set != nullptr ? set : "";
  // Already asked (by the restart below, or by the user either way).
  if (tunables.find(kTunable) != std::string::npos) return;
  if (!huge_pages_on_request()) return;
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

}  // namespace scoria::cli
