// storage/log opening: clean and unclean restarts, recovery from the
// recovery point, crash damage (a segment cut mid-batch, flipped bytes,
// deleted or damaged indexes), and Kafka's leftovers (.deleted, .cleaned,
// .swap, .tmp, orphan indexes).

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "storage/log.h"
#include "tests/storage/fixtures/log_test_support.h"

namespace hw::storage {
namespace {

using namespace hw::storage::testing;

class LogLoadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(log::open(*fs_, dir(), config_, {}, &log_, &report_));
    for (int i = 0; i < 40; ++i) {
      bytes batch = make_batch({.records = 4, .first_timestamp = 1000 + 10 * i, .value_bytes = 20});
      append_result r;
      ASSERT_FALSE(log_->append(batch, {append_origin::leader, leader_epoch(i / 10), 0}, &r));
      batch_bytes_ = r.bytes;
    }
    expected_ = read_all(*log_, 0);
    ASSERT_EQ(expected_.size(), 160u);
    ASSERT_GE(log_->segment_count(), 5u);
  }

  std::filesystem::path dir() const { return tmp_.path() / "events-7"; }
  std::filesystem::path file(offset base, std::string_view suffix) const {
    return dir() / segment_file_name(base, suffix);
  }
  void reopen(bool clean, offset recovery_point, offset log_start = offset(0)) {
    log_.reset();
    recovered_.clear();
    log_open_options o;
    o.had_clean_shutdown = clean;
    o.recovery_point = recovery_point;
    o.log_start_offset = log_start;
    o.on_recovered_batch = [&](const protocol::record_batch_view& b) { recovered_.push_back(b.base_offset()); };
    ASSERT_FALSE(log::open(*fs_, dir(), config_, o, &log_, &report_));
  }
  std::map<std::string, std::string> index_files() {
    std::map<std::string, std::string> out;
    std::vector<std::string> names;
    EXPECT_FALSE(fs_->list(dir(), &names));
    for (const auto& name : names) {
      if (!name.ends_with("index")) continue;
      EXPECT_FALSE(read_whole_file(*fs_, dir() / name, &out[name]));
    }
    return out;
  }
  void write_file(const std::filesystem::path& p, std::string_view content) {
    std::unique_ptr<hw::storage::file> f;
    ASSERT_FALSE(fs_->open(p, open_mode::read_write, &f));
    ASSERT_FALSE(f->truncate(0));
    ASSERT_FALSE(f->write_at(0, {reinterpret_cast<const uint8_t*>(content.data()), content.size()}));
  }
  void flip_byte(const std::filesystem::path& p, uint64_t at) {
    std::unique_ptr<hw::storage::file> f;
    ASSERT_FALSE(fs_->open(p, open_mode::read_write, &f));
    uint8_t byte = 0;
    size_t got = 0;
    ASSERT_FALSE(f->read_at(at, {&byte, 1}, &got));
    byte ^= 0x5a;
    ASSERT_FALSE(f->write_at(at, {&byte, 1}));
  }
  std::vector<read_record> expected_prefix(int64_t end) {
    return {expected_.begin(), expected_.begin() + end};
  }

  temp_dir tmp_;
  std::unique_ptr<file_system> fs_ = make_posix_file_system();
  log_config config_{.segment_bytes = 1500, .index_interval_bytes = 200};
  std::unique_ptr<log> log_;
  log_load_report report_;
  std::vector<read_record> expected_;
  std::vector<int64_t> recovered_;
  uint64_t batch_bytes_ = 0;
};

TEST_F(LogLoadTest, CleanRestartTrustsTheFilesAndChangesNothing) {
  ASSERT_FALSE(log_->close());
  auto indexes = index_files();
  reopen(true, offset(0));
  EXPECT_TRUE(report_.events.empty()) << report_.events.front();
  EXPECT_EQ(report_.segments_recovered, 0u);
  EXPECT_EQ(report_.recovery_point, offset(160));
  EXPECT_EQ(log_->log_end_offset(), offset(160));
  EXPECT_EQ(read_all(*log_, 0), expected_);
  EXPECT_EQ(index_files(), indexes);
}

TEST_F(LogLoadTest, UncleanRestartRecoversFromTheSegmentHoldingTheRecoveryPoint) {
  auto infos = log_->segment_infos();
  offset rp = infos[2].base_offset + 3;
  log_.reset();  // a crash: no close, index tails never written
  reopen(false, rp);
  EXPECT_EQ(report_.segments_recovered, infos.size() - 2);
  ASSERT_FALSE(recovered_.empty());
  EXPECT_EQ(recovered_.front(), infos[2].base_offset.value) << "the visitor sees the recovered batches";
  EXPECT_EQ(recovered_.back(), 156);
  EXPECT_EQ(report_.recovery_point, rp);
  EXPECT_EQ(report_.bytes_truncated, 0u);
  EXPECT_EQ(read_all(*log_, 0), expected_);
}

