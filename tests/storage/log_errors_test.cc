// storage/log under storage failures (storage/io/faulty_file_system): a
// failed write, fsync, truncate, rename or file creation is returned as an
// error, never as success, and takes the log offline; and what survives a
// crash is exactly what was flushed.

#include <gtest/gtest.h>

#include "storage/io/faulty_file_system.h"
#include "storage/log.h"
#include "tests/storage/fixtures/log_test_support.h"

namespace hw::storage {
namespace {

using namespace hw::storage::testing;

const std::filesystem::path kDir = "/data/topic-0";

class LogErrorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(fs_.create_directories(kDir));
    ASSERT_FALSE(fs_.sync_directory("/data"));
    ASSERT_FALSE(fs_.sync_directory("/"));
    open_log(false, offset(0));
  }
  void open_log(bool clean, offset recovery_point) {
    log_.reset();
    log_open_options o;
    o.had_clean_shutdown = clean;
    o.recovery_point = recovery_point;
    std::error_code ec = log::open(fs_, kDir, config_, o, &log_, &report_);
    ASSERT_FALSE(ec) << ec.message();
  }
  std::error_code append(int records = 4, size_t value_bytes = 20) {
    bytes batch = make_batch({.records = records, .value_bytes = value_bytes});
    append_result r;
    return log_->append(batch, {append_origin::leader, leader_epoch(1), 0}, &r);
  }
  void expect_offline() {
    EXPECT_TRUE(log_->offline());
    EXPECT_EQ(append(), make_error_code(log_errc::log_offline));
    EXPECT_EQ(log_->roll(0), make_error_code(log_errc::log_offline));
    EXPECT_EQ(log_->flush(), make_error_code(log_errc::log_offline));
  }

  faulty_file_system fs_;
  log_config config_{.segment_bytes = 1024, .index_interval_bytes = 100};
  std::unique_ptr<log> log_;
  log_load_report report_;
};

TEST_F(LogErrorsTest, FullDiskFailsTheAppendAndTakesTheLogOffline) {
  ASSERT_FALSE(append());
  fs_.set_space_left(50);
  std::error_code ec = append();
  EXPECT_EQ(ec, std::make_error_code(std::errc::no_space_on_device));
  EXPECT_EQ(log_->log_end_offset(), offset(4)) << "nothing published for the failed append";
  expect_offline();
  fs_.clear_space_limit();
  EXPECT_EQ(read_all(*log_, 0).size(), 4u) << "reads keep working";
}

TEST_F(LogErrorsTest, FailedFsyncFailsTheFlushAndKeepsTheRecoveryPoint) {
  ASSERT_FALSE(append());
  fs_.fail_syncs(true);
  EXPECT_EQ(log_->flush(), std::make_error_code(std::errc::io_error));
  EXPECT_EQ(log_->recovery_point(), offset(0));
  fs_.fail_syncs(false);
  expect_offline();
}

TEST_F(LogErrorsTest, FailedDirectorySyncFailsTheFlushAfterARoll) {
  ASSERT_FALSE(append());
  ASSERT_FALSE(log_->roll(0));
  ASSERT_FALSE(append());
  fs_.fail_directory_syncs(true);
  EXPECT_TRUE(log_->flush());
  EXPECT_EQ(log_->recovery_point(), offset(0));
  EXPECT_TRUE(log_->offline());
}

TEST_F(LogErrorsTest, FailedSegmentCreationFailsTheRollingAppend) {
  size_t fit = 1024 / make_batch({.records = 4, .value_bytes = 20}).size();
  for (size_t i = 0; i < fit; ++i) ASSERT_FALSE(append());  // the next append rolls
  ASSERT_EQ(log_->segment_count(), 1u);
  fs_.inject({.op = fs_op::open, .action = fault_action::fail_before, .path_contains = ".log"});
  EXPECT_TRUE(append());
  EXPECT_EQ(log_->log_end_offset(), offset(4 * static_cast<int64_t>(fit)));
  expect_offline();
}

TEST_F(LogErrorsTest, FailedTruncateFailsTheTruncation) {
  for (int i = 0; i < 3; ++i) ASSERT_FALSE(append());
  fs_.inject({.op = fs_op::truncate, .action = fault_action::fail_before, .path_contains = ""});
  EXPECT_TRUE(log_->truncate_to(offset(4), 0));
  expect_offline();
}

TEST_F(LogErrorsTest, FailedRenameFailsTheSegmentDeletion) {
  for (int i = 0; i < 20; ++i) ASSERT_FALSE(append());
  ASSERT_GT(log_->segment_count(), 2u);
  fs_.inject({.op = fs_op::rename, .action = fault_action::fail_before, .path_contains = ""});
  EXPECT_TRUE(log_->advance_log_start_offset(offset(40), 0));
  expect_offline();
}

TEST_F(LogErrorsTest, FailedIndexWriteFailsTheClose) {
  for (int i = 0; i < 3; ++i) ASSERT_FALSE(append());
  fs_.inject({.op = fs_op::write, .action = fault_action::fail_before, .path_contains = ".index"});
  EXPECT_TRUE(log_->close());
  EXPECT_TRUE(log_->offline());
}

TEST_F(LogErrorsTest, OpenFailsWhenTheDirectoryCannotBeRead) {
  fs_.inject({.op = fs_op::open, .action = fault_action::fail_before, .path_contains = ".index"});
  std::unique_ptr<log> l;
  EXPECT_TRUE(log::open(fs_, kDir, config_, {}, &l, &report_));
}

TEST_F(LogErrorsTest, CrashKeepsWhatWasFlushedAndLosesTheRest) {
  for (int i = 0; i < 8; ++i) ASSERT_FALSE(append());
  ASSERT_GT(log_->segment_count(), 1u);
  ASSERT_FALSE(log_->flush());
  offset flushed = log_->recovery_point();
  EXPECT_EQ(flushed, offset(32));
  for (int i = 0; i < 8; ++i) ASSERT_FALSE(append());  // rolls again, never flushed
  fs_.crash();
  open_log(false, flushed);
  EXPECT_EQ(log_->log_end_offset(), flushed);
  EXPECT_EQ(read_all(*log_, 0).size(), 32u);
}

TEST_F(LogErrorsTest, TruncationIsDurableAcrossACrash) {
  for (int i = 0; i < 8; ++i) ASSERT_FALSE(append());
  ASSERT_FALSE(log_->flush());
  ASSERT_FALSE(log_->truncate_to(offset(10), 0));  // into the flushed part, dropping segments
  fs_.crash();
  open_log(false, log_->recovery_point());
  EXPECT_EQ(log_->log_end_offset(), offset(8)) << "the batch holding 10 went whole; nothing came back";
}

TEST_F(LogErrorsTest, CleanCloseSurvivesACrash) {
  for (int i = 0; i < 8; ++i) ASSERT_FALSE(append());
  ASSERT_FALSE(log_->close());
  fs_.crash();
  open_log(true, offset(0));
  EXPECT_TRUE(report_.events.empty()) << report_.events.front();
  EXPECT_EQ(log_->log_end_offset(), offset(32));
}

}  // namespace
}  // namespace hw::storage
