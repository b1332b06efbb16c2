// The revocable-zone windows as Volcano's tdm parses and judges them
// (its TestParseRevocableZone cases, and when a window is open). Run in UTC.
#include "revocable_zone.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <string_view>

namespace {

using scoria_tdm::open_at;
using scoria_tdm::parse_window;
using scoria_tdm::Window;

class RevocableZone : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
};

// Length of the window in seconds, as Volcano's test measures end - start.
int64_t length(const Window& w) {
  const int end = w.start_minute >= w.end_minute ? w.end_minute + 24 * 60 : w.end_minute;
  return static_cast<int64_t>(end - w.start_minute) * 60;
}

// 2026-01-01 at hh:mm:ss UTC, in ms since the epoch.
int64_t at(int hh, int mm, int ss = 0) { return (1767225600LL + hh * 3600 + mm * 60 + ss) * 1000; }

TEST_F(RevocableZone, ParsesWhatVolcanoParses) {
  const struct {
    std::string_view text;
    std::optional<int64_t> seconds;  // nullopt: refused
  } cases[] = {
      {"00:00_01:00", std::nullopt},
      {"00:00-01:00", 60 * 60},
      {"0:00-23:59", 23 * 60 * 60 + 59 * 60},
      {"0:00", std::nullopt},
      {"1:00-0:00", 23 * 60 * 60},
      {"1:0-0:0", std::nullopt},
      {"   1:00-0:00    ", 23 * 60 * 60},
      {"23:59-23:59", 24 * 60 * 60},
      {"63:59-23:59", std::nullopt},
  };
  for (const auto& c : cases) {
    const std::optional<Window> w = parse_window(c.text);
    ASSERT_EQ(w.has_value(), c.seconds.has_value()) << c.text;
    if (w) {
      EXPECT_EQ(length(*w), *c.seconds) << c.text;
    }
  }
}

TEST_F(RevocableZone, OpenFromStartToEndInWholeSeconds) {
  const Window w = *parse_window("10:00-21:00");
  EXPECT_FALSE(open_at(w, at(9, 59, 59)));
  EXPECT_TRUE(open_at(w, at(10, 0)));
  EXPECT_TRUE(open_at(w, at(21, 0, 0) + 999));  // 21:00:00.999 is second 21:00:00
  EXPECT_FALSE(open_at(w, at(21, 0, 1)));
}

TEST_F(RevocableZone, AnEqualStartAndEndIsTheWholeDay) {
  const Window w = *parse_window("0:00-0:00");
  EXPECT_TRUE(open_at(w, at(0, 0)));
  EXPECT_TRUE(open_at(w, at(12, 0)));
  EXPECT_TRUE(open_at(w, at(23, 59, 59)));
}

// As Volcano computes it, the window starts today: an overnight window is
// open from its start to midnight, not in the small hours after it.
TEST_F(RevocableZone, AnOvernightWindowIsOpenOnlyUntilMidnight) {
  const Window w = *parse_window("22:00-06:00");
  EXPECT_TRUE(open_at(w, at(23, 0)));
  EXPECT_FALSE(open_at(w, at(3, 0)));
  EXPECT_FALSE(open_at(w, at(12, 0)));
}

}  // namespace