TEST_F(LogLoadTest, SegmentCutInTheMiddleOfABatch) {
  auto last = log_->segment_infos().back();
  log_.reset();
  std::filesystem::resize_file(file(last.base_offset, ".log"), last.size_bytes - batch_bytes_ / 3);
  reopen(false, offset(0));
  EXPECT_EQ(log_->log_end_offset(), offset(156));
  EXPECT_EQ(report_.bytes_truncated, batch_bytes_ - batch_bytes_ / 3);
  EXPECT_EQ(read_all(*log_, 0), expected_prefix(156));
  ASSERT_FALSE(report_.events.empty());
  EXPECT_NE(report_.events.back().find("truncated"), std::string::npos) << report_.events.back();
}

// A segment ending short of the next one's base lost its unsynced tail in
// a crash while the later segment's directory entry survived (this log
// never writes such gaps: rolls start at the log end and the cleaner keeps
// each group's last offset). What follows the gap goes, so the log stays a
// prefix of what was written and a follower refetches the rest.
TEST_F(LogLoadTest, ASegmentThatLostItsTailTakesTheLaterSegmentsWithIt) {
  auto infos = log_->segment_infos();
  ASSERT_FALSE(log_->close());
  std::filesystem::resize_file(file(infos[1].base_offset, ".log"), infos[1].size_bytes - batch_bytes_);
  reopen(false, infos[1].base_offset);
  const int64_t end = infos[1].next_offset.value - 4;
  EXPECT_EQ(log_->log_end_offset(), offset(end));
  EXPECT_EQ(log_->segment_count(), 2u);
  EXPECT_EQ(read_all(*log_, 0), expected_prefix(end));
  EXPECT_FALSE(std::filesystem::exists(file(infos[2].base_offset, ".log")));
  bool reported = false;
  for (const auto& e : report_.events) reported |= e.find("after a segment that lost its tail") != std::string::npos;
  EXPECT_TRUE(reported) << ::testing::PrintToString(report_.events);
}

TEST_F(LogLoadTest, CorruptSegmentDropsEverythingAfterIt) {
  auto infos = log_->segment_infos();
  ASSERT_FALSE(log_->close());
  // Batch 1 of segment 2 gets a flipped byte in its records.
  flip_byte(file(infos[2].base_offset, ".log"), batch_bytes_ + 80);
  reopen(false, infos[1].base_offset);
  EXPECT_EQ(log_->log_end_offset(), infos[2].base_offset + 4);
  EXPECT_EQ(log_->segment_count(), 3u);
  EXPECT_FALSE(std::filesystem::exists(file(infos[3].base_offset, ".log")));
  EXPECT_EQ(read_all(*log_, 0), expected_prefix(infos[2].base_offset.value + 4));
}

TEST_F(LogLoadTest, RandomBytesFlippedInTheTail) {
  std::mt19937_64 rng(42);
  for (int round = 0; round < 10; ++round) {
    auto infos = log_->segment_infos();
    auto last = infos.back();
    if (last.size_bytes == 0) last = infos[infos.size() - 2];  // recovery emptied the active segment
    log_.reset();
    uint64_t at = last.size_bytes - 1 - rng() % std::min<uint64_t>(last.size_bytes, 100);
    flip_byte(file(last.base_offset, ".log"), at);
    reopen(false, offset(0));
    int64_t end = log_->log_end_offset().value;
    // Whatever survived is an exact prefix and ends before the damaged byte.
    auto after = log_->segment_infos();
    EXPECT_LE(after.back().base_offset == last.base_offset ? after.back().size_bytes : after.end()[-2].size_bytes, at);
    EXPECT_EQ(read_all(*log_, 0), expected_prefix(end));
    expected_.resize(end);
  }
}

TEST_F(LogLoadTest, DeletedIndexesAreRebuiltEvenAfterACleanShutdown) {
  ASSERT_FALSE(log_->close());
  auto indexes = index_files();
  for (const auto& [name, content] : indexes) std::filesystem::remove(dir() / name);
  reopen(true, offset(0));
  EXPECT_EQ(report_.segments_recovered, log_->segment_count());
  ASSERT_FALSE(report_.events.empty());
  EXPECT_NE(report_.events.front().find("rebuilt indexes (offset index file is missing)"), std::string::npos)
      << report_.events.front();
  EXPECT_EQ(index_files(), indexes) << "rebuilt byte for byte";
  EXPECT_EQ(read_all(*log_, 0), expected_);
}

