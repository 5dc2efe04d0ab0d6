// storage/time_index: the `.timeindex` file's append rule, floor lookup,
// reserved final slot, truncation, file format and sanity checks.

#include "storage/time_index.h"

#include <gtest/gtest.h>

#include "tests/storage/fixtures/log_test_support.h"

namespace hw::storage {
namespace {

using testing::temp_dir;

class TimeIndexTest : public ::testing::Test {
 protected:
  std::unique_ptr<time_index> open(int32_t max_bytes = 1200) {
    std::unique_ptr<time_index> index;
    EXPECT_FALSE(time_index::open(*fs_, path_, offset(1000), max_bytes, &index));
    return index;
  }

  temp_dir dir_;
  std::unique_ptr<file_system> fs_ = make_posix_file_system();
  std::filesystem::path path_ = dir_.path() / "00000000000000001000.timeindex";
};

TEST_F(TimeIndexTest, EmptyIndexAnswersNoTimestampAtTheBase) {
  auto index = open();
  EXPECT_EQ(index->last_entry(), (timestamp_offset{no_timestamp, offset(1000)}));
  EXPECT_EQ(index->lookup(123), (timestamp_offset{no_timestamp, offset(1000)}));
}

TEST_F(TimeIndexTest, AppendsOnlyWhenTheTimestampGrows) {
  auto index = open();
  index->maybe_append(50, offset(1001));
  index->maybe_append(50, offset(1003));  // same timestamp: no entry
  index->maybe_append(70, offset(1005));
  EXPECT_EQ(index->entries(), 2u);
  EXPECT_EQ(index->last_entry(), (timestamp_offset{70, offset(1005)}));
}

TEST_F(TimeIndexTest, LookupIsTheLargestTimestampAtOrBelowTheTarget) {
  auto index = open();
  index->maybe_append(100, offset(1010));
  index->maybe_append(200, offset(1020));
  index->maybe_append(300, offset(1030));
  EXPECT_EQ(index->lookup(99), (timestamp_offset{no_timestamp, offset(1000)}));
  EXPECT_EQ(index->lookup(100), (timestamp_offset{100, offset(1010)}));
  EXPECT_EQ(index->lookup(250), (timestamp_offset{200, offset(1020)}));
  EXPECT_EQ(index->lookup(10'000), (timestamp_offset{300, offset(1030)}));
}

TEST_F(TimeIndexTest, LastSlotIsReservedForTheFinalEntry) {
  auto index = open(12 * 3);
  EXPECT_EQ(index->max_entries(), 3u);
  index->maybe_append(1, offset(1001));
  EXPECT_FALSE(index->full());
  index->maybe_append(2, offset(1002));
  EXPECT_TRUE(index->full());
  index->maybe_append(3, offset(1003), /*skip_full_check=*/true);
  EXPECT_EQ(index->entries(), 3u);
}

TEST_F(TimeIndexTest, TruncateRemovesEntriesAtOrAboveTheOffset) {
  auto index = open();
  index->maybe_append(100, offset(1010));
  index->maybe_append(200, offset(1020));
  index->maybe_append(300, offset(1030));
  index->truncate_to(offset(1021));
  EXPECT_EQ(index->last_entry(), (timestamp_offset{200, offset(1020)}));
  index->truncate_to(offset(1020));
  EXPECT_EQ(index->last_entry(), (timestamp_offset{100, offset(1010)}));
  index->maybe_append(150, offset(1015));  // appends resume from the new last entry
  EXPECT_EQ(index->entries(), 2u);
}

TEST_F(TimeIndexTest, FileHoldsBigEndianTimestampAndRelativeOffset) {
  auto index = open();
  index->maybe_append(0x0102030405060708, offset(1000 + 0x0a0b0c0d));
  ASSERT_FALSE(index->flush());
  std::string content;
  ASSERT_FALSE(read_whole_file(*fs_, path_, &content));
  std::string expected("\x01\x02\x03\x04\x05\x06\x07\x08\x0a\x0b\x0c\x0d", 12);
  EXPECT_EQ(content, expected);
  auto reopened = open();
  EXPECT_EQ(reopened->last_entry(), (timestamp_offset{0x0102030405060708, offset(1000 + 0x0a0b0c0d)}));
}

TEST_F(TimeIndexTest, SanityChecks) {
  auto index = open();
  index->maybe_append(100, offset(1010));
  index->maybe_append(200, offset(1020));
  EXPECT_EQ(index->sanity_check(offset(1021)), std::nullopt);
  auto problem = index->sanity_check(offset(1020));
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("next offset"), std::string::npos) << *problem;

  // Timestamps going backwards, as in a zero-filled tail.
  std::string bad("\0\0\0\0\0\0\0\x09\0\0\0\x01\0\0\0\0\0\0\0\0\0\0\0\0", 24);
  ASSERT_FALSE(write_file_atomically(*fs_, path_, bad));
  problem = open()->sanity_check(offset(5000));
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("does not increase the timestamp"), std::string::npos) << *problem;

  ASSERT_FALSE(write_file_atomically(*fs_, path_, bad.substr(0, 13)));
  problem = open()->sanity_check(offset(5000));
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("multiple of 12"), std::string::npos) << *problem;
}

}  // namespace
}  // namespace hw::storage
