// ChoiceIndex against the scans it stands for, on random leaves and ranges.
#include "session/choice_index.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace scoria::session {
namespace {

struct Leaf {
  bool fits = false;
  bool idle = false;
  double score = 0;
};

size_t scan_best(const std::vector<Leaf>& leaves, size_t begin, size_t end, bool idle) {
  size_t best = ChoiceIndex::kNone;
  for (size_t i = begin; i < end; ++i) {
    const Leaf& l = leaves[i];
    if (!l.fits || l.idle != idle) continue;
    if (best == ChoiceIndex::kNone || l.score > leaves[best].score) best = i;
  }
  return best;
}

TEST(ChoiceIndex, AnswersWhatAScanFinds) {
  std::mt19937 random(7);
  // One index, reset from size to size (sessions reuse its storage).
  ChoiceIndex index;
  for (const size_t n : {1u, 2u, 5u, 64u, 100u, 1000u, 100u, 5u}) {
    index.reset(n);
    ASSERT_EQ(index.size(), n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(index.generation(i), 0u);
    EXPECT_EQ(index.fit_count(0, n), 0u);
    std::vector<Leaf> leaves(n);
    for (int round = 0; round < 400; ++round) {
      // Few distinct scores, so that ties are common.
      const size_t i = random() % n;
      Leaf l{random() % 4 != 0, random() % 2 == 0, static_cast<double>(random() % 5)};
      leaves[i] = l;
      index.set(i, static_cast<uint32_t>(round + 1), l.fits, l.idle, l.score);
      EXPECT_EQ(index.generation(i), static_cast<uint32_t>(round + 1));

      size_t begin = random() % (n + 1), end = random() % (n + 1);
      if (begin > end) std::swap(begin, end);
      size_t fits = 0;
      for (size_t k = begin; k < end; ++k) fits += leaves[k].fits;
      ASSERT_EQ(index.fit_count(begin, end), fits) << n << " [" << begin << ", " << end << ")";
      for (const bool idle : {true, false})
        ASSERT_EQ(index.best(begin, end, idle), scan_best(leaves, begin, end, idle))
            << n << " [" << begin << ", " << end << ") idle " << idle;

      const size_t total = index.fit_count(0, n);
      if (total > 0) {
        const size_t k = random() % total;
        size_t seen = 0, at = 0;
        for (; at < n; ++at)
          if (leaves[at].fits && seen++ == k) break;
        ASSERT_EQ(index.nth_fit(k), at) << n << " k " << k;
      }
    }
  }
}

TEST(ChoiceIndex, TiesGoToTheLowerPosition) {
  ChoiceIndex index(8);
  index.set(6, 1, true, true, 3.0);
  index.set(2, 1, true, true, 3.0);
  index.set(4, 1, true, true, 1.0);
  EXPECT_EQ(index.best(0, 8, true), 2u);
  EXPECT_EQ(index.best(3, 8, true), 6u);
  EXPECT_EQ(index.best(0, 8, false), ChoiceIndex::kNone);
  EXPECT_EQ(index.better(6, 2), 2u);
  EXPECT_EQ(index.better(ChoiceIndex::kNone, 4), 4u);
}

TEST(ChoiceIndex, ANodeThatStopsFittingLeavesEveryAnswer) {
  ChoiceIndex index(3);
  index.set(1, 1, true, false, 9.0);
  EXPECT_EQ(index.best(0, 3, false), 1u);
  EXPECT_EQ(index.fit_count(0, 3), 1u);
  index.set(1, 2, false, false, 9.0);
  EXPECT_EQ(index.best(0, 3, false), ChoiceIndex::kNone);
  EXPECT_EQ(index.fit_count(0, 3), 0u);
}

}  // namespace
}  // namespace scoria::session
