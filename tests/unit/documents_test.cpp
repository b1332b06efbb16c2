// Hostile and odd input for the document reader: every case is refused with
// one message (never a hang, a crash or a blow-up in memory) or read as
// Kubernetes' YAML reader would read it.
#include "input/documents.h"

#include <gtest/gtest.h>

#include <string>

#include "input/document_split.h"
#include "input/utf8.h"
#include "model/error.h"

namespace scoria::input {
namespace {

std::string error_of(std::string_view text, const Limits& limits = kRequestLimits) {
  try {
    read_documents(text, "body", limits);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(Documents, LoneCommaIsRefusedAtOnce) {
  // yaml-cpp 0.7.0 loops forever on this (jbeder/yaml-cpp#1040).
  const std::string msg = error_of(",\n");
  EXPECT_TRUE(contains(msg, "body: document 1: line 1, column 1: invalid YAML")) << msg;
}

TEST(Documents, AliasBombIsRefused) {
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'j'; ++c) {
    const char prev = static_cast<char>(c - 1);
    bomb += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i) bomb += std::string(i ? ", *" : "*") + prev;
    bomb += "]\n";
  }
  const std::string msg = error_of(bomb);
  EXPECT_TRUE(contains(msg, "excessive aliasing is refused")) << msg;
}

TEST(Documents, FewAliasesAndMergeKeysAreRead) {
  const auto docs =
      read_documents("base: &b {cpu: 1, memory: 2Gi}\nspec:\n  <<: *b\n  cpu: 2\nlist: [*b]\n",
                     "body", kRequestLimits);
  ASSERT_EQ(docs.size(), 1u);
  const nlohmann::json& v = docs[0].value;
  EXPECT_EQ(v["spec"]["cpu"], 2);  // the mapping's own key wins over the merge
  EXPECT_EQ(v["spec"]["memory"], "2Gi");
  EXPECT_EQ(v["list"][0]["cpu"], 1);
}

TEST(Documents, DeepNestingIsRefusedWithoutRecursion) {
  const std::string msg = error_of(std::string(100000, '['));
  EXPECT_TRUE(contains(msg, "nested deeper than 64 levels")) << msg;
}

TEST(Documents, InvalidUtf8IsRefusedWithItsOffset) {
  const std::string msg = error_of("apiVersion: v1\nkind: Pod\nmetadata: {name: p\xe9}\n");
  EXPECT_TRUE(contains(msg, "body: byte 43 (line 3, column 19) is not valid UTF-8")) << msg;
  EXPECT_EQ(invalid_utf8_at("\xed\xa0\x80"), 0u);      // a surrogate
  EXPECT_EQ(invalid_utf8_at("ok\xc0\xaf"), 2u);        // overlong '/'
  EXPECT_EQ(invalid_utf8_at("\xf4\x90\x80\x80"), 0u);  // past U+10FFFF
  EXPECT_EQ(invalid_utf8_at("caf\xc3\xa9 \xf0\x9f\x98\x80"), std::nullopt);
}

TEST(Documents, NulByteIsRefused) {
  const std::string msg = error_of(std::string("a: b\0c\n", 7));
  EXPECT_TRUE(contains(msg, "byte 4 (line 1, column 5) is a NUL character")) << msg;
}

TEST(Documents, SizeAndDocumentCountAreBounded) {
  Limits small = kRequestLimits;
  small.max_bytes = 16;
  EXPECT_TRUE(contains(error_of("a: 0123456789abcdef\n", small), "more than the limit of 16"));
  small = kRequestLimits;
  small.max_documents = 2;
  EXPECT_TRUE(contains(error_of("a: 1\n---\nb: 2\n---\nc: 3\n", small), "more than 2 documents"));
  small = kRequestLimits;
  small.max_scalar_bytes = 4;
  EXPECT_TRUE(contains(error_of("a: 12345\n", small), "longer than the limit of 4"));
}

TEST(Documents, DuplicateAndComplexKeysAreRefused) {
  EXPECT_TRUE(contains(error_of("spec:\n  a: 1\n  a: 2\n"),
                       "document 1 (object): field spec.a: appears twice; keep one"));
  EXPECT_TRUE(contains(error_of("? [a, b]\n: c\n"), "keys are plain strings"));
}

TEST(Documents, CoreSchemaScalarsAndJson) {
  const auto docs = read_documents(
      "a: 1\nb: '1'\nc: true\nd: 1.5\ne: ~\nf: 1e3\ng: !!str 2\nh: 0x1f\n---\n{\"j\": [1, "
      "\"x\"]}\n",
      "body", kRequestLimits);
  ASSERT_EQ(docs.size(), 2u);
  const nlohmann::json& v = docs[0].value;
  EXPECT_TRUE(v["a"].is_number_integer());
  EXPECT_TRUE(v["b"].is_string());
  EXPECT_TRUE(v["c"].is_boolean());
  EXPECT_TRUE(v["d"].is_number_float());
  EXPECT_TRUE(v["e"].is_null());
  EXPECT_EQ(v["f"], 1000.0);
  EXPECT_EQ(v["g"].dump(), "\"2\"") << v.dump();
  EXPECT_EQ(v["h"].dump(), "\"0x1f\"");
  EXPECT_EQ(docs[1].number, 2);
  EXPECT_EQ(docs[1].value["j"][1], "x");
  EXPECT_EQ(scalar_text(v["d"]), "1.5");
  EXPECT_EQ(scalar_text(v["a"]), "1");
}

// Single-quoted text with '' escapes is unescaped and folded by our own code
// (libfyaml 0.7.12 leaks on runs of them; LeakSanitizer in the suite and
// the fuzzers would say so): the values are YAML's, as PyYAML gives them.
TEST(Documents, SingleQuotedEscapesAndFolding) {
  const auto docs = read_documents(
      "a: ''''''''''''\nb: 'it''s'\nc: 'one\n  two\n\n  three '' x'\nd: 'trail   \n   "
      "next'\ne: 'x''\n\n\n  y'''\nf: 'p\r\n  q'''\n'k''ey': 'no escape'\n",
      "body", kRequestLimits);
  ASSERT_EQ(docs.size(), 1u);
  const nlohmann::json& v = docs[0].value;
  EXPECT_EQ(v["a"], "'''''");
  EXPECT_EQ(v["b"], "it's");
  EXPECT_EQ(v["c"], "one two\nthree ' x");
  EXPECT_EQ(v["d"], "trail next");
  EXPECT_EQ(v["e"], "x'\n\ny'");
  EXPECT_EQ(v["f"], "p q'");
  EXPECT_EQ(v["k'ey"], "no escape");
}

TEST(Documents, EmptyDocumentsAreNumberedAndNull) {
  const auto docs = read_documents("---\n---\na: 1\n", "body", kRequestLimits);
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_TRUE(docs[0].value.is_null());
  EXPECT_EQ(docs[1].number, 2);
}

// A text past a few megabytes is cut into parts scanned on separate cores
// (document_split.cpp): documents, lines and faults must come out as one
// reader going through it in order would number and report them.
std::string large_text(size_t docs, std::string_view middle, std::string_view end) {
  const std::string filler(200, 'x');
  std::string text;
  for (size_t i = 0; i < docs; ++i) {
    if (i == docs / 2) text += middle;
    text += "---\nk: " + filler + "\n";
  }
  return text + std::string(end);
}

constexpr size_t kLargeDocs = 60000;  // about 12 MB: a part per core

TEST(Documents, LargeTextsAreNumberedAcrossParts) {
  // In the middle: a document ended by "...", comments after it (no
  // document), then one without "---" (a document), closed by "..." after
  // many comment lines. The text's midpoint, where the parts meet, falls
  // among those: the content before it makes the document.
  std::string middle = "---\nmid: 1\n...\n# only a comment\n\n...\nbare: 2\n";
  for (int i = 0; i < 20000; ++i) middle += "# pad\n";
  const std::string text = large_text(kLargeDocs, middle + "...\n", "");
  // The split itself counts them (a miscount would still read right, the
  // text then parsed whole, but on one core).
  size_t split = 0;
  for (const Chunk& c : split_documents(text, "big", 0)) split += static_cast<size_t>(c.expected);
  EXPECT_EQ(split, kLargeDocs + 2);
  const auto docs = read_documents(text, "big", kFileLimits);
  ASSERT_EQ(docs.size(), kLargeDocs + 2);
  const size_t mid = kLargeDocs / 2;
  EXPECT_EQ(docs[mid].value["mid"], 1);
  EXPECT_EQ(docs[mid + 1].value["bare"], 2);
  EXPECT_EQ(docs[mid + 1].number, static_cast<int>(mid + 2));
  EXPECT_EQ(docs.back().number, static_cast<int>(kLargeDocs + 2));
}

TEST(Documents, LargeTextsReportLinesAndFaultsInTextOrder) {
  // A syntax error in the last document names its line in the whole text.
  const std::string broken = large_text(kLargeDocs, "", "---\nx: [\n");
  std::string msg = error_of(broken, kFileLimits);
  EXPECT_TRUE(contains(msg, "document " + std::to_string(kLargeDocs + 1) + ": line " +
                                std::to_string(2 * kLargeDocs + 3)))
      << msg;
  // A NUL in the first half and ill-formed UTF-8 in the second: the UTF-8
  // is named, as check_text names it, with its place.
  std::string faulty = large_text(kLargeDocs, "", "---\nk: \xff\n");
  faulty[10] = '\0';
  msg = error_of(faulty, kFileLimits);
  EXPECT_TRUE(contains(msg, "byte " + std::to_string(faulty.size() - 2) + " (line " +
                                std::to_string(2 * kLargeDocs + 2) +
                                ", column 4) is not valid UTF-8"))
      << msg;
  faulty.back() = ' ';
  faulty[faulty.size() - 2] = 'y';
  msg = error_of(faulty, kFileLimits);
  EXPECT_TRUE(contains(msg, "byte 10 (line 2, column 7) is a NUL character")) << msg;
}

TEST(Documents, LargeTextsWithADirectiveAreReadWhole) {
  // A directive late in the text: the stream is read by one parser, and
  // its documents are still all there.
  const std::string text = large_text(kLargeDocs, "...\n%YAML 1.2\n", "");
  const auto docs = read_documents(text, "big", kFileLimits);
  EXPECT_EQ(docs.size(), kLargeDocs);
}

}  // namespace
}  // namespace scoria::input
