// apply_retention and pending_deletions on a real log: the log start moves
// to the first remaining segment, deleted segments are renamed to
// `.deleted` and removed only after file.delete.delay.ms, the active
// segment is rolled when everything expires, and a reader holding a
// deleted segment keeps reading it.

#include "storage/retention.h"

#include "storage/io/faulty_file_system.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/storage/fixtures/log_test_support.h"

namespace hw::storage {
namespace {

using namespace hw::storage::testing;

constexpr int64_t day_ms = 24LL * 60 * 60 * 1000;
constexpr int64_t t0 = 1'700'000'000'000;

class RetentionApplyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_.segment_bytes = 1024;
    config_.index_interval_bytes = 128;
    open_log();
  }

  void open_log() {
    log_.reset();
    log_open_options o;
    o.had_clean_shutdown = true;
    o.now_ms = now_;
    ASSERT_FALSE(log::open(*fs_, dir(), config_, o, &log_, &report_));
  }
  std::filesystem::path dir() const { return tmp_.path() / "topic-0"; }
  std::vector<std::string> files() {
    std::vector<std::string> names;
    EXPECT_FALSE(fs_->list(dir(), &names));
    return names;
  }
  size_t count_suffix(std::string_view suffix) {
    auto names = files();
    return static_cast<size_t>(std::count_if(names.begin(), names.end(), [&](const std::string& n) {
      return n.size() >= suffix.size() && n.substr(n.size() - suffix.size()) == suffix;
    }));
  }
  // n one-record batches stamped ts (about 170 bytes each: 5 per segment).
  void append(int n, int64_t ts) {
    for (int i = 0; i < n; ++i) {
      bytes batch = make_batch({.records = 1, .first_timestamp = ts, .value_bytes = 100});
      append_result r;
      ASSERT_FALSE(log_->append(batch, {append_origin::leader, leader_epoch(1), now_}, &r));
    }
  }
  retention_result retain(offset hw) {
    retention_result r;
    std::error_code ec = apply_retention(*log_, hw, now_, pending_, &r);
    EXPECT_FALSE(ec) << ec.message();
    return r;
  }

  temp_dir tmp_;
  std::unique_ptr<file_system> fs_ = make_posix_file_system();
  log_config config_;
  int64_t now_ = t0 + 10 * day_ms;
  std::unique_ptr<log> log_;
  log_load_report report_;
  pending_deletions pending_;
};

TEST_F(RetentionApplyTest, TimeRetentionMovesLogStartAndDelaysFileRemoval) {
  append(12, t0);                // old: segments 0 and 1 and part of 2
  append(8, now_ - 1000);        // recent
  auto infos = log_->segment_infos();
  ASSERT_GE(infos.size(), 4u);
  auto r = retain(log_->log_end_offset());
  ASSERT_EQ(r.segments_deleted, 2u);
  EXPECT_EQ(r.log_start_offset, infos[2].base_offset);
  EXPECT_EQ(log_->log_start_offset(), infos[2].base_offset);
  EXPECT_EQ(log_->segment_count(), infos.size() - 2);
  ASSERT_EQ(r.reasons.size(), 2u);
  EXPECT_NE(r.reasons[0].find("due to log retention time 604800000ms breach"), std::string::npos) << r.reasons[0];
  // Renamed, not removed: log, index and time index of each.
  EXPECT_EQ(count_suffix(".deleted"), 6u);
  EXPECT_FALSE(fs_->exists(dir() / segment_file_name(offset(0), log_file_suffix)));
  EXPECT_EQ(pending_.size(), 2u);
  size_t removed = 0;
  ASSERT_FALSE(pending_.delete_expired(now_ + config_.file_delete_delay_ms - 1, &removed));
  EXPECT_EQ(removed, 0u);
  EXPECT_EQ(count_suffix(".deleted"), 6u);
  ASSERT_FALSE(pending_.delete_expired(now_ + config_.file_delete_delay_ms, &removed));
  EXPECT_EQ(removed, 2u);
  EXPECT_EQ(count_suffix(".deleted"), 0u);
  EXPECT_TRUE(pending_.empty());
  // What remains reads from the new start.
  auto records = read_all(*log_, 0);
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(records.front().offset, infos[2].base_offset.value);
  EXPECT_EQ(records.back().offset, 19);
}

TEST_F(RetentionApplyTest, SizeRetention) {
  config_.retention_ms = -1;
  config_.retention_bytes = 2000;
  log_->set_config(config_);
  append(20, now_);  // ~3400 bytes in 4 segments
  uint64_t before = log_->size_bytes();
  auto r = retain(log_->log_end_offset());
  EXPECT_GE(r.segments_deleted, 1u);
  EXPECT_GE(log_->size_bytes(), 2000u);
  EXPECT_LT(log_->size_bytes(), before);
  EXPECT_NE(r.reasons[0].find("due to log retention size 2000 breach"), std::string::npos) << r.reasons[0];
}

TEST_F(RetentionApplyTest, HighWatermarkBoundsDeletion) {
  append(20, t0);
  auto infos = log_->segment_infos();
  ASSERT_GE(infos.size(), 3u);
  // The HW inside segment 1: only segment 0 may go.
  auto r = retain(infos[1].base_offset + 1);
  EXPECT_EQ(r.segments_deleted, 1u);
  EXPECT_EQ(log_->log_start_offset(), infos[1].base_offset);
  EXPECT_LE(log_->log_start_offset(), infos[1].base_offset + 1);
}

