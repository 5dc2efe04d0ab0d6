// storage/offset_index: the `.index` file's floor lookup, truncation, file
// format, sanity checks, capacity, and lookups racing the writer.

#include "storage/offset_index.h"

#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>

#include "tests/storage/fixtures/log_test_support.h"

namespace hw::storage {
namespace {

using testing::temp_dir;

class OffsetIndexTest : public ::testing::Test {
 protected:
  std::unique_ptr<offset_index> open(int64_t base = 100, int32_t max_bytes = 1024) {
    std::unique_ptr<offset_index> index;
    EXPECT_FALSE(offset_index::open(*fs_, path_, offset(base), max_bytes, &index));
    return index;
  }
  std::vector<uint8_t> file_bytes() {
    std::string content;
    EXPECT_FALSE(read_whole_file(*fs_, path_, &content));
    return {content.begin(), content.end()};
  }

  temp_dir dir_;
  std::unique_ptr<file_system> fs_ = make_posix_file_system();
  std::filesystem::path path_ = dir_.path() / "00000000000000000100.index";
};

TEST_F(OffsetIndexTest, EmptyIndexAnswersTheBaseOffsetAtPositionZero) {
  auto index = open();
  EXPECT_EQ(index->entries(), 0u);
  EXPECT_EQ(index->lookup(offset(500)), (offset_position{offset(100), 0}));
  EXPECT_EQ(index->last_offset(), offset(100));
}

TEST_F(OffsetIndexTest, LookupIsTheLargestEntryAtOrBelowTheTarget) {
  auto index = open();
  index->append(offset(110), 1000);
  index->append(offset(120), 2000);
  index->append(offset(130), 3000);
  EXPECT_EQ(index->lookup(offset(105)), (offset_position{offset(100), 0}));
  EXPECT_EQ(index->lookup(offset(110)), (offset_position{offset(110), 1000}));
  EXPECT_EQ(index->lookup(offset(125)), (offset_position{offset(120), 2000}));
  EXPECT_EQ(index->lookup(offset(130)), (offset_position{offset(130), 3000}));
  EXPECT_EQ(index->lookup(offset(1'000'000'000'000)), (offset_position{offset(130), 3000}));
  EXPECT_EQ(index->last_offset(), offset(130));
}

TEST_F(OffsetIndexTest, TruncateRemovesEntriesAtOrAboveTheOffset) {
  auto index = open();
  for (int i = 1; i <= 5; ++i) index->append(offset(100 + 10 * i), 1000 * i);
  index->truncate_to(offset(135));
  EXPECT_EQ(index->entries(), 3u);  // 110, 120, 130
  index->truncate_to(offset(120));
  EXPECT_EQ(index->entries(), 1u);  // 110
  EXPECT_EQ(index->lookup(offset(500)), (offset_position{offset(110), 1000}));
  index->reset();
  EXPECT_EQ(index->entries(), 0u);
  index->append(offset(101), 10);  // appends again after a reset
  EXPECT_EQ(index->lookup(offset(101)).position, 10u);
}

TEST_F(OffsetIndexTest, FileHoldsBigEndianRelativeOffsetAndPosition) {
  auto index = open();
  index->append(offset(101), 0x01020304);
  index->append(offset(100 + 0x7fffffffLL), 0x0a0b0c0d);
  EXPECT_TRUE(file_bytes().empty()) << "entries stay in memory until written out";
  ASSERT_FALSE(index->flush());
  std::vector<uint8_t> expected = {0, 0, 0, 1, 1, 2, 3, 4, 0x7f, 0xff, 0xff, 0xff, 0x0a, 0x0b, 0x0c, 0x0d};
  EXPECT_EQ(file_bytes(), expected);
  auto reopened = open();
  EXPECT_EQ(reopened->entries(), 2u);
  EXPECT_EQ(reopened->entry(1), (offset_position{offset(100 + 0x7fffffffLL), 0x0a0b0c0d}));
}

TEST_F(OffsetIndexTest, WriteOutAfterTruncationShrinksTheFile) {
  auto index = open();
  for (int i = 1; i <= 4; ++i) index->append(offset(100 + i), 100 * i);
  ASSERT_FALSE(index->write_out());
  EXPECT_EQ(file_bytes().size(), 32u);
  index->truncate_to(offset(103));
  index->append(offset(110), 900);
  ASSERT_FALSE(index->write_out());
  EXPECT_EQ(file_bytes().size(), 24u);
  auto reopened = open();
  EXPECT_EQ(reopened->entry(2), (offset_position{offset(110), 900}));
}

TEST_F(OffsetIndexTest, SanityCheckAcceptsAGoodIndex) {
  auto index = open();
  index->append(offset(101), 100);
  index->append(offset(105), 200);
  EXPECT_EQ(index->sanity_check(201), std::nullopt);
}

TEST_F(OffsetIndexTest, SanityCheckRejectsAPartialEntry) {
  std::vector<uint8_t> content = {0, 0, 0, 1, 0, 0, 0, 9, 0, 0, 0};
  ASSERT_FALSE(write_file_atomically(*fs_, path_, {reinterpret_cast<char*>(content.data()), content.size()}));
  auto index = open();
  auto problem = index->sanity_check(1000);
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("multiple of 8"), std::string::npos) << *problem;
}

TEST_F(OffsetIndexTest, SanityCheckRejectsOffsetsThatDoNotIncrease) {
  std::vector<uint8_t> content = {0, 0, 0, 5, 0, 0, 0, 9, 0, 0, 0, 5, 0, 0, 0, 20};
  ASSERT_FALSE(write_file_atomically(*fs_, path_, {reinterpret_cast<char*>(content.data()), content.size()}));
  auto problem = open()->sanity_check(1000);
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("does not increase the offset"), std::string::npos) << *problem;
}

