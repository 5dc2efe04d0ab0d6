// The segment's `.txnindex` wired through the log: aborts routed to the
// segment holding their marker, kept across a clean reopen, cut by
// truncation, emptied by recovery, collected across segments (Kafka's
// collectAbortedTransactions), and deleted with their segment.

#include <gtest/gtest.h>

#include "storage/io/faulty_file_system.h"
#include "storage/log.h"
#include "tests/storage/fixtures/log_test_support.h"

namespace hw::storage {
namespace {

using namespace hw::storage::testing;

aborted_txn txn(int64_t pid, int64_t first, int64_t last, int64_t lso) {
  return {producer_id(pid), offset(first), offset(last), offset(lso)};
}

class SegmentTxnTest : public ::testing::Test {
 protected:
  void SetUp() override { open_log(); }

  void open_log(bool clean = true) {
    if (log_) {
      ASSERT_FALSE(log_->close());
    }
    log_.reset();
    log_open_options o;
    o.had_clean_shutdown = clean;
    o.recovery_point = offset(0);
    o.now_ms = 5'000;
    ASSERT_FALSE(log::open(*fs_, dir(), config_, o, &log_, &report_));
  }
  std::filesystem::path dir() const { return tmp_.path() / "topic-0"; }
  bool exists(offset base, std::string_view suffix) { return fs_->exists(dir() / segment_file_name(base, suffix)); }

