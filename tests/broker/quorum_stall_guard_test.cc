// broker/metadata/stall_guard: leaderships in doubt after the process stood
// still, until the metadata catches up with the quorum or the doubt expires.

#include <gtest/gtest.h>

#include "broker/metadata/stall_guard.h"

namespace hw::broker {
namespace {

// A stall of 2 s or more; doubt for 4 s at most; the publisher's applied
// end is `applied`.
struct StallGuard : ::testing::Test {
  int64_t applied = 100;
  stall_guard guard{2000, 4000, [this] { return applied; }};
  // Ticks every 10 ms from `from` to `to`.
  void tick_through(int64_t from, int64_t to) {
    for (int64_t t = from; t <= to; t += 10) guard.tick(t);
  }
};

TEST_F(StallGuard, ATickingProcessIsNeverInDoubt) {
  EXPECT_FALSE(guard.in_doubt(5000));  // not ticking yet: start-up is no stall
  tick_through(5000, 9000);
  EXPECT_FALSE(guard.in_doubt(9005));
  guard.tick(10990);  // a slow tick, below the stall
  EXPECT_FALSE(guard.in_doubt(10995));
}

TEST_F(StallGuard, ATickGapPutsTheLeadershipsInDoubtUntilAFetchSentAfterItIsApplied) {
  tick_through(1000, 2000);
  guard.tick(9000);  // seven seconds stopped
  EXPECT_TRUE(guard.in_doubt(9001));
  // An answer to a fetch that left before the stall proves nothing.
  guard.answered(1990, 100);
  guard.tick(9010);
  EXPECT_TRUE(guard.in_doubt(9011));
  // One sent after it names a high watermark the publisher has not reached.
  guard.answered(9005, 120);
  guard.tick(9020);
  EXPECT_TRUE(guard.in_doubt(9021));
  applied = 120;
  guard.tick(9030);
  EXPECT_FALSE(guard.in_doubt(9031));
}

TEST_F(StallGuard, AnAnswerWithNothingNewEndsTheDoubtAtOnce) {
  tick_through(1000, 2000);
  guard.tick(6000);
  ASSERT_TRUE(guard.in_doubt(6001));
  guard.answered(6002, 100);  // the publisher already holds it all
  EXPECT_FALSE(guard.in_doubt(6003));
}

// The request that runs first after the resume sees the tick overdue.
TEST_F(StallGuard, ARequestBeforeTheTickSeesTheStallItself) {
  tick_through(1000, 2000);
  EXPECT_TRUE(guard.in_doubt(7000));
  // The tick that follows sees the same stall: still in doubt, and an
  // answer sent between the two counts.
  guard.answered(7001, 100);
  EXPECT_FALSE(guard.in_doubt(7002));
  guard.tick(7003);
  EXPECT_FALSE(guard.in_doubt(7004));
}

TEST_F(StallGuard, DoubtEndsAfterItsLimitWithoutTheQuorum) {
  tick_through(1000, 2000);
  guard.tick(8000);
  tick_through(8010, 11990);
  EXPECT_TRUE(guard.in_doubt(11995));
  EXPECT_FALSE(guard.in_doubt(12000));
  guard.tick(12000);
  EXPECT_FALSE(guard.in_doubt(12001));
  // A later stall is doubted again.
  tick_through(12010, 13000);
  guard.tick(20000);
  EXPECT_TRUE(guard.in_doubt(20001));
}

}  // namespace
}  // namespace hw::broker
