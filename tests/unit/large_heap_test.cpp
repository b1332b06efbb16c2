// A run restarts on huge pages only when its input may be large: files of
// 1 MiB or more in all, or a pipe or standard input, whose size is unknown.
// And a large cluster's process keeps the blocks it frees in its heap.
#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/large_heap.h"

namespace scoria {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "scoria-huge-XXXXXX").string();
    path = mkdtemp(pattern.data());
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string file_of(const fs::path& path, size_t bytes) {
  std::ofstream(path) << std::string(bytes, '#');
  return path.string();
}

bool large(std::initializer_list<std::string_view> args) {
  return cli::may_hold_a_large_cluster({args.begin(), args.size()});
}

TEST(HugePages, SmallFilesAndFlagsDoNotRestart) {
  TempDir dir;
  const std::string cluster = file_of(dir.path / "cluster.yaml", 4096);
  const std::string config = file_of(dir.path / "scheduler.toml", 512);
  EXPECT_FALSE(large({"--config", config, "--output", "json", cluster}));
  // A report to write, a missing file and a directory add nothing.
  EXPECT_FALSE(
      large({"--report", (dir.path / "report.html").string(), dir.path.string(), cluster}));
}

TEST(HugePages, FilesOfAMebibyteInAllRestart) {
  TempDir dir;
  const std::string half = file_of(dir.path / "nodes.yaml", 512 * 1024);
  const std::string other = file_of(dir.path / "pods.yaml", 512 * 1024);
  EXPECT_FALSE(large({half}));
  EXPECT_TRUE(large({half, other}));
  EXPECT_TRUE(large({file_of(dir.path / "all.yaml", 1 << 20)}));
}

TEST(HugePages, InputOfUnknownSizeRestarts) {
  TempDir dir;
  EXPECT_TRUE(large({"--config", "x", "-"}));
  const fs::path fifo = dir.path / "cluster";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_TRUE(large({fifo.string()}));
}

TEST(LargeHeap, ABlockFreedStaysInTheHeapForTheNext) {
  if (!cli::keep_freed_heap()) GTEST_SKIP() << "another allocator, or GLIBC_TUNABLES sets it";
  const size_t mapped = mallinfo2().hblks;
  constexpr size_t kBlock = size_t{64} << 20;  // past glibc's largest mapping threshold
  {
    std::vector<char> block(kBlock, 1);
    EXPECT_EQ(mallinfo2().hblks, mapped) << "the block was mapped apart from the heap";
  }
  // Freed, it is still the heap's (not trimmed), free for the next block.
  EXPECT_GE(mallinfo2().fordblks, kBlock);
}

}  // namespace
}  // namespace scoria
