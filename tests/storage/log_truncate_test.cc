// storage/log: truncation from the end (followers), full truncation, the log
// start offset (DeleteRecords), retention deletes, flush and the recovery
// point.

#include <gtest/gtest.h>

#include "storage/log.h"
#include "tests/storage/fixtures/log_test_support.h"

namespace hw::storage {
namespace {

using namespace hw::storage::testing;

class LogTruncateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(log::open(*fs_, dir(), config_, {}, &log_, &report_));
    // 30 batches of 4 records: offsets 0..119, batch k holds 4k..4k+3.
    for (int i = 0; i < 30; ++i) append(4, 1000 + 10 * i);
    ASSERT_GT(log_->segment_count(), 4u);
  }
  std::filesystem::path dir() const { return tmp_.path() / "t-3"; }
  void append(int n, int64_t ts) {
    bytes batch = make_batch({.records = n, .first_timestamp = ts, .value_bytes = 20});
    append_result r;
    ASSERT_FALSE(log_->append(batch, {append_origin::leader, leader_epoch(1), 0}, &r));
  }
  size_t log_files() {
    std::vector<std::string> names;
    EXPECT_FALSE(fs_->list(dir(), &names));
    size_t n = 0;
    for (const auto& name : names) n += name.ends_with(".log");
    return n;
  }

  temp_dir tmp_;
  std::unique_ptr<file_system> fs_ = make_posix_file_system();
  log_config config_{.segment_bytes = 1024, .index_interval_bytes = 100};
  std::unique_ptr<log> log_;
  log_load_report report_;
};

TEST_F(LogTruncateTest, TruncateToDropsLaterSegmentsAndTheTail) {
  auto infos = log_->segment_infos();
  offset target = infos[2].base_offset + 4;  // a batch boundary inside segment 2
  ASSERT_FALSE(log_->flush());
  EXPECT_EQ(log_->recovery_point(), offset(120));
  ASSERT_FALSE(log_->truncate_to(target, 0));
  EXPECT_EQ(log_->log_end_offset(), target);
  EXPECT_EQ(log_->segment_count(), 3u);
  EXPECT_EQ(log_files(), 3u);
  EXPECT_EQ(log_->recovery_point(), target);
  auto records = read_all(*log_, 0);
  ASSERT_EQ(records.size(), static_cast<size_t>(target.value));
  // Appends continue from the new end with fresh data.
  append(2, 5000);
  records = read_all(*log_, 0);
  ASSERT_EQ(records.back().offset, target.value + 1);
  EXPECT_EQ(records.back().timestamp, 5001);
}

TEST_F(LogTruncateTest, TruncateAtOrPastTheEndDoesNothing) {
  ASSERT_FALSE(log_->truncate_to(offset(120), 0));
  ASSERT_FALSE(log_->truncate_to(offset(500), 0));
  EXPECT_EQ(log_->log_end_offset(), offset(120));
}

TEST_F(LogTruncateTest, TruncateBelowTheFirstSegmentStartsOver) {
  ASSERT_FALSE(log_->advance_log_start_offset(offset(60), 0));
  ASSERT_GT(log_->segment_infos().front().base_offset, offset(10));
  ASSERT_FALSE(log_->truncate_to(offset(10), 0));
  EXPECT_EQ(log_->log_end_offset(), offset(10));
  EXPECT_EQ(log_->log_start_offset(), offset(10));
  EXPECT_EQ(log_->segment_count(), 1u);
  EXPECT_EQ(log_files(), 1u);
}

TEST_F(LogTruncateTest, TruncateFullyAndStartAtAnyOffset) {
  ASSERT_FALSE(log_->truncate_fully_and_start_at(offset(1000), 0));
  EXPECT_EQ(log_->log_end_offset(), offset(1000));
  EXPECT_EQ(log_->log_start_offset(), offset(1000));
  EXPECT_EQ(log_->recovery_point(), offset(1000));
  EXPECT_EQ(log_->segment_count(), 1u);
  std::vector<std::string> names;
  ASSERT_FALSE(fs_->list(dir(), &names));
  EXPECT_EQ(names.front(), "00000000000000001000.index");
  append(3, 1);
  EXPECT_EQ(read_all(*log_, 1000).size(), 3u);
  // Reusing the active segment's own name works too.
  ASSERT_FALSE(log_->truncate_fully_and_start_at(offset(1000), 0));
  EXPECT_EQ(log_->log_end_offset(), offset(1000));
}

TEST_F(LogTruncateTest, AdvancingTheLogStartDeletesWholeSegmentsBelowIt) {
  auto infos = log_->segment_infos();
  offset target = infos[2].base_offset + 1;
  ASSERT_FALSE(log_->advance_log_start_offset(target, 0));
  EXPECT_EQ(log_->log_start_offset(), target);
  EXPECT_EQ(log_->segment_infos().front().base_offset, infos[2].base_offset);
  log_read_result r;
  EXPECT_EQ(log_->read(target - 1, 1000, offset(120), true, &r), make_error_code(log_errc::offset_out_of_range));
  auto records = read_all(*log_, target.value);
  EXPECT_EQ(records.front().offset, target.value);
  std::optional<timestamp_and_offset> found;
  ASSERT_FALSE(log_->offset_for_timestamp(earliest_timestamp, &found));
  EXPECT_EQ(found->offset, target);
  ASSERT_FALSE(log_->offset_for_timestamp(0, &found));
  EXPECT_EQ(found->offset, target) << "time lookups never answer below the log start";
  EXPECT_EQ(log_->advance_log_start_offset(offset(121), 0), make_error_code(log_errc::offset_out_of_range));
}

TEST_F(LogTruncateTest, DeleteSegmentsBelowRollsWhenEverythingGoes) {
  size_t deleted = 0;
  auto infos = log_->segment_infos();
  ASSERT_FALSE(log_->delete_segments_below(infos[1].next_offset, 0, &deleted));
  EXPECT_EQ(deleted, 2u);
  EXPECT_EQ(log_->log_start_offset(), infos[2].base_offset);
  ASSERT_FALSE(log_->delete_segments_below(offset(120), 0, &deleted));
  EXPECT_EQ(deleted, infos.size() - 2);
  EXPECT_EQ(log_->segment_count(), 1u);
  EXPECT_EQ(log_->log_start_offset(), offset(120));
  EXPECT_EQ(log_->log_end_offset(), offset(120));
  append(1, 1);
  EXPECT_EQ(read_all(*log_, 120).size(), 1u);
}

TEST_F(LogTruncateTest, FlushAdvancesTheRecoveryPointOnlyUpToTheEnd) {
  EXPECT_EQ(log_->recovery_point(), offset(0));
  ASSERT_FALSE(log_->flush(offset(50)));
  EXPECT_EQ(log_->recovery_point(), offset(50));
  ASSERT_FALSE(log_->flush(offset(40)));
  EXPECT_EQ(log_->recovery_point(), offset(50)) << "never backwards";
  ASSERT_FALSE(log_->flush(offset(10'000)));
  EXPECT_EQ(log_->recovery_point(), offset(120));
}

}  // namespace
}  // namespace hw::storage
