// Log lines are clipped: a name a client sent, however long, costs the log
// at most log::kMaxMessage bytes, and never half a character.
#include <gtest/gtest.h>

#include <string>

#include "log/log.h"

namespace scoria::log {
namespace {

TEST(LogClip, AShortMessageIsWhole) {
  size_t left_out = 7;
  EXPECT_EQ(clipped("pod default/web-0 bound", &left_out), "pod default/web-0 bound");
  EXPECT_EQ(left_out, 0u);
}

TEST(LogClip, ALongMessageIsCutAndSaysHowMuch) {
  const std::string name(100000, 'a');
  size_t left_out = 0;
  const std::string_view text = clipped("refused " + name, &left_out);
  EXPECT_EQ(text.size(), kMaxMessage);
  EXPECT_EQ(text.size() + left_out, name.size() + 8);
}

TEST(LogClip, ACutNeverSplitsACharacter) {
  // "é" is two bytes; one sits across the limit.
  std::string text(kMaxMessage - 1, 'x');
  text += "\xc3\xa9";
  text += std::string(10, 'y');
  size_t left_out = 0;
  const std::string_view kept = clipped(text, &left_out);
  EXPECT_EQ(kept.size(), kMaxMessage - 1);
  EXPECT_EQ(left_out, 12u);
}

}  // namespace
}  // namespace scoria::log
