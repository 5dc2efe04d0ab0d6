// storage/partition_log: the log, its epoch cache and producer state kept
// consistent through appends (idempotence), reopen (clean and unclean) and
// truncation.

#include "storage/partition_log.h"

#include <gtest/gtest.h>

#include <map>

#include "storage/io/faulty_file_system.h"
#include "tests/storage/fixtures/log_test_support.h"

namespace hw::storage {
namespace {

using namespace hw::storage::testing;

bytes producer_batch_bytes(int64_t pid, int16_t epoch, int32_t seq, int records, int64_t ts = 1000) {
  protocol::record_batch_options o;
  o.producer_id = pid;
  o.producer_epoch = epoch;
  o.base_sequence = seq;
  protocol::record_batch_builder b(o);
  for (int i = 0; i < records; ++i) {
    std::string v = "p" + std::to_string(pid) + "-" + std::to_string(seq + i);
    b.append(ts + i, std::nullopt, protocol::bytes_view(reinterpret_cast<const uint8_t*>(v.data()), v.size()));
  }
  return b.finish();
}

// What a snapshot keeps of each producer (Kafka keeps only the last batch),
// printable for readable failures.
std::map<int64_t, std::string> producer_map(const producer_state& s) {
  std::map<int64_t, std::string> out;
  for (const auto& [id, e] : s.producers()) {
    std::string last = e.batches.empty() ? "none"
                                         : std::to_string(e.batches.back().last_sequence) + "@" +
                                               std::to_string(e.batches.back().last_offset.value) + "-" +
                                               std::to_string(e.batches.back().offset_delta) + " ts " +
                                               std::to_string(e.batches.back().timestamp_ms);
    out[id.value] = "epoch " + std::to_string(e.epoch.value) + " coordinator " + std::to_string(e.coordinator.value) +
                    " ts " + std::to_string(e.last_timestamp_ms) + " txn " +
                    std::to_string(e.current_txn_first_offset.value_or(offset(-1)).value) + " last " + last;
  }
  return out;
}

class PartitionLogTest : public ::testing::Test {
 protected:
  void open(bool clean = true, offset recovery_point = offset(0)) {
    plog_.reset();
    partition_log_options o;
    o.config = config_;
    o.had_clean_shutdown = clean;
    o.recovery_point = recovery_point;
    o.topic_id = protocol::uuid::parse("MRFQ1kJc60ikgupOdlqn1w");
    storage_error err = partition_log::open(*fs_, dir(), o, &plog_);
    ASSERT_FALSE(err) << err.message;
  }
  std::filesystem::path dir() const { return (root_.empty() ? tmp_.path() : root_) / name_; }

  partition_append_result leader_append(bytes b, int32_t epoch) {
    partition_append_result r;
    std::error_code ec = plog_->append_as_leader(b, {.epoch = leader_epoch(epoch), .now_ms = 5}, &r);
    EXPECT_FALSE(ec) << ec.message();
    return r;
  }
  // Three producers over three epochs; 60 batches.
  void fill(int batches = 60) {
    for (int i = 0; i < batches; ++i) {
      int pid = 100 + i % 3;
      auto r = leader_append(producer_batch_bytes(pid, 0, (i / 3) * 2, 2), i / 20);
      ASSERT_EQ(r.error, protocol::error_code::none);
      ASSERT_FALSE(r.duplicate);
    }
  }

