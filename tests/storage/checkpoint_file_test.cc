#include <gtest/gtest.h>

#include "storage/checkpoint_file.h"
#include "storage/io/faulty_file_system.h"

namespace hw::storage {
namespace {

using tpo = topic_partition_offset;

std::vector<tpo> parse_offsets_ok(std::string_view text) {
  std::vector<tpo> out;
  auto err = parse_offset_checkpoint(text, "/d/cp", &out);
  EXPECT_FALSE(err) << err.message;
  return out;
}

storage_error parse_offsets_err(std::string_view text) {
  std::vector<tpo> out;
  return parse_offset_checkpoint(text, "/d/recovery-point-offset-checkpoint", &out);
}

storage_error parse_epochs_err(std::string_view text) {
  std::vector<epoch_entry> out;
  return parse_epoch_checkpoint(text, "/d/t-0/leader-epoch-checkpoint", &out);
}

// Bytes written by Apache Kafka 4.3.1 (OffsetCheckpointFile / LeaderEpochCheckpointFile).
TEST(checkpoint, offset_format_matches_kafka) {
  std::vector<tpo> entries{{"orders", 0, offset(1500)}};
  EXPECT_EQ(format_offset_checkpoint(entries), "0\n1\norders 0 1500\n");
  EXPECT_EQ(format_offset_checkpoint({}), "0\n0\n");
}

TEST(checkpoint, epoch_format_matches_kafka) {
  std::vector<epoch_entry> entries{{leader_epoch(0), offset(0)}, {leader_epoch(1), offset(120)},
                                   {leader_epoch(3), offset(200)}};
  EXPECT_EQ(format_epoch_checkpoint(entries), "0\n3\n0 0\n1 120\n3 200\n");
}

TEST(checkpoint, offset_round_trip) {
  std::vector<tpo> entries{{"orders", 0, offset(1500)}, {"__consumer_offsets", 49, offset(0)},
                           {"a.b-c_d", 2147483647, offset(INT64_MAX)}};
  EXPECT_EQ(parse_offsets_ok(format_offset_checkpoint(entries)), entries);
}

TEST(checkpoint, reads_what_kafka_tolerates) {
  EXPECT_TRUE(parse_offsets_ok("").empty());  // Kafka creates the file empty
  EXPECT_EQ(parse_offsets_ok("0\r\n1\r\nt 1 5\r\n"), (std::vector<tpo>{{"t", 1, offset(5)}}));
  EXPECT_EQ(parse_offsets_ok("0\n1\nt\t1   5  \n"), (std::vector<tpo>{{"t", 1, offset(5)}}));
  EXPECT_EQ(parse_offsets_ok("0\n1\nt 1 5"), (std::vector<tpo>{{"t", 1, offset(5)}}));  // no final newline
  EXPECT_EQ(parse_offsets_ok("0\n1\nt +1 -5\n"), (std::vector<tpo>{{"t", 1, offset(-5)}}));
}

TEST(checkpoint, rejects_wrong_version) {
  auto err = parse_offsets_err("1\n0\n");
  EXPECT_EQ(err.code, storage_errc::unsupported_version);
  EXPECT_NE(err.message.find("recovery-point-offset-checkpoint"), std::string::npos) << err.message;
  EXPECT_EQ(parse_offsets_err("x\n0\n").code, storage_errc::malformed);
}

TEST(checkpoint, rejects_count_mismatch) {
  auto err = parse_offsets_err("0\n2\nt 0 1\n");
  EXPECT_EQ(err.code, storage_errc::malformed);
  EXPECT_NE(err.message.find("expected 2 entries"), std::string::npos) << err.message;
  EXPECT_EQ(parse_offsets_err("0\n0\nt 0 1\n").code, storage_errc::malformed);
  EXPECT_EQ(parse_offsets_err("0\n").code, storage_errc::malformed);
  EXPECT_EQ(parse_offsets_err("0\n-1\n").code, storage_errc::malformed);
}

TEST(checkpoint, names_the_bad_line) {
  auto err = parse_offsets_err("0\n3\nt 0 1\nt 1 x\nt 2 3\n");
  EXPECT_EQ(err.code, storage_errc::malformed);
  EXPECT_NE(err.message.find("line 4"), std::string::npos) << err.message;
  EXPECT_NE(err.message.find("'t 1 x'"), std::string::npos) << err.message;
  EXPECT_NE(err.message.find("/d/recovery-point-offset-checkpoint"), std::string::npos) << err.message;
}

TEST(checkpoint, rejects_malformed_lines) {
  for (std::string_view bad : {"0\n1\nt 0\n", "0\n1\nt 0 1 2\n", "0\n1\n t 0 1\n", "0\n1\n\n", "0\n1\nt -1 5\n",
                               "0\n1\nt 0 99999999999999999999\n", "0\n1\nt 2147483648 0\n", "0\n1\nt 0 1x\n",
                               "0\n1\nt 0 -\n", "0\n1\nt 0 1\n\n"}) {
    EXPECT_EQ(parse_offsets_err(bad).code, storage_errc::malformed) << bad;
  }
}

TEST(checkpoint, epoch_rejects_negative_and_malformed) {
  EXPECT_FALSE(parse_epochs_err("0\n1\n2 300\n"));
  EXPECT_EQ(parse_epochs_err("0\n1\n-1 300\n").code, storage_errc::malformed);
  EXPECT_EQ(parse_epochs_err("0\n1\n2 -300\n").code, storage_errc::malformed);
  EXPECT_EQ(parse_epochs_err("0\n1\n2 300 4\n").code, storage_errc::malformed);
  EXPECT_EQ(parse_epochs_err("0\n1\n2147483648 3\n").code, storage_errc::malformed);
  auto err = parse_epochs_err("0\n2\n0 0\n1\n");
  EXPECT_NE(err.message.find("line 4"), std::string::npos) << err.message;
  EXPECT_NE(err.message.find("leader-epoch-checkpoint"), std::string::npos) << err.message;
}

TEST(checkpoint, java_integer_parsing) {
  int32_t i = 0;
  int64_t l = 0;
  EXPECT_TRUE(parse_java_int32("-2147483648", &i));
  EXPECT_EQ(i, INT32_MIN);
  EXPECT_TRUE(parse_java_int32("2147483647", &i));
  EXPECT_EQ(i, INT32_MAX);
  EXPECT_FALSE(parse_java_int32("2147483648", &i));
  EXPECT_FALSE(parse_java_int32("-2147483649", &i));
  EXPECT_TRUE(parse_java_int64("-9223372036854775808", &l));
  EXPECT_EQ(l, INT64_MIN);
  EXPECT_FALSE(parse_java_int64("9223372036854775808", &l));
  EXPECT_FALSE(parse_java_int64("", &l));
  EXPECT_FALSE(parse_java_int64("+", &l));
  EXPECT_FALSE(parse_java_int64(" 1", &l));
  EXPECT_TRUE(parse_java_int64("007", &l));
  EXPECT_EQ(l, 7);
}

TEST(checkpoint, split_lines_like_java_readline) {
  EXPECT_EQ(split_lines("a\nb\r\nc\rd"), (std::vector<std::string_view>{"a", "b", "c", "d"}));
  EXPECT_EQ(split_lines("a\n\n"), (std::vector<std::string_view>{"a", ""}));
  EXPECT_TRUE(split_lines("").empty());
}

TEST(checkpoint, write_and_read_through_a_file_system) {
  faulty_file_system fs;
  ASSERT_FALSE(fs.create_directories("/logs"));
  ASSERT_FALSE(fs.sync_directory("/"));
  std::vector<tpo> entries{{"orders", 3, offset(42)}};
  ASSERT_FALSE(write_offset_checkpoint(fs, "/logs/replication-offset-checkpoint", entries));
  fs.crash();  // written atomically and durably
  std::vector<tpo> back;
  auto err = read_offset_checkpoint(fs, "/logs/replication-offset-checkpoint", &back);
  ASSERT_FALSE(err) << err.message;
  EXPECT_EQ(back, entries);

  err = read_offset_checkpoint(fs, "/logs/missing", &back);
  EXPECT_EQ(err.code, std::errc::no_such_file_or_directory);
  EXPECT_NE(err.message.find("/logs/missing"), std::string::npos);
}

TEST(checkpoint, failed_write_keeps_the_previous_checkpoint) {
  faulty_file_system fs;
  ASSERT_FALSE(fs.create_directories("/logs"));
  ASSERT_FALSE(fs.sync_directory("/"));
  std::vector<epoch_entry> v1{{leader_epoch(0), offset(0)}};
  std::vector<epoch_entry> v2{{leader_epoch(0), offset(0)}, {leader_epoch(1), offset(10)}};
  ASSERT_FALSE(write_epoch_checkpoint(fs, "/logs/leader-epoch-checkpoint", v1));
  fs.set_space_left(3);
  auto err = write_epoch_checkpoint(fs, "/logs/leader-epoch-checkpoint", v2);
  EXPECT_EQ(err.code, std::errc::no_space_on_device);
  std::vector<epoch_entry> back;
  ASSERT_FALSE(read_epoch_checkpoint(fs, "/logs/leader-epoch-checkpoint", &back));
  EXPECT_EQ(back, v1);
  fs.crash();
  ASSERT_FALSE(read_epoch_checkpoint(fs, "/logs/leader-epoch-checkpoint", &back));
  EXPECT_EQ(back, v1);
}

}  // namespace
}  // namespace hw::storage
