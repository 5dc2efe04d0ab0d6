// storage/segment recovery and load checks: a clean segment recovers to
// itself with identical indexes; a cut batch, a flipped byte, garbage, or
// offsets going backwards are truncated at the first invalid byte; missing
// or damaged indexes are reported on open.

#include <gtest/gtest.h>

#include "storage/segment.h"
#include "tests/storage/fixtures/log_test_support.h"

namespace hw::storage {
namespace {

using namespace hw::storage::testing;

class SegmentRecoverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::unique_ptr<segment> s;
    ASSERT_FALSE(segment::create(*fs_, dir_.path(), offset(0), options_, &s));
    for (int i = 0; i < 8; ++i) {
      batches_.push_back(make_batch({.base_offset = 5 * i, .records = 5, .first_timestamp = 100 + 10 * i,
                                     .value_bytes = 30, .leader_epoch = i / 2}));
      ASSERT_FALSE(s->append(batches_.back()));
    }
    for (size_t i = 0; i < s->offsets().entries(); ++i) expected_index_.push_back(s->offsets().entry(i));
    ASSERT_FALSE(s->close());
  }

  std::unique_ptr<segment> open(std::optional<std::string>* problem) {
    std::unique_ptr<segment> s;
    EXPECT_FALSE(segment::open(*fs_, dir_.path(), offset(0), options_, &s, problem));
    return s;
  }
  std::filesystem::path path(std::string_view suffix) { return dir_.path() / segment_file_name(offset(0), suffix); }
  void modify_log(const std::function<void(file&, uint64_t size)>& change) {
    std::unique_ptr<file> f;
    ASSERT_FALSE(fs_->open(path(".log"), open_mode::read_write, &f));
    uint64_t size = 0;
    ASSERT_FALSE(f->size(&size));
    change(*f, size);
  }
  uint64_t batch_bytes() const { return batches_[0].size(); }

  temp_dir dir_;
  std::unique_ptr<file_system> fs_ = make_posix_file_system();
  segment_options options_{.index_interval_bytes = 150, .max_index_bytes = 4096};
  std::vector<bytes> batches_;
  std::vector<offset_position> expected_index_;
};

TEST_F(SegmentRecoverTest, CleanSegmentRecoversToItself) {
  std::optional<std::string> problem;
  auto s = open(&problem);
  ASSERT_EQ(problem, std::nullopt);
  std::vector<int64_t> seen;
  recovery_result r;
  ASSERT_FALSE(s->recover([&](const protocol::record_batch_view& b) { seen.push_back(b.base_offset()); }, &r));
  EXPECT_EQ(r.bytes_truncated, 0u);
  EXPECT_EQ(seen, (std::vector<int64_t>{0, 5, 10, 15, 20, 25, 30, 35}));
  ASSERT_EQ(s->offsets().entries(), expected_index_.size());
  for (size_t i = 0; i < expected_index_.size(); ++i) EXPECT_EQ(s->offsets().entry(i), expected_index_[i]);
  EXPECT_EQ(s->end().next_offset, offset(40));
  EXPECT_EQ(s->max_timestamp_so_far(), (timestamp_offset{174, offset(39)}));
}

TEST_F(SegmentRecoverTest, BatchCutInTheMiddleIsTruncated) {
  modify_log([&](file& f, uint64_t size) { ASSERT_FALSE(f.truncate(size - batch_bytes() / 2)); });
  std::optional<std::string> problem;
  auto s = open(&problem);
  ASSERT_TRUE(problem) << "a log that does not end on a batch boundary";
  recovery_result r;
  ASSERT_FALSE(s->recover(nullptr, &r));
  EXPECT_EQ(r.bytes_truncated, batch_bytes() - batch_bytes() / 2);
  EXPECT_EQ(s->end().next_offset, offset(35));
  EXPECT_EQ(s->end().size, 7 * batch_bytes());
}

TEST_F(SegmentRecoverTest, FlippedByteInTheTailFailsTheCrc) {
  modify_log([&](file& f, uint64_t) {
    uint64_t at = 6 * batch_bytes() + 70;  // inside batch 6's records
    uint8_t byte = 0;
    size_t got = 0;
    ASSERT_FALSE(f.read_at(at, {&byte, 1}, &got));
    byte ^= 0x40;
    ASSERT_FALSE(f.write_at(at, {&byte, 1}));
  });
  std::optional<std::string> problem;
  auto s = open(&problem);
  recovery_result r;
  ASSERT_FALSE(s->recover(nullptr, &r));
  EXPECT_EQ(r.bytes_truncated, 2 * batch_bytes());
  EXPECT_NE(r.stop_reason.find("crc"), std::string::npos) << r.stop_reason;
  EXPECT_EQ(s->end().next_offset, offset(30));
}

TEST_F(SegmentRecoverTest, ZeroFilledTailIsTruncated) {
  modify_log([&](file& f, uint64_t size) { ASSERT_FALSE(f.truncate(size + 4096)); });
  std::optional<std::string> problem;
  auto s = open(&problem);
  recovery_result r;
  ASSERT_FALSE(s->recover(nullptr, &r));
  EXPECT_EQ(r.bytes_truncated, 4096u);
  EXPECT_EQ(s->end().next_offset, offset(40));
}

TEST_F(SegmentRecoverTest, OffsetsGoingBackwardsAreTruncated) {
  bytes stale = make_batch({.base_offset = 12, .records = 2});
  modify_log([&](file& f, uint64_t size) { ASSERT_FALSE(f.write_at(size, stale)); });
  std::optional<std::string> problem;
  auto s = open(&problem);
  recovery_result r;
  ASSERT_FALSE(s->recover(nullptr, &r));
  EXPECT_EQ(r.bytes_truncated, stale.size());
  EXPECT_NE(r.stop_reason.find("below"), std::string::npos) << r.stop_reason;
}

TEST_F(SegmentRecoverTest, MissingIndexIsReported) {
  ASSERT_FALSE(fs_->remove(path(".index")));
  std::optional<std::string> problem;
  auto s = open(&problem);
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("missing"), std::string::npos);
  recovery_result r;
  ASSERT_FALSE(s->recover(nullptr, &r));
  ASSERT_EQ(s->offsets().entries(), expected_index_.size());
  ASSERT_FALSE(s->close());
  auto again = open(&problem);
  EXPECT_EQ(problem, std::nullopt);
}

TEST_F(SegmentRecoverTest, MissingTimeIndexIsReported) {
  ASSERT_FALSE(fs_->remove(path(".timeindex")));
  std::optional<std::string> problem;
  open(&problem);
  EXPECT_TRUE(problem);
}

TEST_F(SegmentRecoverTest, IndexEntryNotMatchingItsBatchIsReported) {
  // The last entry points at a real batch boundary, but of another batch.
  std::unique_ptr<file> f;
  ASSERT_FALSE(fs_->open(path(".index"), open_mode::read_write, &f));
  uint64_t size = 0;
  ASSERT_FALSE(f->size(&size));
  uint8_t position[4] = {0, 0, 0, static_cast<uint8_t>(batch_bytes())};
  ASSERT_LT(batch_bytes(), 256u);
  ASSERT_FALSE(f->write_at(size - 4, position));
  std::optional<std::string> problem;
  open(&problem);
  ASSERT_TRUE(problem);
}

}  // namespace
}  // namespace hw::storage
