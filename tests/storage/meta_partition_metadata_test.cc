#include <gtest/gtest.h>

#include "storage/io/faulty_file_system.h"
#include "storage/partition_metadata.h"

namespace hw::storage {
namespace {

// Written by Apache Kafka 4.3.1's PartitionMetadataFile: no final newline.
constexpr std::string_view kafka_partition_metadata = "version: 0\ntopic_id: MRFQ1kJc60ikgupOdlqn1w";

storage_error parse(std::string_view text, protocol::uuid* id) {
  return parse_partition_metadata(text, "/logs/t-0/partition.metadata", id);
}

TEST(meta_partition_metadata, matches_kafka) {
  auto id = protocol::uuid::parse("MRFQ1kJc60ikgupOdlqn1w");
  ASSERT_TRUE(id);
  EXPECT_EQ(format_partition_metadata(*id), kafka_partition_metadata);
  protocol::uuid back;
  ASSERT_FALSE(parse(kafka_partition_metadata, &back));
  EXPECT_EQ(back, *id);
}

TEST(meta_partition_metadata, tolerates_what_kafka_tolerates) {
  protocol::uuid id;
  EXPECT_FALSE(parse("version: 0\ntopic_id: MRFQ1kJc60ikgupOdlqn1w\n", &id));
  EXPECT_FALSE(parse("version:   3\r\ntopic_id:\tMRFQ1kJc60ikgupOdlqn1w\n", &id));  // newer versions are read
  EXPECT_FALSE(parse("version: 0\ntopic_id: MRFQ1kJc60ikgupOdlqn1w\nfuture: stuff\n", &id));
}

TEST(meta_partition_metadata, rejects_malformed) {
  protocol::uuid id;
  EXPECT_EQ(parse("", &id).code, storage_errc::malformed);
  EXPECT_EQ(parse("version: 0\n", &id).code, storage_errc::malformed);
  EXPECT_EQ(parse("version:0\ntopic_id: MRFQ1kJc60ikgupOdlqn1w", &id).code, storage_errc::malformed);
  EXPECT_EQ(parse("version: x\ntopic_id: MRFQ1kJc60ikgupOdlqn1w", &id).code, storage_errc::malformed);
  EXPECT_EQ(parse("version: -1\ntopic_id: MRFQ1kJc60ikgupOdlqn1w", &id).code, storage_errc::unsupported_version);
  EXPECT_EQ(parse("version: 0\ntopic: MRFQ1kJc60ikgupOdlqn1w", &id).code, storage_errc::malformed);
  EXPECT_EQ(parse("version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA", &id).code, storage_errc::malformed);
  auto err = parse("version: 0\ntopic_id: not-a-uuid", &id);
  EXPECT_EQ(err.code, storage_errc::malformed);
  EXPECT_NE(err.message.find("line 2"), std::string::npos) << err.message;
  EXPECT_NE(err.message.find("/logs/t-0/partition.metadata"), std::string::npos) << err.message;
}

TEST(meta_partition_metadata, write_and_read) {
  faulty_file_system fs;
  ASSERT_FALSE(fs.create_directories("/logs/t-0"));
  auto id = protocol::uuid::parse("MRFQ1kJc60ikgupOdlqn1w");
  ASSERT_FALSE(write_partition_metadata(fs, "/logs/t-0/partition.metadata", *id));
  protocol::uuid back;
  ASSERT_FALSE(read_partition_metadata(fs, "/logs/t-0/partition.metadata", &back));
  EXPECT_EQ(back, *id);
}

}  // namespace
}  // namespace hw::storage