TEST_F(RetentionApplyTest, ActiveSegmentKeptUntilTheHwReachesTheEndThenRolled) {
  append(3, t0);  // all in the active segment
  ASSERT_EQ(log_->segment_count(), 1u);
  EXPECT_EQ(retain(offset(2)).segments_deleted, 0u);
  EXPECT_EQ(log_->segment_count(), 1u);
  auto r = retain(offset(3));
  EXPECT_EQ(r.segments_deleted, 1u);
  ASSERT_EQ(log_->segment_count(), 1u);  // a fresh, empty active segment at the end
  EXPECT_EQ(log_->log_start_offset(), offset(3));
  EXPECT_EQ(log_->log_end_offset(), offset(3));
  EXPECT_TRUE(fs_->exists(dir() / segment_file_name(offset(3), log_file_suffix)));
  // The empty active segment is never deleted, and the log takes appends.
  EXPECT_EQ(retain(offset(3)).segments_deleted, 0u);
  append(1, now_);
  EXPECT_EQ(log_->log_end_offset(), offset(4));
}

TEST_F(RetentionApplyTest, ReaderHoldingADeletedSegmentStillReadsIt) {
  append(12, t0);
  append(3, now_);
  log_read_result held;
  ASSERT_FALSE(log_->read(offset(0), 64 * 1024, log_->log_end_offset(), true, &held));
  ASSERT_GT(held.length, 0u);
  auto r = retain(log_->log_end_offset());
  ASSERT_GE(r.segments_deleted, 1u);
  ASSERT_FALSE(pending_.delete_all());
  EXPECT_EQ(count_suffix(".deleted"), 0u);
  EXPECT_FALSE(fs_->exists(dir() / segment_file_name(offset(0), log_file_suffix)));
  std::vector<read_record> records;
  decode_records(read_range(held), 0, &records);
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(records.front().offset, 0);
  // New reads below the log start are refused.
  log_read_result fresh;
  EXPECT_EQ(log_->read(offset(0), 1024, log_->log_end_offset(), true, &fresh),
            make_error_code(log_errc::offset_out_of_range));
}

TEST_F(RetentionApplyTest, DeletedFilesLeftByACrashAreRemovedOnOpen) {
  append(12, t0);
  append(3, now_);
  ASSERT_GE(retain(log_->log_end_offset()).segments_deleted, 1u);
  offset start = log_->log_start_offset();
  ASSERT_GT(count_suffix(".deleted"), 0u);
  ASSERT_FALSE(log_->close());
  open_log();
  EXPECT_EQ(count_suffix(".deleted"), 0u);
  EXPECT_EQ(log_->log_start_offset(), start);
}

TEST_F(RetentionApplyTest, PendingQueueIsBounded) {
  pending_deletions small(1);
  append(12, t0);
  append(3, now_);
  retention_result r;
  ASSERT_FALSE(apply_retention(*log_, log_->log_end_offset(), now_, small, &r));
  ASSERT_EQ(r.segments_deleted, 2u);
  EXPECT_EQ(small.size(), 1u);
  EXPECT_EQ(count_suffix(".deleted"), 3u);  // the first segment's files went early
}

}  // namespace
}  // namespace hw::storage

namespace hw::storage {
namespace {

using namespace hw::storage::testing;

// File-layer failures: a failed rename takes the log offline; a failed
// removal keeps the segment queued for the next delete_expired.
class RetentionFaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(fs_.create_directories("/logs"));
    ASSERT_FALSE(fs_.sync_directory("/"));
    config_.segment_bytes = 1024;
    log_open_options o;
    o.had_clean_shutdown = true;
    ASSERT_FALSE(log::open(fs_, "/logs/t-0", config_, o, &log_, &report_));
    for (int i = 0; i < 12; ++i) {
      bytes batch = make_batch({.records = 1, .first_timestamp = 1000, .value_bytes = 100});
      append_result r;
      ASSERT_FALSE(log_->append(batch, {append_origin::leader, leader_epoch(1), 0}, &r));
    }
  }

  faulty_file_system fs_;
  log_config config_;
  std::unique_ptr<log> log_;
  log_load_report report_;
  pending_deletions pending_;
  int64_t now_ = 1000 + 8 * 24LL * 60 * 60 * 1000;
};

TEST_F(RetentionFaultTest, FailedRenameTakesTheLogOffline) {
  fs_.inject({.op = fs_op::rename, .action = fault_action::fail_before, .path_contains = ".log"});
  retention_result r;
  EXPECT_TRUE(apply_retention(*log_, log_->log_end_offset(), now_, pending_, &r));
  EXPECT_TRUE(log_->offline());
}

TEST_F(RetentionFaultTest, FailedRemovalStaysQueued) {
  size_t segments = log_->segment_count();
  ASSERT_GE(segments, 2u);
  retention_result r;
  ASSERT_FALSE(apply_retention(*log_, log_->log_end_offset(), now_, pending_, &r));
  ASSERT_EQ(r.segments_deleted, segments);  // everything, the active segment rolled first
  EXPECT_EQ(log_->segment_count(), 1u);
  fs_.inject({.op = fs_op::remove, .action = fault_action::fail_before, .path_contains = ""});
  size_t removed = 0;
  EXPECT_TRUE(pending_.delete_expired(now_ + 60'000, &removed));
  EXPECT_EQ(removed, 0u);
  EXPECT_EQ(pending_.size(), segments);
  ASSERT_FALSE(pending_.delete_expired(now_ + 60'000, &removed));
  EXPECT_EQ(removed, segments);
  std::vector<std::string> names;
  ASSERT_FALSE(fs_.list("/logs/t-0", &names));
  for (const auto& n : names) EXPECT_EQ(n.find(".deleted"), std::string::npos) << n;
}

}  // namespace
}  // namespace hw::storage
