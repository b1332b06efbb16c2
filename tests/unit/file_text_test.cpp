// An object file's text as the loader reads it: a regular file mapped, an
// empty one, a pipe read as it comes, and a file that is not there named
// with the reason.
#include "source/file_text.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "model/error.h"

namespace scoria::source {
namespace {

class FileTextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("scoria-file-text-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name), std::ios::binary) << text;
    return path(name);
  }

  std::filesystem::path dir_;
};

TEST_F(FileTextTest, ARegularFileIsReadWhole) {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "apiVersion: v1\nkind: Node\n---\n";
  const FileText file(write("big.yaml", text));
  EXPECT_EQ(file.text(), text);
}

TEST_F(FileTextTest, AnEmptyFileIsEmpty) {
  const FileText file(write("empty.yaml", ""));
  EXPECT_TRUE(file.text().empty());
}

TEST_F(FileTextTest, APipeIsReadAsItComes) {
  const std::string fifo = path("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string text(300000, 'x');
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << text; });
  const FileText file(fifo);
  writer.join();
  EXPECT_EQ(file.text(), text);
}

TEST_F(FileTextTest, AMissingFileIsNamedWithTheReason) {
  const std::string missing = path("missing.yaml");
  try {
    const FileText file(missing);
    FAIL() << "a missing file was read";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), missing +
                                         ": cannot open it (No such file or directory); check "
                                         "that the file exists and is readable");
  }
}

}  // namespace
}  // namespace scoria::source
