// storage/segment: append and Kafka's index-entry rule, reads (min one
// batch, max position), offset translation, timestamp search, truncation,
// roll decisions, close/reopen and deletion.

#include "storage/segment.h"

#include <gtest/gtest.h>

#include "tests/storage/fixtures/log_test_support.h"

namespace hw::storage {
namespace {

using namespace hw::storage::testing;

class SegmentTest : public ::testing::Test {
 protected:
  std::unique_ptr<segment> create(int64_t base = 100) {
    std::unique_ptr<segment> s;
    EXPECT_FALSE(segment::create(*fs_, dir_.path(), offset(base), options_, &s));
    return s;
  }
  std::unique_ptr<segment> reopen(int64_t base, std::optional<std::string>* problem) {
    std::unique_ptr<segment> s;
    EXPECT_FALSE(segment::open(*fs_, dir_.path(), offset(base), options_, &s, problem));
    return s;
  }
  // Appends n batches of `records` records each, from offset `from`.
  std::vector<bytes> append_batches(segment& s, int64_t from, int n, int records = 4, int64_t ts = 1000) {
    std::vector<bytes> batches;
    for (int i = 0; i < n; ++i) {
      batches.push_back(make_batch({.base_offset = from + i * records, .records = records,
                                    .first_timestamp = ts + i * 10, .value_bytes = 20}));
      EXPECT_FALSE(s.append(batches.back()));
    }
    return batches;
  }

