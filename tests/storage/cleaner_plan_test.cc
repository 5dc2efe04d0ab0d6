// plan_cleanable_range: Kafka's cleanableOffsets / calculateCleanableBytes /
// maxCompactionDelay as a pure function.

#include "storage/cleaner_plan.h"

#include <gtest/gtest.h>

#include <vector>

namespace hw::storage {
namespace {

constexpr int64_t now = 1'000'000;

// Segments at 0, 100, 200, 300 (active), 1000 bytes each, largest timestamp
// base/100 * 1000, first batch 1 ms after the previous segment's largest.
std::vector<cleaner_segment_info> four_segments() {
  std::vector<cleaner_segment_info> s;
  for (int i = 0; i < 4; ++i)
    s.push_back({offset(i * 100), 1000, static_cast<int64_t>(i + 1) * 1000, static_cast<int64_t>(i) * 1000 + 1});
  return s;
}

cleanable_input input(const std::vector<cleaner_segment_info>& s, std::optional<offset> checkpoint,
                      offset lso = offset(350)) {
  return {s, offset(0), offset(350), lso, checkpoint, now};
}

TEST(CleanerPlan, NoCheckpointMeansEverythingBelowTheActiveSegmentIsDirty) {
  auto s = four_segments();
  auto r = plan_cleanable_range({}, input(s, std::nullopt));
  EXPECT_EQ(r.first_dirty_offset, offset(0));
  EXPECT_EQ(r.first_uncleanable_offset, offset(300));
  EXPECT_EQ(r.clean_bytes, 0u);
  EXPECT_EQ(r.cleanable_bytes, 3000u);
  EXPECT_DOUBLE_EQ(r.cleanable_ratio(), 1.0);
  EXPECT_FALSE(r.force_checkpoint_update);
  EXPECT_TRUE(r.should_clean(0.5));
}

TEST(CleanerPlan, DirtyRatioComesFromTheCheckpoint) {
  auto s = four_segments();
  auto r = plan_cleanable_range({}, input(s, offset(200)));
  EXPECT_EQ(r.clean_bytes, 2000u);
  EXPECT_EQ(r.cleanable_bytes, 1000u);
  EXPECT_NEAR(r.cleanable_ratio(), 1.0 / 3, 1e-9);
  EXPECT_FALSE(r.should_clean(0.5));
  EXPECT_TRUE(r.should_clean(0.3));
  // Exactly the ratio is not enough (Kafka: strictly greater).
  r = plan_cleanable_range({}, input(s, offset(100)));
  EXPECT_NEAR(r.cleanable_ratio(), 2.0 / 3, 1e-9);
  EXPECT_TRUE(r.should_clean(0.5));
}

TEST(CleanerPlan, CheckpointOutsideTheLogIsResetToTheLogStart) {
  auto s = four_segments();
  for (offset bad : {offset(400), offset(-5)}) {
    cleanable_input in = input(s, bad);
    in.log_start_offset = offset(0);
    auto r = plan_cleanable_range({}, in);
    EXPECT_EQ(r.first_dirty_offset, offset(0)) << bad;
    EXPECT_TRUE(r.force_checkpoint_update) << bad;
  }
  cleanable_input in = input(s, offset(10));
  in.log_start_offset = offset(50);
  auto r = plan_cleanable_range({}, in);
  EXPECT_EQ(r.first_dirty_offset, offset(50));
  EXPECT_TRUE(r.force_checkpoint_update);
}

TEST(CleanerPlan, NeverPastTheLastStableOffsetRoundedToItsSegment) {
  auto s = four_segments();
  auto r = plan_cleanable_range({}, input(s, std::nullopt, offset(150)));
  EXPECT_EQ(r.first_uncleanable_dirty_offset, offset(150));
  EXPECT_EQ(r.first_uncleanable_offset, offset(100));
  EXPECT_EQ(r.cleanable_bytes, 1000u);
}

TEST(CleanerPlan, MinCompactionLagHoldsBackRecentSegments) {
  auto s = four_segments();
  s[1].largest_timestamp = now - 500;  // segment 100 is recent
  log_config c;
  c.min_compaction_lag_ms = 1000;
  auto r = plan_cleanable_range(c, input(s, std::nullopt));
  EXPECT_EQ(r.first_uncleanable_offset, offset(100));
  EXPECT_EQ(r.cleanable_bytes, 1000u);
  c.min_compaction_lag_ms = 400;
  r = plan_cleanable_range(c, input(s, std::nullopt));
  EXPECT_EQ(r.first_uncleanable_offset, offset(300));
}

TEST(CleanerPlan, MaxCompactionLagForcesCleaningBelowTheRatio) {
  auto s = four_segments();
  log_config c;
  auto r = plan_cleanable_range(c, input(s, offset(200)));
  EXPECT_FALSE(r.needs_compaction_now());
  EXPECT_FALSE(r.should_clean(0.5));
  // The dirty segment 200's first batch is at 2001: older than now - lag.
  c.max_compaction_lag_ms = now - 3001;
  r = plan_cleanable_range(c, input(s, offset(200)));
  EXPECT_EQ(r.compaction_delay_ms, 1000);
  EXPECT_TRUE(r.should_clean(0.5));
  // Clean segments do not count.
  c.max_compaction_lag_ms = now - 1500;
  r = plan_cleanable_range(c, input(s, offset(200)));
  EXPECT_FALSE(r.needs_compaction_now());
}

TEST(CleanerPlan, AnEmptyLogIsNotCleaned) {
  std::vector<cleaner_segment_info> s{{offset(0), 0, -1, std::nullopt}};
  cleanable_input in{s, offset(0), offset(0), offset(0), std::nullopt, now};
  auto r = plan_cleanable_range({}, in);
  EXPECT_EQ(r.total_bytes(), 0u);
  EXPECT_FALSE(r.should_clean(0.0));
}

}  // namespace
}  // namespace hw::storage
