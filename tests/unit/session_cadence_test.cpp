// When serve's next session starts (serve/session_cadence.h), and how a
// session's record is cut into pieces (serve/outcome_recorder.h). The
// cadence's timer is only read here, never waited for.
#include "serve/session_cadence.h"

#include <gtest/gtest.h>

#include <chrono>

#include "serve/outcome_recorder.h"

namespace scoria::serve {
namespace {

using namespace std::chrono_literals;
using Clock = SessionCadence::Clock;

struct Cadence : ::testing::Test {
  boost::asio::io_context io;
  int started = 0;
  SessionCadence make(bool early) {
    return SessionCadence(io, early, [this] { ++started; });
  }
  // A session began and ended at once; the next is due a minute after it.
  static void ran(SessionCadence& c) {
    c.begin();
    c.finished(0ms);
    c.next(60s);
  }
};

TEST_F(Cadence, TheNextSessionIsAPeriodAfterTheLastStarted) {
  SessionCadence c = make(true);
  c.begin();
  EXPECT_FALSE(c.armed());
  ran(c);
  EXPECT_TRUE(c.armed());
  EXPECT_EQ(c.expiry(), c.session_start() + 60s);
}

TEST_F(Cadence, AWriteBringsTheNextSessionForward) {
  SessionCadence c = make(true);
  ran(c);
  const Clock::time_point before = Clock::now();
  c.wake();
  EXPECT_GE(c.expiry(), before + SessionCadence::kWakeDelay);
  EXPECT_LT(c.expiry(), c.session_start() + 60s);
}

TEST_F(Cadence, WithoutScheduleOnChangeAWriteWaitsForThePeriod) {
  SessionCadence c = make(false);
  ran(c);
  c.wake();
  EXPECT_EQ(c.expiry(), c.session_start() + 60s);
}

TEST_F(Cadence, AWriteDuringASessionShortensTheWaitAfterIt) {
  SessionCadence c = make(true);
  c.begin();
  c.wake();  // the session is under way: the timer is not armed
  EXPECT_FALSE(c.armed());
  c.finished(0ms);
  c.next(60s);
  EXPECT_LT(c.expiry(), c.session_start() + 60s);
}

TEST_F(Cadence, ARefreshThatTookTheWritesForgetsThem) {
  SessionCadence c = make(true);
  c.begin();
  c.wake();
  c.caught_up();
  c.finished(0ms);
  c.next(60s);
  EXPECT_EQ(c.expiry(), c.session_start() + 60s);
}

TEST_F(Cadence, AnEarlyStartWaitsAsLongAsTheLastSessionHeldTheLoop) {
  SessionCadence c = make(true);
  c.begin();
  const Clock::time_point before = Clock::now();
  c.finished(20s);
  c.next(60s);
  c.wake();
  EXPECT_GE(c.expiry(), before + 20s);
  EXPECT_LT(c.expiry(), c.session_start() + 60s);
}

TEST_F(Cadence, TheTimerStartsTheSessionOnceAndAStoppedOneNothing) {
  SessionCadence c = make(true);
  c.begin();
  c.next(0ms);
  io.run();
  EXPECT_EQ(started, 1);
  io.restart();
  c.begin();
  c.next(0ms);
  c.stop();
  c.wake();
  io.run();
  EXPECT_EQ(started, 1);
}

TEST(OutcomePieces, TheLastPieceCarriesAllButTheBinds) {
  cycle::Outcome whole;
  whole.dims = {"cpu"};
  for (int i = 0; i < 5; ++i) whole.binds.push_back({"ns/p" + std::to_string(i), "n1"});
  whole.evictions = {"ns/victim"};
  whole.unschedulable_tasks = 3;
  const cycle::Outcome first = OutcomeRecorder::piece_of(whole, 0, 2);
  ASSERT_EQ(first.binds.size(), 2u);
  EXPECT_EQ(first.binds[1].pod, "ns/p1");
  EXPECT_EQ(first.dims, whole.dims);
  EXPECT_TRUE(first.evictions.empty());
  EXPECT_EQ(first.unschedulable_tasks, 0u);
  const cycle::Outcome last = OutcomeRecorder::piece_of(whole, 2, 5);
  ASSERT_EQ(last.binds.size(), 3u);
  EXPECT_EQ(last.binds[0].pod, "ns/p2");
  EXPECT_EQ(last.evictions, whole.evictions);
  EXPECT_EQ(last.unschedulable_tasks, 3u);
}

}  // namespace
}  // namespace scoria::serve