  temp_dir dir_;
  std::unique_ptr<file_system> fs_ = make_posix_file_system();
  segment_options options_{.index_interval_bytes = 100, .max_index_bytes = 1024, .roll_jitter_ms = 0, .now_ms = 0};
};

TEST_F(SegmentTest, FileNamesAreTwentyDigitOffsets) {
  EXPECT_EQ(segment_file_name(offset(42), ".log"), "00000000000000000042.log");
  EXPECT_EQ(offset_from_file_name("00000000000000000042.timeindex.deleted"), offset(42));
  EXPECT_EQ(offset_from_file_name("leader-epoch-checkpoint"), std::nullopt);
  EXPECT_EQ(offset_from_file_name(".log"), std::nullopt);
}

TEST_F(SegmentTest, AppendPublishesTheEndAndIndexesPerKafka) {
  uint32_t b = static_cast<uint32_t>(make_batch({.records = 4, .value_bytes = 20}).size());
  options_.index_interval_bytes = static_cast<int32_t>(b + 10);
  auto s = create();
  append_batches(*s, 100, 5);
  EXPECT_EQ(s->end().next_offset, offset(120));
  EXPECT_EQ(s->end().size, 5 * b);
  // Kafka adds an entry before a batch once more than index.interval.bytes
  // were appended since the last one: before batches 2 and 4 (0-based) here,
  // each entry that batch's last offset and position.
  ASSERT_EQ(s->offsets().entries(), 2u);
  EXPECT_EQ(s->offsets().entry(0), (offset_position{offset(111), 2 * b}));
  EXPECT_EQ(s->offsets().entry(1), (offset_position{offset(119), 4 * b}));
  EXPECT_EQ(s->times().entries(), 2u);
  EXPECT_EQ(s->times().entry(0), (timestamp_offset{1023, offset(111)}));
  EXPECT_EQ(s->max_timestamp_so_far(), (timestamp_offset{1043, offset(119)}));
}

TEST_F(SegmentTest, TranslateFindsTheBatchHoldingAnOffset) {
  auto s = create();
  auto batches = append_batches(*s, 100, 5);
  uint32_t b = static_cast<uint32_t>(batches[0].size());
  std::optional<batch_position> p;
  ASSERT_FALSE(s->translate_offset(offset(109), 0, s->end().size, &p));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->base_offset, offset(108));
  EXPECT_EQ(p->last_offset, offset(111));
  EXPECT_EQ(p->position, 2 * b);
  EXPECT_EQ(p->size, b);
  ASSERT_FALSE(s->translate_offset(offset(50), 0, s->end().size, &p));
  EXPECT_EQ(p->position, 0u);
  ASSERT_FALSE(s->translate_offset(offset(120), 0, s->end().size, &p));
  EXPECT_FALSE(p);
}

TEST_F(SegmentTest, ReadReturnsWholeBatchesUpToMaxBytes) {
  auto s = create();
  auto batches = append_batches(*s, 100, 5);
  uint64_t b = batches[0].size();
  segment_read_result r;
  ASSERT_FALSE(s->read(offset(105), static_cast<int32_t>(2 * b + 10), s->end().size, false, &r));
  ASSERT_TRUE(r.found);
  EXPECT_EQ(r.position, b);
  EXPECT_EQ(r.length, 2 * b + 10);  // the caller's byte limit; the tail batch may be cut
  EXPECT_FALSE(r.first_batch_incomplete);
  ASSERT_FALSE(s->read(offset(105), 10, s->end().size, false, &r));
  EXPECT_EQ(r.length, 10u);
  EXPECT_TRUE(r.first_batch_incomplete);
  // At least one batch, even past max bytes.
  ASSERT_FALSE(s->read(offset(105), 10, s->end().size, true, &r));
  EXPECT_EQ(r.length, b);
  EXPECT_FALSE(r.first_batch_incomplete);
  // max_position caps even the first batch.
  ASSERT_FALSE(s->read(offset(105), 10, static_cast<uint32_t>(b + 5), true, &r));
  EXPECT_EQ(r.length, 5u);
  ASSERT_FALSE(s->read(offset(120), 100, s->end().size, true, &r));
  EXPECT_FALSE(r.found);
}

TEST_F(SegmentTest, FindsTheFirstRecordAtOrAfterATimestamp) {
  auto s = create();
  append_batches(*s, 100, 5);  // batch i: records at 1000+10i .. +3
  std::optional<timestamp_and_offset> found;
  ASSERT_FALSE(s->find_offset_by_timestamp(1021, offset(0), &found));
  ASSERT_TRUE(found);
  EXPECT_EQ(found->offset, offset(109));
  EXPECT_EQ(found->timestamp, 1021);
  ASSERT_FALSE(s->find_offset_by_timestamp(1025, offset(0), &found));
  EXPECT_EQ(found->offset, offset(112));  // no record at 1024..1029: the next batch's first
  ASSERT_FALSE(s->find_offset_by_timestamp(500, offset(0), &found));
  EXPECT_EQ(found->offset, offset(100));
  ASSERT_FALSE(s->find_offset_by_timestamp(1021, offset(111), &found));
  EXPECT_EQ(found->offset, offset(111));  // not below the starting offset
  ASSERT_FALSE(s->find_offset_by_timestamp(5000, offset(0), &found));
  EXPECT_FALSE(found);
  ASSERT_FALSE(s->find_max_timestamp_record(&found));
  ASSERT_TRUE(found);
  EXPECT_EQ(found->offset, offset(119));
  EXPECT_EQ(found->timestamp, 1043);
  EXPECT_EQ(found->epoch, leader_epoch(0));
}

TEST_F(SegmentTest, TimestampSearchDecompresses) {
  auto s = create(0);
  for (auto codec : {protocol::compression::gzip, protocol::compression::snappy, protocol::compression::lz4,
                     protocol::compression::zstd}) {
    int64_t base = s->end().next_offset.value;
    ASSERT_FALSE(s->append(make_batch({.base_offset = base, .records = 10, .first_timestamp = 100 * base,
                                       .timestamp_step = 5, .codec = codec})));
  }
  std::optional<timestamp_and_offset> found;
  ASSERT_FALSE(s->find_offset_by_timestamp(2000 + 12, offset(0), &found));  // batch at base 20, ts 2000 + 5i
  ASSERT_TRUE(found);
  EXPECT_EQ(found->offset, offset(23));
  EXPECT_EQ(found->timestamp, 2015);
}

TEST_F(SegmentTest, TruncateCutsWholeBatchesAndTheirIndexEntries) {
  auto s = create();
  auto batches = append_batches(*s, 100, 5);
  uint64_t b = batches[0].size();
  uint64_t cut = 0;
  ASSERT_FALSE(s->truncate_to(offset(113), 0, &cut));  // the batch 112..115 goes whole
  EXPECT_EQ(cut, 2 * b);
  EXPECT_EQ(s->end().size, 3 * b);
  EXPECT_EQ(s->end().next_offset, offset(113));
  EXPECT_EQ(s->offsets().entries(), 2u);  // 107 and 111; 115 and 119 went
  EXPECT_EQ(s->max_timestamp_so_far(), (timestamp_offset{1023, offset(111)}));
  uint64_t file_size = 0;
  std::unique_ptr<file> f;
  ASSERT_FALSE(fs_->open(s->log_path(), open_mode::read_only, &f));
  ASSERT_FALSE(f->size(&file_size));
  EXPECT_EQ(file_size, 3 * b);
  ASSERT_FALSE(s->truncate_to(offset(500), 0, &cut));
  EXPECT_EQ(cut, 0u);
}

TEST_F(SegmentTest, CloseAndReopenKeepsTheState) {
  {
    auto s = create();
    append_batches(*s, 100, 7);
    ASSERT_FALSE(s->close());
  }
  std::optional<std::string> problem;
  auto s = reopen(100, &problem);
  EXPECT_EQ(problem, std::nullopt);
  EXPECT_EQ(s->end().next_offset, offset(128));
  EXPECT_EQ(s->offsets().entries(), 6u);  // every batch after the first (each > 100 bytes)
  // The final time index entry carries the max timestamp.
  EXPECT_EQ(s->times().last_entry(), (timestamp_offset{1063, offset(127)}));
  EXPECT_EQ(s->max_timestamp_so_far(), (timestamp_offset{1063, offset(127)}));
  std::string index, times;
  ASSERT_FALSE(read_whole_file(*fs_, dir_.path() / "00000000000000000100.index", &index));
  ASSERT_FALSE(read_whole_file(*fs_, dir_.path() / "00000000000000000100.timeindex", &times));
  EXPECT_EQ(index.size(), 6 * 8u);
  EXPECT_EQ(times.size() % 12, 0u);
  // Appends continue where they stopped.
  append_batches(*s, 128, 1);
  EXPECT_EQ(s->end().next_offset, offset(132));
}

TEST_F(SegmentTest, RollsOnSizeTimeFullIndexAndOffsetOverflow) {
  auto s = create();
  append_batches(*s, 100, 2, 4, /*ts=*/10'000);
  int32_t size = static_cast<int32_t>(s->end().size);
  roll_params p{.max_segment_ms = 1000, .max_segment_bytes = size + 100, .max_timestamp_in_messages = 10'500,
                .max_offset_in_messages = offset(120), .messages_bytes = 100, .now_ms = 0};
  EXPECT_FALSE(s->should_roll(p));
  p.messages_bytes = 101;
  EXPECT_TRUE(s->should_roll(p)) << "would pass segment.bytes";
  p.messages_bytes = 100;
  p.max_timestamp_in_messages = 11'003;  // first batch's max timestamp is 10'003
  EXPECT_FALSE(s->should_roll(p)) << "exactly segment.ms after the first batch";
  p.max_timestamp_in_messages = 11'004;
  EXPECT_TRUE(s->should_roll(p)) << "past segment.ms after the first batch";
  p.max_timestamp_in_messages = 10'500;
  p.max_offset_in_messages = offset(100 + 0x80000000LL);
  EXPECT_TRUE(s->should_roll(p)) << "relative offset overflow";

  options_.roll_jitter_ms = 600;
  auto jittered = create(1000);
  append_batches(*jittered, 1000, 1, 4, 10'000);
  p.max_offset_in_messages = offset(1010);
  p.max_timestamp_in_messages = 10'500;
  EXPECT_TRUE(jittered->should_roll(p)) << "jitter rolls 600 ms early";

  options_.roll_jitter_ms = 0;
  options_.max_index_bytes = 16;  // two offset index entries
  auto small = create(2000);
  append_batches(*small, 2000, 5);
  p.max_offset_in_messages = offset(2100);
  p.max_timestamp_in_messages = 1000;
  EXPECT_TRUE(small->offsets().full());
  EXPECT_TRUE(small->should_roll(p)) << "full index";
}

TEST_F(SegmentTest, EmptySegmentRollsOnWallClockOnlyWhenNotEmpty) {
  options_.now_ms = 5000;
  auto s = create();
  roll_params p{.max_segment_ms = 1000, .max_segment_bytes = 1 << 20, .max_timestamp_in_messages = no_timestamp,
                .max_offset_in_messages = offset(101), .messages_bytes = 100, .now_ms = 9000};
  EXPECT_FALSE(s->should_roll(p));
}

TEST_F(SegmentTest, DeleteRenamesThenRemovesEveryFile) {
  auto s = create();
  append_batches(*s, 100, 2);
  ASSERT_FALSE(s->close());
  ASSERT_FALSE(s->rename_to_deleted());
  std::vector<std::string> names;
  ASSERT_FALSE(fs_->list(dir_.path(), &names));
  EXPECT_EQ(names, (std::vector<std::string>{"00000000000000000100.index.deleted",
                                             "00000000000000000100.log.deleted",
                                             "00000000000000000100.timeindex.deleted"}));
  // Still readable through the open descriptor.
  segment_read_result r;
  ASSERT_FALSE(s->read(offset(100), 1000, s->end().size, true, &r));
  EXPECT_TRUE(r.found);
  ASSERT_FALSE(s->remove_files());
  ASSERT_FALSE(fs_->list(dir_.path(), &names));
  EXPECT_TRUE(names.empty());
}

}  // namespace
}  // namespace hw::storage
