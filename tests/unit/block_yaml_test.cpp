// The block reader reads what machines write to the trees libfyaml's
// reading gives, and declines the rest, so that libfyaml reads it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "block_yaml_compare.h"

namespace scoria::test {
namespace {

const input::Limits& kLimits = input::kApplyLimits;

void expect_same(const std::string& text) {
  const auto block = read_with_block_reader(text, kLimits);
  ASSERT_TRUE(block.has_value()) << "declined:\n" << text;
  EXPECT_EQ(*block, read_with_libfyaml(text, kLimits)) << text;
}

TEST(BlockYaml, ReadsWhatMachinesWriteAsLibfyamlDoes) {
  const std::vector<std::string> texts = {
      // kubectl's and the generators' shapes: lists at their key's column
      // and deeper, compact mappings in lists, flow values, quotes.
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  labels: {app: x, tier: \"db\"}\n"
      "spec:\n  containers:\n  - name: main\n    args:\n    - -c\n    - 'it''s'\n"
      "    resources:\n      requests: {cpu: 500m, memory: 1Gi}\n  tolerations:\n"
      "    - key: k\n      operator: Exists\n",
      // Several documents, empty ones, comments anywhere, scalars of every kind.
      "# head\n---\na: 1\n---\n---\nb: [true, ~, 1.5, -3, 0x1, \"\\u00e9\\n\", 'x']\n  # c\nc: d # "
      "e\n",
      "a:\n-\n  b: c\n- [1, [2, {d: []}]]\n- {}\n-   e: f\n    g: h\nurl: http://x/y\nk:\n",
      "\"quoted key\": 1\n'single': 2\nplain key with spaces: 3\n",
  };
  for (const std::string& t : texts) expect_same(t);
}

TEST(BlockYaml, DeclinesWhatItDoesNotRead) {
  const std::vector<std::string> texts = {
      "a: &x 1\nb: *x\n",            // anchors and aliases
      "a: !!str 1\n",                // tags
      "a: |\n  text\n",              // block scalars
      "a: one\n  two\n",             // a plain scalar over two lines
      "a: \"one\n  two\"\n",         // a quoted one
      "a: [1,\n  2]\n",              // a flow collection over two lines
      "a: [1, ]\n",                  // a trailing comma
      "a:\t1\n",                     // tabs
      "a: 1\r\nb: 2\r\n",            // carriage returns
      "%YAML 1.2\n---\na: 1\n",      // directives
      "--- a: 1\n",                  // content after the marker
      "<<: {a: 1}\n",                // merge keys
      "a: b: c\n",                   // a mapping where a value belongs (an error)
      "a:\n  - 1\n  b: 2\n",         // a key where an item belongs (an error)
      "? a\n: b\n",                  // explicit keys
      "a: \"\\x41\"\n",              // escapes beyond JSON's
      "a: 1\nb:\n  c: 1\n  c: 2\n",  // a key twice (libfyaml may meet a later error first)
      "a:\n- x\n-\n",                // an empty item (libfyaml 0.7.12 refuses this one)
  };
  for (const std::string& t : texts)
    EXPECT_FALSE(read_with_block_reader(t, kLimits).has_value()) << t;
}

TEST(BlockYaml, DeclinesOddBytesAnywhereInALongText) {
  // The scan for them reads a block of bytes at a time: each is found at
  // every place in a block, and a text without them is still read.
  const std::string base = "key: " + std::string(40, 'v') + "\nother: value-value-value\n";
  ASSERT_TRUE(read_with_block_reader(base, kLimits).has_value());
  for (const std::string odd :
       {"\t", "\r", "\x7f", "\xc2\x85", "\xe2\x80\xa8", "\xef\xbb\xbf", "\xef\xbf\xbe"}) {
    for (size_t at = 5; at < 45; ++at) {
      std::string text = base;
      text.replace(at, odd.size(), odd);
      EXPECT_FALSE(read_with_block_reader(text, kLimits).has_value()) << at << ": " << text;
    }
  }
  // Other characters outside ASCII are read.
  std::string accents = base;
  accents.replace(20, 2, "\xc3\xa9");
  EXPECT_TRUE(read_with_block_reader(accents, kLimits).has_value());
}

TEST(BlockYaml, DeclinesPastTheLimitsSoLibfyamlCanSayWhere) {
  std::string deep = "a: ";
  for (int i = 0; i < 70; ++i) deep += "[";
  for (int i = 0; i < 70; ++i) deep += "]";
  EXPECT_FALSE(read_with_block_reader(deep + "\n", kLimits).has_value());
  input::Limits small = kLimits;
  small.max_scalar_bytes = 4;
  EXPECT_FALSE(read_with_block_reader("a: 12345\n", small).has_value());
}

// Every YAML file of the repository that the reader reads reads as
// libfyaml reads it, and the reader reads most of them.
TEST(BlockYaml, ReadsTheRepositorysFilesAsLibfyamlDoes) {
  const char* root = std::getenv("SCORIA_SOURCE_DIR");
  ASSERT_NE(root, nullptr);
  size_t files = 0, read = 0;
  for (const char* dir : {"tests/scenarios", "examples", "config"}) {
    const std::filesystem::path base = std::filesystem::path(root) / dir;
    if (!std::filesystem::exists(base)) continue;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(base)) {
      if (entry.path().extension() != ".yaml") continue;
      std::ifstream in(entry.path(), std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      try {
        input::check_text(text.str(), "t", kLimits);  // what every reader checks first
      } catch (const InputError&) {
        continue;
      }
      ++files;
      const auto block = read_with_block_reader(text.str(), kLimits);
      if (!block) continue;
      ++read;
      EXPECT_EQ(*block, read_with_libfyaml(text.str(), kLimits)) << entry.path();
    }
  }
  ASSERT_GT(files, 100U);
  EXPECT_GT(read * 10, files * 9) << read << " of " << files << " files read";
}

}  // namespace
}  // namespace scoria::test
