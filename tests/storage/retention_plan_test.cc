// plan_retention: Kafka 4.x's deleteOldSegments decisions as a pure
// function (log start offset breach, then retention.bytes, then
// retention.ms; HW bound; empty active segment kept; a non-empty active
// segment deleted by rolling first once the HW reaches the log end).

#include "storage/retention.h"

#include <gtest/gtest.h>

namespace hw::storage {
namespace {

constexpr int64_t day_ms = 24LL * 60 * 60 * 1000;
constexpr int64_t now = 100 * day_ms;

// Segments of 10 offsets each, base 0, 10, 20, ...; the last is the active one.
struct fixture {
  std::vector<segment_info> segments;
  offset log_start{0};
  offset hw{0};

  void add(uint64_t size_bytes, int64_t max_timestamp) {
    offset base(static_cast<int64_t>(segments.size()) * 10);
    offset next = size_bytes ? base + 10 : base;
    segments.push_back({base, next, size_bytes, max_timestamp});
  }
  offset end() const { return segments.back().next_offset; }
  retention_plan plan(const log_config& config, std::optional<offset> high_watermark = std::nullopt) const {
    retention_input in{segments, log_start, end(), high_watermark.value_or(end()), now};
    return plan_retention(config, in);
  }
};

std::vector<int64_t> bases(const retention_plan& p) {
  std::vector<int64_t> out;
  for (const auto& d : p.deletions) out.push_back(d.base_offset.value);
  return out;
}

log_config config_with(int64_t retention_ms, int64_t retention_bytes) {
  log_config c;
  c.retention_ms = retention_ms;
  c.retention_bytes = retention_bytes;
  return c;
}

TEST(RetentionPlan, DefaultsAreKafkas) {
  log_config c;
  EXPECT_EQ(c.retention_ms, 604'800'000);
  EXPECT_EQ(c.retention_bytes, -1);
  EXPECT_EQ(c.file_delete_delay_ms, 60'000);
  EXPECT_TRUE(c.cleanup.delete_enabled);
  EXPECT_FALSE(c.cleanup.compact);
}

TEST(RetentionPlan, TimeDeletesTheOldestRunPastRetention) {
  fixture f;
  f.add(100, now - 9 * day_ms);
  f.add(100, now - 8 * day_ms);
  f.add(100, now - 1 * day_ms);  // stops the run
  f.add(100, now - 30 * day_ms);  // older, but after a kept one
  f.add(100, now);                // active
  auto p = f.plan(log_config{});
  EXPECT_EQ(bases(p), (std::vector<int64_t>{0, 10}));
  EXPECT_EQ(p.first_kept_base_offset, offset(20));
  EXPECT_FALSE(p.rolls_active_segment);
  EXPECT_EQ(p.deletions[0].cause, retention_cause::retention_ms_breach);
  EXPECT_EQ(p.deletions[0].reason,
            "Deleting segment LogSegment(baseOffset=0, size=100, largestRecordTimestamp=" +
                std::to_string(now - 9 * day_ms) +
                ") due to log retention time 604800000ms breach based on the largest record timestamp in the segment");
}

TEST(RetentionPlan, TimeBreachIsStrictAndFutureTimestampsKeep) {
  fixture f;
  f.add(100, now - 7 * day_ms);  // exactly retention.ms old: kept (Kafka: now - ts > retention)
  f.add(100, now);
  EXPECT_TRUE(f.plan(log_config{}).deletions.empty());
  fixture g;
  g.add(100, now + day_ms);  // a future timestamp is never old enough
  g.add(100, now - 30 * day_ms);
  g.add(100, now);
  EXPECT_TRUE(g.plan(log_config{}).deletions.empty());
}

TEST(RetentionPlan, InfiniteRetentionAndNoTimestampKeepEverything) {
  fixture f;
  f.add(100, now - 90 * day_ms);
  f.add(100, no_timestamp);
  f.add(100, now);
  EXPECT_TRUE(f.plan(config_with(-1, -1)).deletions.empty());
  EXPECT_EQ(bases(f.plan(log_config{})), (std::vector<int64_t>{0}));  // stops at the segment without timestamps
}

TEST(RetentionPlan, SizeDeletesOldestWhileTheRestStillHoldsRetentionBytes) {
  fixture f;
  for (int i = 0; i < 5; ++i) f.add(100, now);
  // 500 bytes, retention 250: excess 250 -> two segments (250-100-100 = 50 < 100).
  auto p = f.plan(config_with(-1, 250));
  EXPECT_EQ(bases(p), (std::vector<int64_t>{0, 10}));
  EXPECT_EQ(p.deletions[1].cause, retention_cause::retention_bytes_breach);
  EXPECT_EQ(p.deletions[0].reason,
            "Deleting segment LogSegment(baseOffset=0, size=100, largestRecordTimestamp=" + std::to_string(now) +
                ") due to log retention size 250 breach. Log size after deletion will be 400.");
  EXPECT_EQ(p.deletions[1].reason.substr(p.deletions[1].reason.size() - 4), "300.");
  // Exactly at the limit: the excess is 0, nothing goes; size >= retention + segment: it goes.
  EXPECT_TRUE(f.plan(config_with(-1, 500)).deletions.empty());
  EXPECT_EQ(bases(f.plan(config_with(-1, 400))), (std::vector<int64_t>{0}));
  EXPECT_TRUE(f.plan(config_with(-1, 401)).deletions.empty());
}

TEST(RetentionPlan, SizeThenTimeEachOnWhatTheOtherLeft) {
  fixture f;
  f.add(100, now - 1 * day_ms);  // young, but over the size limit
  f.add(100, now - 1 * day_ms);
  f.add(100, now - 8 * day_ms);  // old: time deletes it after size took the first two
  f.add(100, now);
  auto p = f.plan(config_with(7 * day_ms, 200));
  EXPECT_EQ(bases(p), (std::vector<int64_t>{0, 10, 20}));
  EXPECT_EQ(p.deletions[0].cause, retention_cause::retention_bytes_breach);
  EXPECT_EQ(p.deletions[1].cause, retention_cause::retention_bytes_breach);
  EXPECT_EQ(p.deletions[2].cause, retention_cause::retention_ms_breach);
  EXPECT_EQ(p.first_kept_base_offset, offset(30));
}

TEST(RetentionPlan, NeverPastTheHighWatermark) {
  fixture f;
  for (int i = 0; i < 4; ++i) f.add(100, now - 30 * day_ms);
  // HW 15: segment 0 (next base 10 <= 15) may go, segment 1 (next base 20) not.
  EXPECT_EQ(bases(f.plan(log_config{}, offset(15))), (std::vector<int64_t>{0}));
  EXPECT_EQ(bases(f.plan(log_config{}, offset(20))), (std::vector<int64_t>{0, 10}));
  EXPECT_TRUE(f.plan(log_config{}, offset(9)).deletions.empty());
  // The active segment needs the HW at the log end.
  EXPECT_EQ(bases(f.plan(log_config{}, offset(39))), (std::vector<int64_t>{0, 10, 20}));
  EXPECT_FALSE(f.plan(log_config{}, offset(39)).rolls_active_segment);
}

TEST(RetentionPlan, NonEmptyActiveSegmentGoesByRollingOnceTheHwReachesTheEnd) {
  fixture f;
  f.add(100, now - 30 * day_ms);
  f.add(100, now - 30 * day_ms);  // active, expired
  auto p = f.plan(log_config{});
  EXPECT_EQ(bases(p), (std::vector<int64_t>{0, 10}));
  EXPECT_TRUE(p.rolls_active_segment);
  EXPECT_EQ(p.first_kept_base_offset, offset(20));  // the log end: the rolled segment
}

TEST(RetentionPlan, EmptyActiveSegmentIsKept) {
  fixture f;
  f.add(100, now - 30 * day_ms);
  f.add(0, no_timestamp);  // active, empty
  auto p = f.plan(config_with(7 * day_ms, 0));
  EXPECT_EQ(bases(p), (std::vector<int64_t>{0}));
  EXPECT_FALSE(p.rolls_active_segment);
  EXPECT_EQ(p.first_kept_base_offset, offset(10));
}

TEST(RetentionPlan, LogStartOffsetBreachAppliesUnderEveryPolicy) {
  fixture f;
  for (int i = 0; i < 4; ++i) f.add(100, now);
  f.log_start = offset(25);
  log_config compact;
  compact.cleanup = {.delete_enabled = false, .compact = true};
  compact.retention_bytes = 0;  // ignored without "delete"
  auto p = f.plan(compact);
  EXPECT_EQ(bases(p), (std::vector<int64_t>{0, 10}));  // segment 2 holds 25
  EXPECT_EQ(p.deletions[0].cause, retention_cause::log_start_offset_breach);
  EXPECT_EQ(p.deletions[0].reason, "Deleting segment LogSegment(baseOffset=0, size=100, largestRecordTimestamp=" +
                                       std::to_string(now) + ") due to log start offset 25 breach");
  // And it still stops at the HW.
  EXPECT_EQ(bases(f.plan(compact, offset(12))), (std::vector<int64_t>{0}));
}

}  // namespace
}  // namespace hw::storage
