// storage/log: leader and follower appends, rolling, reads (ranges, bounds,
// out of range, one segment per read), ListOffsets by time, LOG_APPEND_TIME,
// and refused appends.

#include "storage/log.h"

#include <gtest/gtest.h>

#include "tests/storage/fixtures/log_test_support.h"

namespace hw::storage {
namespace {

using namespace hw::storage::testing;

class LogTest : public ::testing::Test {
 protected:
  void SetUp() override { open_log(); }

  void open_log(bool clean = false) {
    log_.reset();
    log_open_options o;
    o.had_clean_shutdown = clean;
    o.now_ms = now_ms_;
    ASSERT_FALSE(log::open(*fs_, dir(), config_, o, &log_, &report_));
  }
  std::filesystem::path dir() const { return tmp_.path() / "topic-0"; }

  // Appends one leader batch of n records (base offset left at 0: the log assigns).
  append_result append(int n, int64_t ts = 1000, int32_t epoch = 3, size_t value_bytes = 20) {
    bytes batch = make_batch({.records = n, .first_timestamp = ts, .value_bytes = value_bytes});
    append_result r;
    std::error_code ec = log_->append(batch, {append_origin::leader, leader_epoch(epoch), now_ms_}, &r);
    EXPECT_FALSE(ec) << ec.message();
    return r;
  }
  std::vector<std::string> files() {
    std::vector<std::string> names;
    EXPECT_FALSE(fs_->list(dir(), &names));
    return names;
  }

