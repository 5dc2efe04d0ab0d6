// The cleaner on a real partition log: the latest value per key survives,
// offsets never change, the active segment is left alone, tombstones go
// only after delete.retention.ms, compressed batches stay compressed.

#include <gtest/gtest.h>

#include "tests/storage/cleaner_support.h"

namespace hw::storage {
namespace {

using namespace hw::storage::testing;

std::string value_of(int key, int version) { return "value-" + std::to_string(key) + "-" + std::to_string(version); }

TEST(CleanerBasic, LatestValuePerKeySurvivesAndOffsetsDoNotMove) {
  cleaner_harness h;
  std::map<int64_t, stored_record> original;
  for (int version = 0; version < 10; ++version)
    for (int key = 0; key < 8; ++key) h.put("k" + std::to_string(key), value_of(key, version));
  h.roll();
  for (const auto& r : h.records()) original[r.offset] = r;
  auto before_end = h.plog->log().log_end_offset();
  size_t before_bytes = h.plog->log().size_bytes();

  auto report = h.clean();
  ASSERT_TRUE(report);
  EXPECT_FALSE(report->abandoned);
  EXPECT_EQ(report->end_offset, before_end);
  EXPECT_EQ(h.host.checkpoints[h.host.tp], before_end);

  auto after = h.records();
  ASSERT_EQ(after.size(), 8u);
  for (const auto& r : after) {
    // Same offset, same record as before cleaning.
    ASSERT_TRUE(original.contains(r.offset));
    EXPECT_EQ(original[r.offset], r);
    int key = std::stoi(r.key.substr(1));
    EXPECT_EQ(r.value, value_of(key, 9));
  }
  EXPECT_EQ(h.plog->log().log_end_offset(), before_end);
  EXPECT_EQ(h.plog->log().log_start_offset(), offset(0));
  EXPECT_LT(h.plog->log().size_bytes(), before_bytes);
  // Reads through the log see the same thing.
  EXPECT_EQ(read_via_fetch(h.plog->log()), after);
}

TEST(CleanerBasic, ActiveSegmentIsNeverCleaned) {
  cleaner_harness h;
  for (int i = 0; i < 30; ++i) h.put("same", "old-" + std::to_string(i));
  h.roll();
  for (int i = 0; i < 5; ++i) h.put("same", "new-" + std::to_string(i));
  auto active = h.plog->log().segments().back();
  auto active_end = active->end();
  ASSERT_TRUE(h.clean());
  auto after = h.plog->log().segments();
  EXPECT_EQ(after.back().get(), active.get());
  EXPECT_EQ(after.back()->end().size, active_end.size);
  auto recs = h.records();
  // One survivor of the cleaned part (the last batch of the round), five in the active segment.
  ASSERT_EQ(recs.size(), 6u);
  EXPECT_EQ(*recs[0].value, "old-29");
  for (int i = 0; i < 5; ++i) EXPECT_EQ(*recs[1 + i].value, "new-" + std::to_string(i));
}

TEST(CleanerBasic, NothingToCleanWithoutARolledSegment) {
  cleaner_harness h;
  for (int i = 0; i < 5; ++i) h.put("k", "v" + std::to_string(i));
  EXPECT_FALSE(h.clean());
  EXPECT_EQ(h.records().size(), 5u);
}

TEST(CleanerBasic, NotPastTheLastStableOffset) {
  cleaner_harness h;
  for (int i = 0; i < 20; ++i) h.put("k", "v" + std::to_string(i));
  h.roll();
  offset first_segment_end = h.plog->log().log_end_offset();
  for (int i = 20; i < 40; ++i) h.put("k", "v" + std::to_string(i));
  h.roll();
  h.host.last_stable = first_segment_end + 5;  // inside the second segment
  auto report = h.clean();
  ASSERT_TRUE(report);
  EXPECT_EQ(report->end_offset, first_segment_end);
  auto recs = h.records();
  // The first segment keeps its last record; the second is untouched.
  ASSERT_EQ(recs.size(), 21u);
  EXPECT_EQ(*recs[0].value, "v19");
}

TEST(CleanerBasic, TombstonesGoOnlyAfterDeleteRetention) {
  log_config config = cleaner_harness::default_config();
  config.delete_retention_ms = 10'000;
  cleaner_harness h(config);
  h.put("a", "1");
  h.put("b", "1");
  h.put("a", std::nullopt);
  h.put("c", "1");
  h.roll();
  ASSERT_TRUE(h.clean());
  std::vector<stored_record> recs;
  std::vector<stored_batch> batches;
  read_log(h.plog->log(), &recs, &batches);
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs[1].key, "a");
  EXPECT_FALSE(recs[1].value);
  // The tombstone's batch carries the delete horizon (KIP-534).
  ASSERT_TRUE(batches[1].delete_horizon);
  EXPECT_EQ(*batches[1].delete_horizon, cleaner_t0 + 10'000);
  EXPECT_FALSE(batches[0].delete_horizon);

  // Just before the horizon: kept.
  h.now = cleaner_t0 + 9'999;
  h.put("d", "1");
  h.roll();
  ASSERT_TRUE(h.clean());
  read_log(h.plog->log(), &recs, &batches);
  EXPECT_EQ(latest_by_key(recs).count("a"), 1u);

  // At the horizon: gone; the other keys stay.
  h.now = cleaner_t0 + 10'000;
  h.put("e", "1");
  h.roll();
  ASSERT_TRUE(h.clean());
  read_log(h.plog->log(), &recs);
  auto latest = latest_by_key(recs);
  EXPECT_EQ(latest.count("a"), 0u);
  for (const char* k : {"b", "c", "d", "e"}) EXPECT_EQ(latest[k], "1") << k;
}

TEST(CleanerBasic, CompressedBatchesAreRecompressedWithTheirCodec) {
  cleaner_harness h;
  for (int v = 0; v < 3; ++v) {
    std::vector<kv> batch;
    for (int k = 0; k < 10; ++k) batch.push_back({"k" + std::to_string(k), "v" + std::to_string(v)});
    if (v == 2) batch.resize(5);  // keys 5..9 keep version 1
    h.append(keyed_batch(batch, h.now, {}, protocol::compression::lz4));
  }
  h.roll();
  ASSERT_TRUE(h.clean());
  std::vector<stored_record> recs;
  std::vector<stored_batch> batches;
  read_log(h.plog->log(), &recs, &batches);
  ASSERT_EQ(recs.size(), 10u);
  for (const auto& b : batches) EXPECT_EQ(b.codec, static_cast<int>(protocol::compression::lz4));
  auto latest = latest_by_key(recs);
  for (int k = 0; k < 10; ++k) EXPECT_EQ(latest["k" + std::to_string(k)], k < 5 ? "v2" : "v1");
}

TEST(CleanerBasic, ReplacedSegmentsAreDeletedAfterTheDelay) {
  cleaner_harness h;
  for (int i = 0; i < 60; ++i) h.put("k" + std::to_string(i % 4), "v" + std::to_string(i));
  h.roll();
  size_t before = h.plog->log().segment_count();
  ASSERT_GT(before, 2u);
  // Groups are formed from the segments' sizes before cleaning: full
  // segments are rewritten one by one; the next pass merges the small ones.
  ASSERT_TRUE(h.clean());
  EXPECT_EQ(h.plog->log().segment_count(), before);
  h.put("k0", "again");
  h.roll();
  ASSERT_TRUE(h.clean());
  EXPECT_EQ(h.plog->log().segment_count(), 2u);
  std::vector<std::string> names;
  ASSERT_FALSE(h.fs.list(h.dir(), &names));
  size_t deleted = std::count_if(names.begin(), names.end(), [](const std::string& n) { return n.ends_with(".deleted"); });
  EXPECT_GT(deleted, 0u);
  EXPECT_GT(h.cleaner.pending_segment_deletions(), 0u);
  h.now += 999;
  ASSERT_FALSE(h.cleaner.delete_expired_segments());
  EXPECT_GT(h.cleaner.pending_segment_deletions(), 0u);
  h.now += 1;
  ASSERT_FALSE(h.cleaner.delete_expired_segments());
  EXPECT_EQ(h.cleaner.pending_segment_deletions(), 0u);
  ASSERT_FALSE(h.fs.list(h.dir(), &names));
  for (const auto& n : names) {
    EXPECT_FALSE(n.ends_with(".deleted")) << n;
    EXPECT_FALSE(n.ends_with(".cleaned")) << n;
    EXPECT_FALSE(n.ends_with(".swap")) << n;
  }
}

// A follower copying a compacted log gets offset gaps between batches; its
// rolls must not leave gaps between segments, which recovery after an
// unclean shutdown would read as a lost tail (and drop every later segment).
TEST(CleanerBasic, AFollowerOfACompactedLogSurvivesAnUncleanRestart) {
  faulty_file_system fs;
  ASSERT_FALSE(fs.create_directories("/logs"));
  ASSERT_FALSE(fs.sync_directory("/"));
  log_config c;
  c.segment_bytes = 300;
  std::unique_ptr<log> l;
  log_load_report report;
  ASSERT_FALSE(log::open(fs, "/logs/follower-0", c, {}, &l, &report));
  for (int i = 0; i < 10; ++i) {
    bytes b = make_batch({.base_offset = i * 10, .records = 1, .value_bytes = 100});
    append_result r;
    ASSERT_FALSE(l->append(b, {append_origin::replication, leader_epoch(0), 0}, &r));
  }
  ASSERT_GT(l->segment_count(), 3u);
  auto segs = l->segments();
  for (size_t i = 0; i + 1 < segs.size(); ++i) EXPECT_EQ(segs[i]->end().next_offset, segs[i + 1]->base_offset());
  ASSERT_FALSE(l->flush());
  l.reset();
  log_open_options o;
  o.had_clean_shutdown = false;
  o.recovery_point = offset(0);  // no flush had been checkpointed
  ASSERT_FALSE(log::open(fs, "/logs/follower-0", c, o, &l, &report));
  EXPECT_EQ(l->log_end_offset(), offset(91));
  EXPECT_EQ(read_all(*l, 0).size(), 10u);
}

// Cleaned segments keep their ends: when the last records of a cleaned
// group are superseded, an empty batch holds the group's last offset, so no
// gap opens between segments. Recovery after an unclean shutdown reads a
// segment ending short of the next one as a lost tail (dropping what
// follows); a cleaned log must never look like that.
TEST(CleanerBasic, CleanedSegmentsEndWhereTheNextOneStarts) {
  log_config c = cleaner_harness::default_config();
  c.segment_bytes = 400;
  cleaner_harness h(c);
  for (int i = 0; i < 40; ++i) h.put("k" + std::to_string(i % 4), "v" + std::to_string(i));
  h.roll();
  for (int i = 0; i < 4; ++i) h.put("k" + std::to_string(i), "latest");
  h.force_clean();
  auto segs = h.plog->log().segments();
  ASSERT_GE(segs.size(), 2u);
  for (size_t i = 0; i + 1 < segs.size(); ++i)
    EXPECT_EQ(segs[i]->end().next_offset, segs[i + 1]->base_offset()) << "segment " << i;
  auto before = h.records();
  // The map holds the dirty part only: per key, the last value of the cleaned
  // part (v36..v39) and the four in the active segment.
  EXPECT_EQ(data_records(before).size(), 8u);

  ASSERT_FALSE(h.plog->mutable_log().flush());
  h.fs.crash();
  h.open(false);  // unclean: every segment is scanned from offset 0
  EXPECT_EQ(h.plog->log().log_end_offset(), offset(44));
  EXPECT_EQ(h.records(), before);
}

}  // namespace
}  // namespace hw::storage
