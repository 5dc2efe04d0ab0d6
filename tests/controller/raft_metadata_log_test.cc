#include "controller/raft/metadata_log.h"

#include <filesystem>
#include <random>
#include <string>

#include <gtest/gtest.h>

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

  // A batch of the quorum as its leader wrote it.
  static raft::log_entry entry(int64_t base, int32_t epoch, std::vector<std::string> values, bool control = false) {
    raft::log_entry e;
    e.base_offset = storage::offset(base);
    e.leader_epoch = raft::epoch(epoch);
    e.control = control;
    e.append_time_ms = 5000 + base;
    for (auto& v : values) e.records.emplace_back(v.begin(), v.end());
    return e;
  }

  static std::vector<raft::log_entry> entries(const metadata_log& log) {
    std::vector<raft::log_entry> out;
    std::string why;
    auto ec = log.read_entries(&out, &why);
    EXPECT_FALSE(ec) << why;
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

// Every replica stores the leader's batches as they are: offsets, epochs,
// timestamps and control batches come back unchanged, after a reopen too.
TEST_F(metadata_log_test, replicated_batches_come_back_as_written_after_a_reopen) {
  const std::vector<raft::log_entry> written{entry(0, 1, {"leader change"}, true), entry(1, 1, {"a", "b"}),
                                             entry(3, 2, {"c"})};
  {
    auto log = open();
    ASSERT_TRUE(log);
    EXPECT_EQ(log->end_offset(), storage::offset(0));
    ASSERT_FALSE(log->write_state({1, 2, 1}));
    ASSERT_FALSE(log->append_entries(written));
    EXPECT_EQ(log->end_offset(), storage::offset(4));
    EXPECT_EQ(entries(*log), written);
    ASSERT_FALSE(log->flush());
    ASSERT_FALSE(log->close());
  }
  auto log = open();
  EXPECT_EQ(log->state(), (quorum_state{1, 2, 1}));
  EXPECT_EQ(entries(*log), written);
  // A batch must continue the log.
  EXPECT_TRUE(log->append_entries(std::vector<raft::log_entry>{entry(9, 2, {"gap"})}));
}

TEST_F(metadata_log_test, truncation_and_a_reset_to_a_snapshot_move_the_ends) {
  auto log = open();
  ASSERT_FALSE(log->append_entries(std::vector<raft::log_entry>{entry(0, 1, {"a"}), entry(1, 1, {"b", "c"}),
                                                                entry(3, 2, {"d"})}));
  // A follower whose log diverged at offset 1 cuts there.
  ASSERT_FALSE(log->truncate_to(storage::offset(1), 1000));
  EXPECT_EQ(log->end_offset(), storage::offset(1));
  EXPECT_EQ(entries(*log), (std::vector<raft::log_entry>{entry(0, 1, {"a"})}));
  ASSERT_FALSE(log->append_entries(std::vector<raft::log_entry>{entry(1, 3, {"e"})}));
  EXPECT_EQ(entries(*log).back(), entry(1, 3, {"e"}));
  // A snapshot fetched from the leader replaces everything: the log
  // restarts empty at its end.
  ASSERT_FALSE(log->reset_to(storage::offset(10), 1000));
  EXPECT_EQ(log->start_offset(), storage::offset(10));
  EXPECT_EQ(log->end_offset(), storage::offset(10));
  EXPECT_TRUE(entries(*log).empty());
  ASSERT_FALSE(log->append_entries(std::vector<raft::log_entry>{entry(10, 4, {"f"})}));
  EXPECT_EQ(entries(*log), (std::vector<raft::log_entry>{entry(10, 4, {"f"})}));
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

}  // namespace
}  // namespace hw::controller