TEST_F(OffsetIndexTest, SanityCheckRejectsPositionsPastTheLog) {
  auto index = open();
  index->append(offset(101), 100);
  index->append(offset(102), 500);
  auto problem = index->sanity_check(400);
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("points past the log"), std::string::npos) << *problem;
}

TEST_F(OffsetIndexTest, SanityCheckRejectsAZeroFilledTail) {
  // What a preallocated Kafka index looks like after a crash.
  auto index = open();
  index->append(offset(101), 100);
  ASSERT_FALSE(index->write_out());
  std::unique_ptr<file> f;
  ASSERT_FALSE(fs_->open(path_, open_mode::read_write, &f));
  ASSERT_FALSE(f->truncate(8 * 4));
  EXPECT_TRUE(open()->sanity_check(1000));
}

TEST_F(OffsetIndexTest, CapacityComesFromSegmentIndexBytes) {
  auto index = open(100, 8 * 3 + 5);
  EXPECT_EQ(index->max_entries(), 3u);
  index->append(offset(101), 1);
  index->append(offset(102), 2);
  EXPECT_FALSE(index->full());
  index->append(offset(103), 3);
  EXPECT_TRUE(index->full());
}

TEST_F(OffsetIndexTest, RelativeOffsetsMustFitInt32) {
  auto index = open();
  EXPECT_TRUE(index->can_append_offset(offset(100)));
  EXPECT_TRUE(index->can_append_offset(offset(100 + 0x7fffffffLL)));
  EXPECT_FALSE(index->can_append_offset(offset(100 + 0x80000000LL)));
  EXPECT_FALSE(index->can_append_offset(offset(99)));
}

TEST_F(OffsetIndexTest, ManyEntriesAcrossChunks) {
  auto index = open(0, 8 * 100'000);
  for (int i = 0; i < 100'000; ++i) index->append(offset(2 * i + 1), 10 * i);
  ASSERT_FALSE(index->write_out());
  auto reopened = open(0, 8 * 100'000);
  std::mt19937_64 rng(7);
  for (int i = 0; i < 10'000; ++i) {
    int64_t target = static_cast<int64_t>(rng() % 200'002);
    auto got = reopened->lookup(offset(target));
    int64_t expected_slot = (target - 1) / 2;  // entry k holds offset 2k+1
    if (target < 1) {
      EXPECT_EQ(got, (offset_position{offset(0), 0}));
    } else {
      expected_slot = std::min<int64_t>(expected_slot, 99'999);
      EXPECT_EQ(got, (offset_position{offset(2 * expected_slot + 1), static_cast<uint32_t>(10 * expected_slot)}));
    }
  }
}

// Readers look up while the writer appends: every answer is an entry the
// writer made (position = 3 x offset) and at or below the target.
TEST_F(OffsetIndexTest, LookupsRaceAppendsSafely) {
  constexpr int kEntries = 300'000;
  auto index = open(0, 8 * kEntries);
  std::atomic<bool> done{false};
  std::atomic<int> started{0};
  std::atomic<int64_t> checks{0};
  auto reader = [&](uint64_t seed) {
    std::mt19937_64 rng(seed);
    started.fetch_add(1);
    // At least some lookups even if the writer is done first.
    for (int64_t mine = 0; !done.load(std::memory_order_acquire) || mine < 10'000; ++mine) {
      int64_t target = static_cast<int64_t>(rng() % kEntries);
      auto got = index->lookup(offset(target));
      ASSERT_LE(got.offset.value, target);
      if (got.offset.value > 0) {
        ASSERT_EQ(got.position, 3 * got.offset.value);
      }
      checks.fetch_add(1, std::memory_order_relaxed);
    }
  };
  std::thread r1(reader, 1), r2(reader, 2);
  while (started.load() < 2) std::this_thread::yield();
  for (int i = 1; i < kEntries; ++i) index->append(offset(i), static_cast<uint32_t>(3 * i));
  done.store(true, std::memory_order_release);
  r1.join();
  r2.join();
  EXPECT_GT(checks.load(), 0);
}

}  // namespace
}  // namespace hw::storage