  // n one-record batches.
  void append(int n) {
    for (int i = 0; i < n; ++i) {
      bytes batch = make_batch({.records = 1, .value_bytes = 100});
      append_result r;
      ASSERT_FALSE(log_->append(batch, {append_origin::leader, leader_epoch(1), 5'000}, &r));
    }
  }
  std::vector<aborted_txn> collect(int64_t start, int64_t upper) {
    std::vector<aborted_txn> out;
    EXPECT_FALSE(log_->collect_aborted_transactions(offset(start), offset(upper), &out));
    return out;
  }

  temp_dir tmp_;
  std::unique_ptr<file_system> fs_ = make_posix_file_system();
  log_config config_{.segment_bytes = 1024, .index_interval_bytes = 128};
  std::unique_ptr<log> log_;
  log_load_report report_;
};

TEST_F(SegmentTxnTest, FileCreatedByFirstAbortAndSurvivesCleanReopen) {
  append(10);
  EXPECT_FALSE(exists(offset(0), txn_index_file_suffix));
  ASSERT_FALSE(log_->append_aborted_txn(txn(7, 1, 3, 1)));
  ASSERT_FALSE(log_->append_aborted_txn(txn(8, 2, 6, 2)));
  EXPECT_TRUE(exists(offset(0), txn_index_file_suffix));
  ASSERT_FALSE(log_->flush());
  open_log(true);
  EXPECT_EQ(collect(0, 10), (std::vector<aborted_txn>{txn(7, 1, 3, 1), txn(8, 2, 6, 2)}));
  EXPECT_EQ(collect(4, 10), (std::vector<aborted_txn>{txn(8, 2, 6, 2)}));
}

TEST_F(SegmentTxnTest, AbortOutsideTheLogIsRefused) {
  append(3);
  EXPECT_EQ(log_->append_aborted_txn(txn(7, 0, 3, 0)), make_error_code(log_errc::offset_out_of_range));
  EXPECT_FALSE(log_->append_aborted_txn(txn(7, 0, 2, 0)));
}

TEST_F(SegmentTxnTest, TruncationDropsAbortsWhoseMarkerIsCut) {
  append(10);
  ASSERT_FALSE(log_->append_aborted_txn(txn(7, 1, 3, 1)));
  ASSERT_FALSE(log_->append_aborted_txn(txn(8, 2, 6, 2)));
  ASSERT_FALSE(log_->append_aborted_txn(txn(9, 7, 8, 7)));
  ASSERT_FALSE(log_->truncate_to(offset(6), 5'000));
  EXPECT_EQ(collect(0, 100), (std::vector<aborted_txn>{txn(7, 1, 3, 1)}));
  open_log(true);
  EXPECT_EQ(collect(0, 100), (std::vector<aborted_txn>{txn(7, 1, 3, 1)}));
}

TEST_F(SegmentTxnTest, TruncationDeletesLaterSegmentsTxnIndexes) {
  append(20);  // several segments of ~170-byte batches
  auto infos = log_->segment_infos();
  ASSERT_GE(infos.size(), 3u);
  offset second = infos[1].base_offset;
  ASSERT_FALSE(log_->append_aborted_txn(txn(7, 0, second.value + 1, 0)));
  EXPECT_TRUE(exists(second, txn_index_file_suffix));
  ASSERT_FALSE(log_->truncate_to(second - 1, 5'000));  // the segment at `second` goes whole
  EXPECT_FALSE(exists(second, txn_index_file_suffix));
  EXPECT_TRUE(collect(0, 100).empty());
}

TEST_F(SegmentTxnTest, RoutedToTheSegmentHoldingTheMarkerAndCollectedAcrossSegments) {
  append(20);
  auto infos = log_->segment_infos();
  ASSERT_GE(infos.size(), 3u);
  offset s1 = infos[1].base_offset, s2 = infos[2].base_offset;
  // A transaction spanning segments 0..1 aborted in 1, another aborted in 2.
  ASSERT_FALSE(log_->append_aborted_txn(txn(7, 1, s1.value + 1, 1)));
  ASSERT_FALSE(log_->append_aborted_txn(txn(8, s1.value + 2, s2.value, s1.value + 2)));
  EXPECT_FALSE(exists(offset(0), txn_index_file_suffix));
  EXPECT_TRUE(exists(s1, txn_index_file_suffix));
  EXPECT_TRUE(exists(s2, txn_index_file_suffix));
  // From segment 0: walks on until an entry's LSO reaches the upper bound.
  EXPECT_EQ(collect(0, 100),
            (std::vector<aborted_txn>{txn(7, 1, s1.value + 1, 1), txn(8, s1.value + 2, s2.value, s1.value + 2)}));
  // The first abort's LSO (1) reaches upper 1: the search is complete there.
  EXPECT_EQ(collect(0, 1), (std::vector<aborted_txn>{}));
  EXPECT_EQ(collect(0, 2), (std::vector<aborted_txn>{txn(7, 1, s1.value + 1, 1)}));
  // Starting in segment 2 sees only what it holds.
  EXPECT_EQ(collect(s2.value, 100), (std::vector<aborted_txn>{txn(8, s1.value + 2, s2.value, s1.value + 2)}));
}

TEST_F(SegmentTxnTest, RecoveryEmptiesTheIndexForTheCallerToRebuild) {
  append(5);
  ASSERT_FALSE(log_->append_aborted_txn(txn(7, 1, 3, 1)));
  ASSERT_FALSE(log_->flush());
  log_.reset();  // no clean shutdown
  open_log(false);
  EXPECT_TRUE(collect(0, 100).empty());
  ASSERT_FALSE(log_->append_aborted_txn(txn(7, 1, 3, 1)));
  EXPECT_EQ(collect(0, 100), (std::vector<aborted_txn>{txn(7, 1, 3, 1)}));
}

TEST_F(SegmentTxnTest, CorruptTxnIndexIsEmptiedAndTheSegmentRecovered) {
  append(5);
  ASSERT_FALSE(log_->append_aborted_txn(txn(7, 1, 3, 1)));
  ASSERT_FALSE(log_->close());
  log_.reset();
  // Version 5 instead of 0 in the only entry.
  std::unique_ptr<file> f;
  ASSERT_FALSE(fs_->open(dir() / segment_file_name(offset(0), txn_index_file_suffix), open_mode::read_write, &f));
  uint8_t bad[2] = {0, 5};
  ASSERT_FALSE(f->write_at(0, bad));
  f.reset();
  open_log(true);
  EXPECT_TRUE(collect(0, 100).empty());
  EXPECT_EQ(log_->log_end_offset(), offset(5));
  bool mentioned = false;
  for (const auto& e : report_.events) mentioned |= e.find("transaction index") != std::string::npos;
  EXPECT_TRUE(mentioned);
}

TEST_F(SegmentTxnTest, DeletedWithItsSegment) {
  append(20);
  auto infos = log_->segment_infos();
  ASSERT_GE(infos.size(), 3u);
  ASSERT_FALSE(log_->append_aborted_txn(txn(7, 0, 1, 0)));
  EXPECT_TRUE(exists(offset(0), txn_index_file_suffix));
  size_t deleted = 0;
  ASSERT_FALSE(log_->delete_segments_below(infos[1].base_offset, 5'000, &deleted));
  EXPECT_EQ(deleted, 1u);
  EXPECT_FALSE(exists(offset(0), txn_index_file_suffix));
  EXPECT_TRUE(collect(0, 100).empty());
}

// The first abort creates `.txnindex`; the next flush makes both its bytes
// and its directory entry durable.
TEST(SegmentTxnDurability, FlushMakesANewTxnIndexDurable) {
  faulty_file_system fs;
  ASSERT_FALSE(fs.create_directories("/logs"));
  ASSERT_FALSE(fs.sync_directory("/"));
  log_config config;
  log_open_options o;
  o.had_clean_shutdown = true;
  std::unique_ptr<log> l;
  log_load_report report;
  ASSERT_FALSE(log::open(fs, "/logs/t-0", config, o, &l, &report));
  bytes batch = make_batch({.records = 5});
  append_result r;
  ASSERT_FALSE(l->append(batch, {append_origin::leader, leader_epoch(1), 0}, &r));
  ASSERT_FALSE(l->flush());
  ASSERT_FALSE(l->append_aborted_txn(txn(7, 0, 4, 0)));
  auto path = std::filesystem::path("/logs/t-0") / segment_file_name(offset(0), txn_index_file_suffix);
  EXPECT_FALSE(fs.durable_content(path));
  ASSERT_FALSE(l->flush(offset(5)));
  auto durable = fs.durable_content(path);
  ASSERT_TRUE(durable);
  EXPECT_EQ(durable->size(), aborted_txn_size);
  // A live abort (marker past the recovery point) waits for the next flush.
  ASSERT_FALSE(l->append(batch, {append_origin::leader, leader_epoch(1), 0}, &r));
  ASSERT_FALSE(l->append_aborted_txn(txn(8, 5, 9, 5)));
  EXPECT_EQ(fs.durable_content(path)->size(), aborted_txn_size);
  ASSERT_FALSE(l->flush());
  EXPECT_EQ(fs.durable_content(path)->size(), 2 * aborted_txn_size);
}

}  // namespace
}  // namespace hw::storage
