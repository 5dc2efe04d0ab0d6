#include "controller/raft/metadata_log.h"

#include <filesystem>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "protocol/records/control_record.h"
#include "storage/io/faulty_file_system.h"
#include "storage/io/file_system.h"

namespace hw::controller {
namespace {

namespace fs = std::filesystem;

class metadata_log_test : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hw-metadata-log-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
    files_ = storage::make_posix_file_system();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<metadata_log> open() {
    metadata_log_options o;
    o.metadata_log_dir = dir_;
    o.now_ms = 1000;
    std::unique_ptr<metadata_log> log;
    auto err = metadata_log::open(*files_, o, &log);
    EXPECT_FALSE(err) << err.message;
    return log;
  }

  static std::vector<uint8_t> value(std::string_view s) { return {s.begin(), s.end()}; }

  static std::vector<std::pair<int64_t, std::string>> committed(const metadata_log& log) {
    std::vector<std::pair<int64_t, std::string>> out;
    auto ec = log.read_committed(storage::offset(0), [&](const metadata_log_entry& e) {
      if (e.control) out.emplace_back(e.offset.value, "control:" + std::to_string(e.control_type));
      else out.emplace_back(e.offset.value, std::string(e.value.begin(), e.value.end()));
      return true;
    });
    EXPECT_FALSE(ec) << ec.message();
    return out;
  }

  fs::path dir_;
  std::unique_ptr<storage::file_system> files_;
};

TEST_F(metadata_log_test, quorum_state_json_round_trips_and_reads_kafkas_file) {
  quorum_state s{1, 7, 1};
  EXPECT_EQ(parse_quorum_state(format_quorum_state(s)), s);
  // As a Kafka 4.3 controller writes it.
  auto kafka = parse_quorum_state(
      R"({"leaderId":1,"leaderEpoch":3,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1})");
  ASSERT_TRUE(kafka);
  EXPECT_EQ(kafka->leader_epoch, 3);
  EXPECT_EQ(kafka->leader_id, 1);
  EXPECT_EQ(kafka->voted_id, -1);
  EXPECT_FALSE(parse_quorum_state("{}"));
  EXPECT_FALSE(parse_quorum_state(R"({"leaderEpoch":1.5})"));
  EXPECT_FALSE(parse_quorum_state(R"({"leaderEpoch":-2})"));
}

TEST_F(metadata_log_test, only_records_below_the_high_watermark_are_read) {
  auto log = open();
  ASSERT_TRUE(log);
  EXPECT_EQ(log->end_offset(), storage::offset(0));
  int32_t voters[] = {1};
  ASSERT_FALSE(log->append_leader_change(1, voters, 1, 1000));
  std::vector<std::vector<uint8_t>> first{value("a"), value("b")};
  storage::offset base;
  ASSERT_FALSE(log->append(first, 1, 1000, &base));
  EXPECT_EQ(base, storage::offset(1));
  EXPECT_TRUE(committed(*log).empty());

  log->set_high_watermark(storage::offset(2));
  auto seen = committed(*log);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], (std::pair<int64_t, std::string>{0, "control:2"}));
  EXPECT_EQ(seen[1], (std::pair<int64_t, std::string>{1, "a"}));

  // Never past the log end, never backwards.
  log->set_high_watermark(storage::offset(100));
  EXPECT_EQ(log->high_watermark(), storage::offset(3));
  log->set_high_watermark(storage::offset(1));
  EXPECT_EQ(log->high_watermark(), storage::offset(3));
  EXPECT_EQ(committed(*log).size(), 3u);
}

TEST_F(metadata_log_test, reopening_restores_state_epoch_and_records) {
  {
    auto log = open();
    ASSERT_FALSE(log->write_state({1, 4, 1}));
    std::vector<std::vector<uint8_t>> batch{value("x")};
    ASSERT_FALSE(log->append(batch, 4, 1000, nullptr));
    ASSERT_FALSE(log->flush());
    ASSERT_FALSE(log->close());
  }
  auto log = open();
  EXPECT_EQ(log->state(), (quorum_state{1, 4, 1}));
  EXPECT_EQ(log->last_epoch(), 4);
  EXPECT_EQ(log->end_offset(), storage::offset(1));
  // Nothing is committed until the quorum says so again.
  EXPECT_EQ(log->high_watermark(), storage::offset(0));
  log->set_high_watermark(log->end_offset());
  auto seen = committed(*log);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].second, "x");
}

TEST_F(metadata_log_test, a_corrupt_quorum_state_refuses_to_open_with_the_file_named) {
  fs::create_directories(dir_ / metadata_partition_dir);
  ASSERT_FALSE(storage::write_file_atomically(*files_, dir_ / metadata_partition_dir / quorum_state_file_name, "garbage"));
  metadata_log_options o;
  o.metadata_log_dir = dir_;
  std::unique_ptr<metadata_log> log;
  auto err = metadata_log::open(*files_, o, &log);
  ASSERT_TRUE(err);
  EXPECT_NE(err.message.find("quorum-state"), std::string::npos) << err.message;
}

TEST_F(metadata_log_test, visiting_stops_when_asked) {
  auto log = open();
  std::vector<std::vector<uint8_t>> batch{value("1"), value("2"), value("3")};
  ASSERT_FALSE(log->append(batch, 1, 1000, nullptr));
  log->set_high_watermark(log->end_offset());
  int visited = 0;
  ASSERT_FALSE(log->read_committed(storage::offset(1), [&](const metadata_log_entry& e) {
    EXPECT_EQ(e.offset, storage::offset(1));
    ++visited;
    return false;
  }));
  EXPECT_EQ(visited, 1);
}

}  // namespace
}  // namespace hw::controller