  temp_dir tmp_;
  std::unique_ptr<file_system> fs_ = make_posix_file_system();
  log_config config_{.segment_bytes = 1024, .index_interval_bytes = 128};
  int64_t now_ms_ = 5'000;
  std::unique_ptr<log> log_;
  log_load_report report_;
};

TEST_F(LogTest, NewLogIsEmptyWithOneSegment) {
  EXPECT_EQ(log_->log_end_offset(), offset(0));
  EXPECT_EQ(log_->log_start_offset(), offset(0));
  EXPECT_EQ(files(), (std::vector<std::string>{"00000000000000000000.index", "00000000000000000000.log",
                                               "00000000000000000000.timeindex"}));
}

TEST_F(LogTest, LeaderAppendAssignsOffsetsAndEpochInPlace) {
  auto a = append(3, 1000, 7);
  EXPECT_EQ(a.first_offset, offset(0));
  EXPECT_EQ(a.last_offset, offset(2));
  EXPECT_EQ(a.max_timestamp, 1002);
  EXPECT_EQ(a.offset_of_max_timestamp, offset(2));
  EXPECT_EQ(a.first_position.position, 0u);
  auto b = append(2, 2000, 8);
  EXPECT_EQ(b.first_offset, offset(3));
  EXPECT_EQ(b.last_offset, offset(4));
  EXPECT_EQ(b.first_position.position, a.bytes);
  EXPECT_EQ(log_->log_end_offset(), offset(5));
  auto records = read_all(*log_, 0);
  ASSERT_EQ(records.size(), 5u);
  EXPECT_EQ(records[0], (read_record{0, 1000, 7, std::string("v0") + std::string(18, '.')}));
  EXPECT_EQ(records[4].offset, 4);
  EXPECT_EQ(records[4].leader_epoch, 8);
  EXPECT_EQ(records[4].timestamp, 2001);
}

TEST_F(LogTest, FollowerAppendKeepsOffsetsAndRefusesGoingBack) {
  bytes batches = make_batch({.base_offset = 0, .records = 2, .leader_epoch = 1});
  append_to(batches, make_batch({.base_offset = 10, .records = 3, .leader_epoch = 2}));  // a gap (compaction)
  append_result r;
  ASSERT_FALSE(log_->append(batches, {append_origin::replication, leader_epoch(9), now_ms_}, &r));
  EXPECT_EQ(r.first_offset, offset(0));
  EXPECT_EQ(r.last_offset, offset(12));
  EXPECT_EQ(log_->log_end_offset(), offset(13));
  auto records = read_all(*log_, 0);
  ASSERT_EQ(records.size(), 5u);
  EXPECT_EQ(records[2].offset, 10);
  EXPECT_EQ(records[2].leader_epoch, 2);

  bytes below = make_batch({.base_offset = 12, .records = 1});
  EXPECT_EQ(log_->append(below, {append_origin::replication, leader_epoch(0), now_ms_}, &r),
            make_error_code(log_errc::unexpected_append_offset));
  bytes unordered = make_batch({.base_offset = 20, .records = 3});
  append_to(unordered, make_batch({.base_offset = 21, .records = 1}));
  EXPECT_EQ(log_->append(unordered, {append_origin::replication, leader_epoch(0), now_ms_}, &r),
            make_error_code(log_errc::offsets_out_of_order));
  EXPECT_EQ(log_->log_end_offset(), offset(13));
  EXPECT_FALSE(log_->offline()) << "refused appends are not storage errors";
}

TEST_F(LogTest, RefusesAppendsThatAreNotWholeBatchesOrTooLarge) {
  bytes batch = make_batch({.records = 2});
  batch.pop_back();
  append_result r;
  EXPECT_EQ(log_->append(batch, {}, &r), make_error_code(log_errc::invalid_records));
  bytes big = make_batch({.records = 1, .value_bytes = 2000});
  EXPECT_EQ(log_->append(big, {}, &r), make_error_code(log_errc::record_batch_too_large));
  EXPECT_EQ(log_->log_end_offset(), offset(0));
}

TEST_F(LogTest, RollsBeforePassingSegmentBytes) {
  for (int i = 0; i < 20; ++i) append(4);  // ~190 bytes each, 1 KiB segments
  EXPECT_GT(log_->segment_count(), 3u);
  auto infos = log_->segment_infos();
  for (size_t i = 0; i < infos.size(); ++i) {
    EXPECT_LE(infos[i].size_bytes, 1024u);
    if (i > 0) {
      EXPECT_EQ(infos[i].base_offset, infos[i - 1].next_offset);
    }
  }
  auto records = read_all(*log_, 0);
  ASSERT_EQ(records.size(), 80u);
  for (int i = 0; i < 80; ++i) EXPECT_EQ(records[i].offset, i);
}

TEST_F(LogTest, ExplicitRollKeepsAnEmptyActiveSegment) {
  append(2);
  ASSERT_FALSE(log_->roll(now_ms_));
  EXPECT_EQ(log_->segment_count(), 2u);
  ASSERT_FALSE(log_->roll(now_ms_));
  EXPECT_EQ(log_->segment_count(), 2u);
  EXPECT_EQ(log_->segment_infos().back().base_offset, offset(2));
}

TEST_F(LogTest, RollsOnSegmentMsFromTheFirstBatchTimestamp) {
  config_.segment_ms = 10'000;
  open_log();
  append(1, 100'000);
  append(1, 109'000);
  EXPECT_EQ(log_->segment_count(), 1u);
  append(1, 110'002);  // past segment.ms after the first batch's max timestamp
  EXPECT_EQ(log_->segment_count(), 2u);
}

TEST_F(LogTest, ReadIsOutOfRangeOutsideTheLog) {
  append(3);
  log_read_result r;
  EXPECT_EQ(log_->read(offset(4), 1000, offset(100), true, &r), make_error_code(log_errc::offset_out_of_range));
  EXPECT_FALSE(log_->read(offset(3), 1000, offset(100), true, &r));
  EXPECT_EQ(r.length, 0u);
  EXPECT_EQ(r.fetch_offset.offset, offset(3));
}

TEST_F(LogTest, ReadStopsBeforeTheBatchHoldingTheBound) {
  auto a = append(3);
  append(3);
  append(3);
  log_read_result r;
  ASSERT_FALSE(log_->read(offset(1), 100'000, offset(6), true, &r));
  EXPECT_EQ(r.position, 0u);
  EXPECT_EQ(r.length, 2 * a.bytes);
  ASSERT_FALSE(log_->read(offset(1), 100'000, offset(5), true, &r));
  EXPECT_EQ(r.length, a.bytes) << "a bound inside a batch hides that batch";
  ASSERT_FALSE(log_->read(offset(6), 100'000, offset(6), true, &r));
  EXPECT_EQ(r.length, 0u);
  EXPECT_EQ(r.fetch_offset.position, 2 * a.bytes);
}

TEST_F(LogTest, ReadReturnsOneSegmentAtATime) {
  for (int i = 0; i < 12; ++i) append(4);
  ASSERT_GT(log_->segment_count(), 1u);
  auto second = log_->segment_infos()[1];
  log_read_result r;
  ASSERT_FALSE(log_->read(offset(0), 1 << 20, log_->log_end_offset(), true, &r));
  EXPECT_EQ(r.length, log_->segment_infos()[0].size_bytes);
  ASSERT_FALSE(log_->read(second.base_offset + 1, 1 << 20, log_->log_end_offset(), true, &r));
  EXPECT_EQ(r.fetch_offset.segment_base_offset, second.base_offset);
  EXPECT_EQ(r.position, 0u);
}

TEST_F(LogTest, MinOneBatchReturnsAWholeFirstBatchPastMaxBytes) {
  auto a = append(5);
  log_read_result r;
  ASSERT_FALSE(log_->read(offset(0), 10, offset(5), true, &r));
  EXPECT_EQ(r.length, a.bytes);
  ASSERT_FALSE(log_->read(offset(0), 10, offset(5), false, &r));
  EXPECT_EQ(r.length, 10u);
  EXPECT_TRUE(r.first_batch_incomplete);
}

TEST_F(LogTest, OffsetForTimestamp) {
  for (int i = 0; i < 12; ++i) append(4, 1000 + 100 * i);  // batch i: 1000+100i .. +3
  append(1, 1050);  // an old timestamp late in the log
  std::optional<timestamp_and_offset> found;
  ASSERT_FALSE(log_->offset_for_timestamp(1502, &found));
  ASSERT_TRUE(found);
  EXPECT_EQ(found->offset, offset(22));
  EXPECT_EQ(found->timestamp, 1502);
  EXPECT_EQ(found->epoch, leader_epoch(3));
  ASSERT_FALSE(log_->offset_for_timestamp(1510, &found));
  EXPECT_EQ(found->offset, offset(24));
  ASSERT_FALSE(log_->offset_for_timestamp(9999, &found));
  EXPECT_FALSE(found);
  ASSERT_FALSE(log_->offset_for_timestamp(earliest_timestamp, &found));
  EXPECT_EQ(found->offset, offset(0));
  ASSERT_FALSE(log_->offset_for_timestamp(latest_timestamp, &found));
  EXPECT_EQ(found->offset, offset(49));
  ASSERT_FALSE(log_->offset_for_timestamp(max_timestamp, &found));
  ASSERT_TRUE(found);
  EXPECT_EQ(found->timestamp, 2103);
  EXPECT_EQ(found->offset, offset(47));
}

TEST_F(LogTest, LogAppendTimeStampsEveryRecord) {
  config_.timestamp_type = message_timestamp_type::log_append_time;
  open_log();
  now_ms_ = 77'000;
  auto a = append(3, 1000);
  EXPECT_EQ(a.log_append_time_ms, 77'000);
  EXPECT_EQ(a.max_timestamp, 77'000);
  for (const auto& r : read_all(*log_, 0)) EXPECT_EQ(r.timestamp, 77'000);
}

TEST_F(LogTest, CloseLeavesExactIndexFilesAndRefusesWrites) {
  for (int i = 0; i < 6; ++i) append(4);
  ASSERT_FALSE(log_->close());
  append_result r;
  bytes batch = make_batch({});
  EXPECT_EQ(log_->append(batch, {}, &r), make_error_code(log_errc::log_offline));
  for (const auto& name : files()) {
    uint64_t size = std::filesystem::file_size(dir() / name);
    if (name.ends_with(".index")) {
      EXPECT_EQ(size % 8, 0u) << name;
    }
    if (name.ends_with(".timeindex")) {
      EXPECT_EQ(size % 12, 0u) << name;
      EXPECT_GT(size, 0u) << name << " carries at least the max-timestamp entry";
    }
  }
}

}  // namespace
}  // namespace hw::storage