TEST_F(LogLoadTest, DamagedIndexIsRebuiltWithTheReason) {
  auto infos = log_->segment_infos();
  ASSERT_FALSE(log_->close());
  auto indexes = index_files();
  write_file(file(infos[1].base_offset, ".index"), std::string(20, '\x7f'));
  reopen(true, offset(0));
  ASSERT_EQ(report_.events.size(), 1u);
  EXPECT_NE(report_.events[0].find("multiple of 8"), std::string::npos) << report_.events[0];
  EXPECT_EQ(index_files(), indexes);
}

TEST_F(LogLoadTest, LeftoversAreCleanedUpAsKafkaDoes) {
  auto infos = log_->segment_infos();
  ASSERT_FALSE(log_->close());
  write_file(dir() / "00000000000000000000.log.deleted", "old");
  write_file(dir() / "leader-epoch-checkpoint.tmp", "half");
  write_file(dir() / "00000000000000999999.index", "orphan!!");
  write_file(dir() / "00000000000000500000.log.cleaned", "x");
  write_file(dir() / "00000000000000600000.log.swap", "split in progress");  // >= a .cleaned: invalid
  reopen(true, offset(0));
  std::vector<std::string> names;
  ASSERT_FALSE(fs_->list(dir(), &names));
  for (const auto& name : names) {
    EXPECT_FALSE(name.ends_with(".deleted") || name.ends_with(".tmp") || name.ends_with(".cleaned") ||
                 name.ends_with(".swap") || name.starts_with("00000000000000999999"))
        << name;
  }
  EXPECT_EQ(report_.events.size(), 5u);
  EXPECT_EQ(read_all(*log_, 0), expected_);
  EXPECT_EQ(log_->segment_count(), infos.size());
}

TEST_F(LogLoadTest, SwapSegmentReplacesTheSegmentsItCovers) {
  // What compaction leaves when it crashes after writing the swap file: one
  // segment holding segments 1 and 2's batches, named after segment 1.
  auto infos = log_->segment_infos();
  ASSERT_FALSE(log_->close());
  std::string merged, part;
  ASSERT_FALSE(read_whole_file(*fs_, file(infos[1].base_offset, ".log"), &merged));
  ASSERT_FALSE(read_whole_file(*fs_, file(infos[2].base_offset, ".log"), &part));
  merged += part;
  write_file(dir() / (segment_file_name(infos[1].base_offset, ".log") + ".swap"), merged);
  reopen(true, offset(0));
  EXPECT_EQ(log_->segment_count(), infos.size() - 1);
  EXPECT_FALSE(std::filesystem::exists(file(infos[2].base_offset, ".log")));
  EXPECT_EQ(log_->segment_infos()[1].next_offset, infos[2].next_offset);
  EXPECT_EQ(read_all(*log_, 0), expected_);
}

TEST_F(LogLoadTest, LogEndBelowTheLogStartCheckpointStartsOver) {
  ASSERT_FALSE(log_->close());
  reopen(true, offset(0), offset(500));
  EXPECT_EQ(log_->log_start_offset(), offset(500));
  EXPECT_EQ(log_->log_end_offset(), offset(500));
  EXPECT_EQ(log_->segment_count(), 1u);
}

TEST_F(LogLoadTest, LogStartComesFromTheCheckpointOrTheFirstSegment) {
  ASSERT_FALSE(log_->close());
  reopen(true, offset(0), offset(37));
  EXPECT_EQ(log_->log_start_offset(), offset(37));
  log_read_result r;
  EXPECT_EQ(log_->read(offset(36), 100, offset(160), true, &r), make_error_code(log_errc::offset_out_of_range));
}

TEST_F(LogLoadTest, RecoveredLogTakesAppendsAndReopensCleanly) {
  log_.reset();
  reopen(false, offset(0));
  bytes batch = make_batch({.records = 2});
  append_result r;
  ASSERT_FALSE(log_->append(batch, {append_origin::leader, leader_epoch(9), 0}, &r));
  EXPECT_EQ(r.first_offset, offset(160));
  ASSERT_FALSE(log_->close());
  reopen(true, offset(0));
  EXPECT_TRUE(report_.events.empty());
  EXPECT_EQ(log_->log_end_offset(), offset(162));
}

}  // namespace
}  // namespace hw::storage
