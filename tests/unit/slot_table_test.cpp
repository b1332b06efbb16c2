// SlotTable's bookkeeping that the kept snapshot and outcome reuse rely on:
// which slots were written since the last look, and an identity that names
// an entry under one key (a freed and reused slot, or a renamed entry, is
// another object to whoever held the old one).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "cache/slot_table.h"

namespace scoria::cache {
namespace {

struct TestEntry {
  int value = 0;
};
struct TestHot {
  int value = 0;
};
using TestTable = SlotTable<TestEntry, TestHot>;

std::vector<uint32_t> changed_slots(const TestTable& t) {
  std::vector<uint32_t> out = t.changed();
  std::sort(out.begin(), out.end());
  return out;
}

TEST(SlotTable, WritesAreNotedOnceAndReadsNotAtAll) {
  TestTable t;
  const uint32_t a = t.insert("a");
  const uint32_t b = t.insert("b");
  EXPECT_EQ(changed_slots(t), (std::vector<uint32_t>{a, b}));
  t.forget_changes();
  EXPECT_TRUE(t.changed().empty());
  // Reads through the const table note nothing.
  EXPECT_EQ(std::as_const(t).at(a).value, 0);
  EXPECT_EQ(std::as_const(t).hot(b).value, 0);
  EXPECT_TRUE(t.changed().empty());
  t.at(b).value = 1;
  t.hot(b).value = 2;
  EXPECT_EQ(changed_slots(t), (std::vector<uint32_t>{b}));
  t.forget_changes();
  t.erase(a);
  EXPECT_EQ(changed_slots(t), (std::vector<uint32_t>{a}));
}

TEST(SlotTable, OrderVersionMovesWithTheArrivalOrderOnly) {
  TestTable t;
  const uint32_t a = t.insert("a");
  const uint64_t v = t.order_version();
  t.at(a).value = 5;
  t.index(a, "a");
  EXPECT_EQ(t.order_version(), v);
  t.move_last(a);
  EXPECT_GT(t.order_version(), v);
}

TEST(SlotTable, IdentityNamesOneEntryUnderOneKey) {
  TestTable t;
  const uint32_t a = t.insert("a");
  const uint64_t first = t.identity(a);
  EXPECT_NE(first, 0u);
  // Written, moved, indexed again under the same key: the same object.
  t.at(a).value = 3;
  t.move_last(a);
  t.index(a, "a");
  EXPECT_EQ(t.identity(a), first);
  // Renamed: another object to whoever held the old identity.
  t.unindex(a);
  t.index(a, "a2");
  const uint64_t renamed = t.identity(a);
  EXPECT_NE(renamed, first);
  // Freed and reused by a newcomer (the same slot): another again.
  t.erase(a);
  EXPECT_EQ(t.identity(a), 0u);
  t.forget_changes();
  t.forget_changes();
  const uint32_t b = t.insert("b");
  ASSERT_EQ(b, a);
  EXPECT_NE(t.identity(b), first);
  EXPECT_NE(t.identity(b), renamed);
}

TEST(SlotTable, AnErasedSlotWaitsTwoLooksBeforeItServesAgain) {
  TestTable t;
  const uint32_t a = t.insert("a");
  t.erase(a);
  // Not before the look that reports it gone, nor the session after it.
  EXPECT_NE(t.insert("b"), a);
  t.forget_changes();
  EXPECT_NE(t.insert("c"), a);
  t.forget_changes();
  EXPECT_EQ(t.insert("d"), a);
}

TEST(SlotTable, MoveVersionMovesWhenAnEntryMovesNotWhenOneLeaves) {
  TestTable t;
  const uint32_t a = t.insert("a");
  const uint32_t b = t.insert("b");
  const uint64_t v = t.move_version();
  t.erase(a);
  t.insert("c");
  EXPECT_EQ(t.move_version(), v);
  t.move_last(b);
  EXPECT_GT(t.move_version(), v);
}

}  // namespace
}  // namespace scoria::cache