  temp_dir tmp_;
  std::unique_ptr<file_system> fs_ = make_posix_file_system();
  log_config config_{.segment_bytes = 900, .index_interval_bytes = 100};
  std::unique_ptr<partition_log> plog_;
  std::string name_ = "orders-3";
  std::filesystem::path root_;  // the temp dir unless set
};

TEST_F(PartitionLogTest, DuplicateBatchGetsItsOriginalOffsets) {
  open();
  EXPECT_TRUE(plog_->topic_id().has_value());
  auto a = leader_append(producer_batch_bytes(7, 0, 0, 3), 0);
  auto b = leader_append(producer_batch_bytes(7, 0, 3, 2), 0);
  EXPECT_EQ(a.log.first_offset, offset(0));
  EXPECT_EQ(b.log.first_offset, offset(3));
  auto retry = leader_append(producer_batch_bytes(7, 0, 0, 3), 0);
  EXPECT_TRUE(retry.duplicate);
  EXPECT_EQ(retry.log.first_offset, offset(0));
  EXPECT_EQ(retry.log.last_offset, offset(2));
  EXPECT_EQ(plog_->log().log_end_offset(), offset(5));
}

TEST_F(PartitionLogTest, OutOfOrderSequenceIsRefusedAndNothingWritten) {
  open();
  leader_append(producer_batch_bytes(7, 0, 0, 3), 0);
  uint64_t size = plog_->log().size_bytes();
  auto r = leader_append(producer_batch_bytes(7, 0, 10, 1), 0);
  EXPECT_EQ(r.error, protocol::error_code::out_of_order_sequence_number);
  EXPECT_EQ(plog_->log().log_end_offset(), offset(3));
  EXPECT_EQ(plog_->log().size_bytes(), size);
  // The window is unchanged: the next in-order batch is taken.
  EXPECT_EQ(leader_append(producer_batch_bytes(7, 0, 3, 1), 0).error, protocol::error_code::none);
}

TEST_F(PartitionLogTest, EpochCacheLearnsNewEpochs) {
  open();
  fill();
  std::vector<epoch_entry> want{{leader_epoch(0), offset(0)}, {leader_epoch(1), offset(40)},
                                {leader_epoch(2), offset(80)}};
  EXPECT_EQ(plog_->epoch_cache().entries(), want);
  EXPECT_GT(plog_->log().segment_count(), 3u);
}

TEST_F(PartitionLogTest, CleanReopenRebuildsIdenticalState) {
  open();
  fill();
  auto producers = producer_map(plog_->producers());
  auto epochs = plog_->epoch_cache().entries();
  ASSERT_FALSE(plog_->close());
  open(true);
  EXPECT_EQ(producer_map(plog_->producers()), producers);
  EXPECT_EQ(plog_->epoch_cache().entries(), epochs);
  EXPECT_EQ(plog_->log().log_end_offset(), offset(120));
}

TEST_F(PartitionLogTest, UncleanReopenRebuildsIdenticalState) {
  for (int64_t rp : {0, 37, 120}) {
    SCOPED_TRACE(rp);
    name_ = "orders-" + std::to_string(rp);
    open();
    fill();
    auto producers = producer_map(plog_->producers());
    auto epochs = plog_->epoch_cache().entries();
    if (rp > 0) ASSERT_FALSE(plog_->mutable_log().flush(offset(rp)));
    plog_.reset();  // no close: no final snapshot
    open(false, offset(rp));
    EXPECT_EQ(producer_map(plog_->producers()), producers);
    EXPECT_EQ(plog_->epoch_cache().entries(), epochs);
    EXPECT_EQ(plog_->log().log_end_offset(), offset(120));
    // And the window still works after the rebuild.
    auto retry = leader_append(producer_batch_bytes(100, 0, 38, 2), 2);
    EXPECT_TRUE(retry.duplicate);
    EXPECT_EQ(retry.log.first_offset, offset(114));
    plog_.reset();
  }
}

TEST_F(PartitionLogTest, TruncateKeepsCacheLogAndProducerStateConsistent) {
  // Reference: the same first 30 batches alone.
  temp_dir other;
  partition_log_options o;
  o.config = config_;
  std::unique_ptr<partition_log> ref;
  ASSERT_FALSE(partition_log::open(*fs_, other.path() / "orders-3", o, &ref));
  for (int i = 0; i < 30; ++i) {
    partition_append_result r;
    bytes b = producer_batch_bytes(100 + i % 3, 0, (i / 3) * 2, 2);
    ASSERT_FALSE(ref->append_as_leader(b,
                                       {.epoch = leader_epoch(i / 20), .now_ms = 5}, &r));
  }

  open();
  fill();
  ASSERT_FALSE(plog_->truncate_to(offset(60), 7));
  EXPECT_EQ(plog_->log().log_end_offset(), offset(60));
  EXPECT_EQ(plog_->epoch_cache().entries(), ref->epoch_cache().entries());
  EXPECT_EQ(producer_map(plog_->producers()), producer_map(ref->producers()));
  EXPECT_EQ(plog_->producers().map_end_offset(), offset(60));
  // Appends continue from the truncation point with the old window.
  auto r = leader_append(producer_batch_bytes(100, 0, 20, 2), 3);
  EXPECT_EQ(r.error, protocol::error_code::none);
  EXPECT_EQ(r.log.first_offset, offset(60));
  EXPECT_EQ(plog_->epoch_cache().latest_entry(), (epoch_entry{leader_epoch(3), offset(60)}));
  // And the same state survives a reopen.
  auto producers = producer_map(plog_->producers());
  auto epochs = plog_->epoch_cache().entries();
  ASSERT_FALSE(plog_->close());
  open();
  EXPECT_EQ(producer_map(plog_->producers()), producers);
  EXPECT_EQ(plog_->epoch_cache().entries(), epochs);
}

// A crash loses what was not fsynced; the rebuilt producer state and epoch
// cache describe exactly the batches that survived.
TEST_F(PartitionLogTest, CrashLosesUnsyncedTailAndStateFollowsTheLog) {
  fs_ = std::make_unique<faulty_file_system>();
  auto& ffs = static_cast<faulty_file_system&>(*fs_);
  root_ = "/";
  open();
  fill();
  ASSERT_FALSE(plog_->mutable_log().flush(offset(50)));
  plog_.reset();
  ffs.crash();
  ffs.restart();
  open(false, offset(50));
  const offset end = plog_->log().log_end_offset();
  EXPECT_GE(end, offset(50));
  EXPECT_LT(end, offset(120));

  // What the surviving batches say.
  producer_state want;
  std::vector<epoch_entry> want_epochs;
  std::vector<uint8_t> buf;
  for (offset next(0); next < end;) {
    log_read_result r;
    ASSERT_FALSE(plog_->log().read(next, 1 << 20, end, true, &r));
    buf = read_range(r);
    protocol::record_batch_walker w(buf);
    protocol::record_batch_view b;
    while (w.next(b)) {
      want.update_from_recovered_batch(to_producer_batch(b, offset(b.base_offset())));
      if (want_epochs.empty() || want_epochs.back().epoch.value < b.partition_leader_epoch()) {
        want_epochs.push_back({leader_epoch(b.partition_leader_epoch()), offset(b.base_offset())});
      }
      next = offset(b.next_offset());
    }
  }
  EXPECT_EQ(producer_map(plog_->producers()), producer_map(want));
  EXPECT_EQ(plog_->epoch_cache().entries(), want_epochs);
  EXPECT_EQ(plog_->producers().map_end_offset(), end);
}

// A new partition syncs nothing when it is created: its directory, first
// segment and partition.metadata become durable together before its first
// append (or in the background), as Kafka flushes the file lazily.
TEST_F(PartitionLogTest, NewPartitionIsMadeDurableBeforeItsFirstAppend) {
  fs_ = std::make_unique<faulty_file_system>();
  auto& ffs = static_cast<faulty_file_system&>(*fs_);
  root_ = "/";
  ASSERT_FALSE(fs_->create_directories("/data"));
  ASSERT_FALSE(fs_->sync_directory("/"));
  name_ = "data/orders-3";
  const auto before = ffs.stats();
  open();
  EXPECT_EQ(ffs.stats().file_syncs, before.file_syncs);
  EXPECT_EQ(ffs.stats().directory_syncs, before.directory_syncs);
  EXPECT_FALSE(ffs.durable_content(dir() / "partition.metadata"));

  // A crash now loses the directory, which nothing refers to yet.
  ffs.crash();
  ffs.restart();
  EXPECT_FALSE(ffs.durable_content(dir() / "partition.metadata"));
  open();
  auto r = leader_append(producer_batch_bytes(7, 0, 0, 3), 0);
  ASSERT_EQ(r.error, protocol::error_code::none);
  // The append made the topic id durable first, with the directory entries.
  auto durable = ffs.durable_content(dir() / "partition.metadata");
  ASSERT_TRUE(durable);
  EXPECT_NE(durable->find("topic_id: MRFQ1kJc60ikgupOdlqn1w"), std::string::npos) << *durable;
  EXPECT_TRUE(ffs.durable_content(dir() / "00000000000000000000.log"));
  ASSERT_FALSE(plog_->mutable_log().flush(offset(3)));
  plog_.reset();
  ffs.crash();
  ffs.restart();
  open(false, offset(3));
  EXPECT_EQ(plog_->log().log_end_offset(), offset(3));
  EXPECT_EQ(plog_->topic_id(), protocol::uuid::parse("MRFQ1kJc60ikgupOdlqn1w"));
}

TEST_F(PartitionLogTest, PendingMetadataWrittenInTheBackgroundOnlyOnce) {
  fs_ = std::make_unique<faulty_file_system>();
  auto& ffs = static_cast<faulty_file_system&>(*fs_);
  root_ = "/";
  open();
  ASSERT_FALSE(plog_->make_durable());
  EXPECT_TRUE(ffs.durable_content(dir() / "partition.metadata"));
  const auto after = ffs.stats();
  ASSERT_FALSE(plog_->make_durable());
  EXPECT_EQ(ffs.stats().renames, after.renames);
  EXPECT_EQ(ffs.stats().file_syncs, after.file_syncs);
  EXPECT_EQ(ffs.stats().directory_syncs, after.directory_syncs);
}

TEST_F(PartitionLogTest, FailedMetadataWriteRefusesTheAppend) {
  fs_ = std::make_unique<faulty_file_system>();
  auto& ffs = static_cast<faulty_file_system&>(*fs_);
  root_ = "/";
  open();
  ffs.inject({.op = fs_op::write, .path_contains = "partition.metadata", .times = -1});
  partition_append_result r;
  bytes b = producer_batch_bytes(7, 0, 0, 3);
  EXPECT_TRUE(plog_->append_as_leader(b, {.epoch = leader_epoch(0)}, &r));
  EXPECT_TRUE(plog_->offline());
  EXPECT_EQ(plog_->log().log_end_offset(), offset(0));
}

TEST_F(PartitionLogTest, FailedSnapshotWriteTakesTheLogOffline) {
  fs_ = std::make_unique<faulty_file_system>();
  auto& ffs = static_cast<faulty_file_system&>(*fs_);
  root_ = "/";
  open();
  fill(3);
  ffs.inject({.op = fs_op::write, .path_contains = ".snapshot", .times = -1});
  EXPECT_TRUE(plog_->take_snapshot());
  EXPECT_TRUE(plog_->offline());
  partition_append_result r;
  bytes b = producer_batch_bytes(100, 0, 2, 2);
  EXPECT_EQ(plog_->append_as_leader(b, {.epoch = leader_epoch(0)}, &r), make_error_code(log_errc::log_offline));
  EXPECT_EQ(plog_->log().log_end_offset(), offset(6));
}

TEST_F(PartitionLogTest, BecomeLeaderStartsTheEpochAtTheLogEnd) {
  open();
  fill(3);
  ASSERT_FALSE(plog_->become_leader(leader_epoch(5)));
  EXPECT_EQ(plog_->epoch_cache().latest_entry(), (epoch_entry{leader_epoch(5), offset(6)}));
  EXPECT_EQ(plog_->epoch_cache().end_offset_for(leader_epoch(0), plog_->log().log_end_offset()),
            (epoch_end_offset{leader_epoch(0), offset(6)}));
  auto r = leader_append(producer_batch_bytes(100, 0, 2, 2), 5);
  EXPECT_EQ(r.log.first_offset, offset(6));
  EXPECT_EQ(plog_->epoch_cache().entries().size(), 2u);
}

// A replica that led an epoch without writing to it, then follows again:
// truncating to the log end cuts nothing but drops that epoch, so the
// leader's history (which never gave the epoch any offset) no longer
// diverges from this log at its end.
TEST_F(PartitionLogTest, TruncatingToTheLogEndDropsAnEpochLedWithoutAWrite) {
  open();
  fill(3);
  const auto before = plog_->epoch_cache().entries();
  ASSERT_FALSE(plog_->become_leader(leader_epoch(5)));
  ASSERT_EQ(plog_->epoch_cache().latest_entry(), (epoch_entry{leader_epoch(5), offset(6)}));
  ASSERT_FALSE(plog_->truncate_to(offset(6), 0));
  EXPECT_EQ(plog_->log().log_end_offset(), offset(6));
  EXPECT_EQ(plog_->epoch_cache().entries(), before);
  // Past the log end: the same.
  ASSERT_FALSE(plog_->become_leader(leader_epoch(6)));
  ASSERT_FALSE(plog_->truncate_to(offset(100), 0));
  EXPECT_EQ(plog_->epoch_cache().entries(), before);
}

bytes txn_batch(int64_t pid, int32_t seq, int records) {
  protocol::record_batch_options o;
  o.producer_id = pid;
  o.producer_epoch = 0;
  o.base_sequence = seq;
  o.transactional = true;
  protocol::record_batch_builder b(o);
  for (int i = 0; i < records; ++i) {
    std::string v = "t" + std::to_string(seq + i);
    b.append(1000 + i, std::nullopt, protocol::bytes_view(reinterpret_cast<const uint8_t*>(v.data()), v.size()));
  }
  return b.finish();
}

bytes abort_marker(int64_t pid) {
  bytes out;
  protocol::end_txn_marker_batch m;
  m.producer_id = pid;
  m.producer_epoch = 0;
  m.timestamp_ms = 2000;
  m.marker.type = protocol::control_record_type::abort;
  m.marker.coordinator_epoch = 3;
  protocol::append_end_txn_marker_batch(out, m);
  return out;
}

TEST_F(PartitionLogTest, AbortsGoToTheTransactionIndexAndSurviveRecovery) {
  open();
  fill(6);  // 12 records, other producers
  auto r = leader_append(txn_batch(9, 0, 3), 0);
  ASSERT_EQ(r.error, protocol::error_code::none);
  const offset first = r.log.first_offset;
  partition_append_result m;
  bytes marker = abort_marker(9);
  ASSERT_FALSE(plog_->append_as_leader(
      marker, {.epoch = leader_epoch(0), .now_ms = 5, .origin = producer_origin::coordinator}, &m));
  ASSERT_EQ(m.error, protocol::error_code::none) << m.error_message;
  ASSERT_EQ(m.finished_txns.size(), 1u);
  fill(0);
  for (int i = 0; i < 4; ++i) leader_append(producer_batch_bytes(200, 0, i * 2, 2), 0);
  std::vector<aborted_txn> want;
  ASSERT_FALSE(plog_->log().collect_aborted_transactions(offset(0), plog_->log().log_end_offset(), &want));
  ASSERT_EQ(want.size(), 1u);
  EXPECT_EQ(want[0].id, producer_id(9));
  EXPECT_EQ(want[0].first_offset, first);
  EXPECT_EQ(want[0].last_offset, m.log.first_offset);

  for (bool clean : {false, true}) {
    SCOPED_TRACE(clean);
    if (clean) {
      ASSERT_FALSE(plog_->close());
    } else {
      plog_.reset();
    }
    open(clean, offset(0));
    std::vector<aborted_txn> got;
    ASSERT_FALSE(plog_->log().collect_aborted_transactions(offset(0), plog_->log().log_end_offset(), &got));
    EXPECT_EQ(got, want);
    EXPECT_FALSE(plog_->producers().find(producer_id(9))->current_txn_first_offset.has_value());
  }
}

// One segment, a producer snapshot taken after an abort, an unclean
// shutdown with the recovery point past that snapshot: recovery scans the
// whole segment (emptying its `.txnindex`) and must find the abort before
// the snapshot again, not only those after it. Seen in a chaos run: after a
// kill, read_committed consumers reading the partition from the start were
// given the aborted records.
TEST_F(PartitionLogTest, RecoveryRebuildsTheTransactionIndexOfTheWholeSegmentItScans) {
  config_.segment_bytes = 1 << 20;
  open();
  const auto abort_txn = [&](int64_t pid) {
    auto r = leader_append(txn_batch(pid, 0, 3), 0);
    EXPECT_EQ(r.error, protocol::error_code::none);
    partition_append_result m;
    bytes marker = abort_marker(pid);
    EXPECT_FALSE(plog_->append_as_leader(
        marker, {.epoch = leader_epoch(0), .now_ms = 5, .origin = producer_origin::coordinator}, &m));
    EXPECT_EQ(m.finished_txns.size(), 1u);
  };
  fill(6);
  abort_txn(9);
  for (int i = 0; i < 4; ++i) leader_append(producer_batch_bytes(200, 0, i * 2, 2), 0);
  ASSERT_FALSE(plog_->take_snapshot());
  const offset snapshot_at = plog_->log().log_end_offset();
  // Open across the snapshot, aborted after it.
  auto open_across = leader_append(txn_batch(11, 0, 2), 0);
  ASSERT_EQ(open_across.error, protocol::error_code::none);
  for (int i = 4; i < 6; ++i) leader_append(producer_batch_bytes(200, 0, i * 2, 2), 0);
  abort_txn(10);
  {
    partition_append_result m;
    bytes marker = abort_marker(11);
    ASSERT_FALSE(plog_->append_as_leader(
        marker, {.epoch = leader_epoch(0), .now_ms = 5, .origin = producer_origin::coordinator}, &m));
  }
  ASSERT_EQ(plog_->log().segment_count(), 1u);
  std::vector<aborted_txn> want;
  ASSERT_FALSE(plog_->log().collect_aborted_transactions(offset(0), plog_->log().log_end_offset(), &want));
  ASSERT_EQ(want.size(), 3u);

  plog_.reset();  // unclean
  open(false, snapshot_at);
  std::vector<aborted_txn> got;
  ASSERT_FALSE(plog_->log().collect_aborted_transactions(offset(0), plog_->log().log_end_offset(), &got));
  EXPECT_EQ(got, want);
  EXPECT_EQ(got.at(2).first_offset, open_across.log.first_offset) << "the transaction open across the snapshot";
}

TEST_F(PartitionLogTest, LogStartOffsetMovesCacheAndSnapshots) {
  open();
  fill();  // rolls: snapshots at segment bases
  std::vector<offset> snaps;
  ASSERT_FALSE(list_producer_snapshots(*fs_, dir(), &snaps));
  ASSERT_GT(snaps.size(), 2u);
  ASSERT_FALSE(plog_->advance_log_start_offset(offset(50), 7));
  EXPECT_EQ(plog_->log().log_start_offset(), offset(50));
  std::vector<epoch_entry> want{{leader_epoch(1), offset(50)}, {leader_epoch(2), offset(80)}};
  EXPECT_EQ(plog_->epoch_cache().entries(), want);
  snaps.clear();
  ASSERT_FALSE(list_producer_snapshots(*fs_, dir(), &snaps));
  for (offset s : snaps) EXPECT_GT(s, offset(50));
  // Reopen agrees.
  ASSERT_FALSE(plog_->close());
  partition_log_options o;
  o.config = config_;
  o.had_clean_shutdown = true;
  o.log_start_offset = offset(50);
  plog_.reset();
  ASSERT_FALSE(partition_log::open(*fs_, dir(), o, &plog_));
  EXPECT_EQ(plog_->epoch_cache().entries(), want);
}

TEST_F(PartitionLogTest, TruncateFullyClearsEverything) {
  open();
  fill();
  ASSERT_FALSE(plog_->truncate_fully_and_start_at(offset(500), 7));
  EXPECT_TRUE(plog_->epoch_cache().empty());
  EXPECT_TRUE(plog_->producers().producers().empty());
  EXPECT_EQ(plog_->log().log_end_offset(), offset(500));
  auto r = leader_append(producer_batch_bytes(100, 0, 0, 2), 4);
  EXPECT_EQ(r.log.first_offset, offset(500));
}

TEST_F(PartitionLogTest, FollowerAppendKeepsOffsetsAndEpochs) {
  open();
  bytes b = make_batch({.base_offset = 0, .records = 3, .leader_epoch = 2});
  append_to(b, make_batch({.base_offset = 3, .records = 2, .leader_epoch = 4}));
  partition_append_result r;
  ASSERT_FALSE(plog_->append_as_follower(b, 5, &r));
  EXPECT_EQ(r.log.last_offset, offset(4));
  std::vector<epoch_entry> want{{leader_epoch(2), offset(0)}, {leader_epoch(4), offset(3)}};
  EXPECT_EQ(plog_->epoch_cache().entries(), want);
}

}  // namespace
}  // namespace hw::storage
