#include <gtest/gtest.h>

#include "storage/clean_shutdown.h"
#include "storage/io/faulty_file_system.h"

namespace hw::storage {
namespace {

TEST(meta_clean_shutdown, writes_what_kafka_writes) {
  // Apache Kafka 4.3.1 CleanShutdownFileHandler.write(42), byte for byte.
  EXPECT_EQ(format_clean_shutdown(broker_epoch(42)), "{\"version\":0,\"brokerEpoch\":42}");
  EXPECT_EQ(clean_shutdown_name, ".kafka_cleanshutdown");
}

TEST(meta_clean_shutdown, reads_like_kafka) {
  EXPECT_EQ(parse_clean_shutdown("{\"version\":0,\"brokerEpoch\":42}"), broker_epoch(42));
  // Kafka 4.3.1 reads 7 from this (unknown fields ignored, any order).
  EXPECT_EQ(parse_clean_shutdown("{\"brokerEpoch\":7,\"version\":0,\"x\":[1,{\"a\":2}]}"), broker_epoch(7));
  EXPECT_EQ(parse_clean_shutdown(" { \"brokerEpoch\" : -1 } \n"), broker_epoch(-1));
  EXPECT_EQ(parse_clean_shutdown(""), std::nullopt);  // Kafka 4.3.1: OptionalLong.empty
  EXPECT_EQ(parse_clean_shutdown("{}"), std::nullopt);
  EXPECT_EQ(parse_clean_shutdown("{\"version\":0}"), std::nullopt);
  EXPECT_EQ(parse_clean_shutdown("{\"brokerEpoch\":null}"), std::nullopt);
  EXPECT_EQ(parse_clean_shutdown("{\"brokerEpoch\":\"x\"}"), std::nullopt);
  EXPECT_EQ(parse_clean_shutdown("{\"brokerEpoch\":1.5}"), std::nullopt);
  EXPECT_EQ(parse_clean_shutdown("{\"brokerEpoch\":99999999999999999999}"), std::nullopt);
  EXPECT_EQ(parse_clean_shutdown("{\"brokerEpoch\":1"), std::nullopt);
  EXPECT_EQ(parse_clean_shutdown("[1]"), std::nullopt);
  EXPECT_EQ(parse_clean_shutdown("{\"version\":\"zero\",\"brokerEpoch\":1}"), std::nullopt);
}

TEST(meta_clean_shutdown, marker_lifecycle_is_durable) {
  faulty_file_system fs;
  ASSERT_FALSE(fs.create_directories("/logs"));
  ASSERT_FALSE(fs.sync_directory("/"));
  EXPECT_FALSE(has_clean_shutdown_marker(fs, "/logs"));
  EXPECT_EQ(read_clean_shutdown_marker(fs, "/logs"), std::nullopt);

  ASSERT_FALSE(write_clean_shutdown_marker(fs, "/logs", broker_epoch(12)));
  fs.crash();
  EXPECT_TRUE(has_clean_shutdown_marker(fs, "/logs"));
  EXPECT_EQ(read_clean_shutdown_marker(fs, "/logs"), broker_epoch(12));

  // Removed at start-up: a crash afterwards must not find it again.
  ASSERT_FALSE(remove_clean_shutdown_marker(fs, "/logs"));
  fs.crash();
  EXPECT_FALSE(has_clean_shutdown_marker(fs, "/logs"));
  EXPECT_FALSE(remove_clean_shutdown_marker(fs, "/logs"));  // absent: fine
}

TEST(meta_clean_shutdown, an_empty_marker_still_means_clean) {
  faulty_file_system fs;
  ASSERT_FALSE(fs.create_directories("/logs"));
  ASSERT_FALSE(write_file_atomically(fs, "/logs/.kafka_cleanshutdown", ""));
  EXPECT_TRUE(has_clean_shutdown_marker(fs, "/logs"));
  EXPECT_EQ(read_clean_shutdown_marker(fs, "/logs"), std::nullopt);
}

TEST(meta_clean_shutdown, failed_removal_is_reported) {
  faulty_file_system fs;
  ASSERT_FALSE(fs.create_directories("/logs"));
  ASSERT_FALSE(write_clean_shutdown_marker(fs, "/logs", broker_epoch(1)));
  fs.fail_directory_syncs(true);
  auto err = remove_clean_shutdown_marker(fs, "/logs");
  EXPECT_EQ(err.code, std::errc::io_error);
  EXPECT_NE(err.message.find("/logs"), std::string::npos);
}

}  // namespace
}  // namespace hw::storage
