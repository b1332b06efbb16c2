// Nodes (input/node_tree.h) must read as the nlohmann::json values they
// replaced: the same values, and the same JSON text written from them,
// byte for byte (plugins receive that text).
#include "input/tree_json.h"

#include <gtest/gtest.h>

#include <string>

#include "input/documents.h"

namespace scoria::input {
namespace {

using nlohmann::json;

/// The one document of `text`, as a Node (in `arena`) and as JSON.
struct Read {
  NodeArena arena;
  Node node;
  json value;
};

void read_one(std::string_view text, Read& out) {
  stream_documents(
      text, "t.yaml", kFileLimits, [](size_t) {},
      [&](size_t, const TreeDocument& d) {
        out.value = to_json(d.value);
        out.node = from_json(out.value, out.arena);
      });
}

TEST(TreeJson, WritesWhatNlohmannWrites) {
  const json values[] = {
      nullptr,
      true,
      json::object(),
      json::array(),
      -7,
      uint64_t{18446744073709551615U},
      0.1,
      1e300,
      -0.0,
      2.0,
      "plain",
      "quote \" backslash \\ tab \t newline \n cr \r bs \b ff \f nul-ish \x01 \x1f del \x7f",
      "ünïcødé ✓ 𝄞",
      {{"b", 1}, {"a", {1, "x", nullptr}}, {"", {{"z", false}}}, {"\xc3\xa9", 2.5}},
  };
  for (const json& v : values) {
    NodeArena arena;
    const Node n = from_json(v, arena);
    EXPECT_EQ(dump(n), v.dump()) << v.dump();
    EXPECT_EQ(to_json(n), v) << v.dump();
  }
}

TEST(TreeJson, InvalidUtf8IsRefusedAsNlohmannRefusesIt) {
  NodeArena arena;
  const Node n = from_json(json(std::string("bad \xff")), arena);
  EXPECT_THROW(dump(n), json::type_error);
}

TEST(TreeJson, MappingsAreSortedAndFoundByKey) {
  Read r;
  read_one("zeta: 1\nalpha: {b: 2, a: 1}\nmid: [x, 2, 3.5, null, true, '7']\n", r);
  const Node& n = r.node;
  ASSERT_TRUE(n.is_object());
  ASSERT_EQ(n.size(), 3U);
  EXPECT_EQ(n.entries()[0].key, "alpha");
  EXPECT_EQ(n.entries()[2].key, "zeta");
  ASSERT_NE(n.find("mid"), nullptr);
  EXPECT_EQ(n.find("mid")->size(), 6U);
  EXPECT_TRUE((*n.find("mid"))[5].is_string());
  EXPECT_EQ(n.find("nope"), nullptr);
  EXPECT_EQ(dump(n), r.value.dump());
}

TEST(TreeJson, ManyKeysAreFoundAndDuplicatesRefused) {
  std::string text;
  for (int i = 99; i >= 0; --i) text += "k" + std::to_string(i) + ": " + std::to_string(i) + "\n";
  Read r;
  read_one(text, r);
  for (int i = 0; i < 100; ++i) {
    const Node* v = r.node.find("k" + std::to_string(i));
    ASSERT_NE(v, nullptr) << i;
    EXPECT_EQ(v->as_int(), i);
  }
  EXPECT_THROW(read_documents(text + "k50: again\n", "t.yaml", kFileLimits), InputError);
}

TEST(TreeJson, MergeKeysKeepOwnValuesAndEarlierMerges) {
  const auto docs = read_documents(
      "a: &a {x: 1, y: 1, z: 1}\nb: &b {y: 2, w: 2}\nm:\n  <<: [*a, *b]\n  x: 0\n  <<: {v: 3}\n",
      "t.yaml", kFileLimits);
  ASSERT_EQ(docs.size(), 1U);
  EXPECT_EQ(docs[0].value["m"], json({{"x", 0}, {"y", 1}, {"z", 1}, {"w", 2}, {"v", 3}}));
}

}  // namespace
}  // namespace scoria::input
