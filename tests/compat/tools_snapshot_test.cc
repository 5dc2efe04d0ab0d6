// Kafka 4.3.1's DumpLogSegments (kafka-dump-log.sh --cluster-metadata-decoder)
// reads a metadata snapshot we wrote: the snapshot id from the file name,
// every batch valid, the SnapshotHeader and SnapshotFooter control records,
// and each of our metadata records decoded by Kafka's own serde (topics,
// partitions with ELR and directories, fenced and unfenced brokers, a
// controller, configs of every resource type, the producer-id block).
// The reverse (we read Kafka's snapshot) is tests/controller/snapshot_kafka_test.cc.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "controller/metadata/image_records.h"
#include "controller/raft/snapshot_file.h"
#include "kafka_tool.h"
#include "tests/controller/snapshot_support.h"

namespace hw::testing {
namespace {

const char* const k_dump_log = "org.apache.kafka.tools.DumpLogSegments";

size_t count_lines_containing(const tool_result& r, const std::string& needle) {
  size_t n = 0;
  for (const auto& line : lines_of(r.out)) n += line.find(needle) != std::string::npos;
  return n;
}

bool printed_line_with_all(const tool_result& r, std::initializer_list<std::string> needles) {
  for (const auto& line : lines_of(r.out)) {
    bool all = true;
    for (const auto& n : needles) all = all && line.find(n) != std::string::npos;
    if (all) return true;
  }
  return false;
}

TEST(ToolsSnapshotIT, KafkaDumpLogReadsOurSnapshot) {
  std::string error;
  auto image = controller::testing::replay_from_empty(controller::testing::rich_log(30, true), &error);
  ASSERT_TRUE(image) << error;
  const auto values = controller::image_record_values(*image);
  ASSERT_GT(values.size(), 20u);

  char tmpl[] = "/tmp/hw-snapshot-XXXXXX";
  ASSERT_TRUE(mkdtemp(tmpl));
  const std::filesystem::path dir = std::filesystem::path(tmpl) / "__cluster_metadata-0";
  std::filesystem::create_directories(dir);
  const controller::raft::snapshot_id id{controller::raft::offset(4321), controller::raft::epoch(6)};
  controller::raft::snapshot_write_options o;
  o.last_contained_log_timestamp_ms = 1'700'000'000'123;
  o.write_time_ms = 1'700'000'000'456;
  o.records_per_append = 8;   // several data batches
  o.max_batch_bytes = 1024;
  auto bytes = controller::raft::encode_snapshot(id, values, o);
  auto fs = storage::make_posix_file_system();
  ASSERT_FALSE(controller::raft::write_snapshot_file(*fs, dir, id, bytes));
  const std::string file = (dir / controller::raft::snapshot_file_name(id)).string();

  auto r = run_kafka_tool(tmpl, k_dump_log, {"--cluster-metadata-decoder", "--files", file});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_EQ(r.err.find("Exception"), std::string::npos) << r.all();
  EXPECT_TRUE(printed_line(r, "Dumping " + file)) << r.all();
  EXPECT_TRUE(printed_line(r, "Snapshot end offset: 4321, epoch: 6")) << r.all();

  // Every batch: valid CRC, the snapshot's epoch, our timestamps.
  const size_t batches = count_lines_containing(r, "baseOffset: ");
  EXPECT_GE(batches, 4u) << r.all();
  EXPECT_EQ(count_lines_containing(r, "isvalid: true"), batches) << r.all();
  EXPECT_EQ(count_lines_containing(r, "partitionLeaderEpoch: 6 "), batches) << r.all();
  EXPECT_TRUE(printed_line_with_all(r, {"baseOffset: 0 lastOffset: 0 count: 1", "isControl: true",
                                        "CreateTime: 1700000000456"}))
      << r.all();

  EXPECT_TRUE(printed_line_with_all(
      r, {"| offset: 0 ", "SnapshotHeader {\"version\":0,\"lastContainedLogTimestamp\":1700000000123}"}))
      << r.all();
  const std::string footer_offset = "| offset: " + std::to_string(values.size() + 1) + " ";
  EXPECT_TRUE(printed_line_with_all(r, {footer_offset, "SnapshotFooter {\"version\":0}"})) << r.all();

  // Each of our records, decoded by Kafka.
  EXPECT_EQ(count_lines_containing(r, "payload: {\"type\":"), values.size()) << r.all();
  EXPECT_TRUE(printed_line_with_all(
      r, {"| offset: 1 ", "\"type\":\"FEATURE_LEVEL_RECORD\"", "\"name\":\"metadata.version\",\"featureLevel\":30"}))
      << r.all();
  EXPECT_TRUE(printed_line_with_all(r, {"\"type\":\"TOPIC_RECORD\"", "\"name\":\"alpha\""})) << r.all();
  EXPECT_TRUE(printed_line_with_all(r, {"\"type\":\"TOPIC_RECORD\"", "\"name\":\"gamma\""})) << r.all();
  EXPECT_EQ(count_lines_containing(r, "\"name\":\"doomed\""), 0u) << r.all();
  EXPECT_TRUE(printed_line_with_all(r, {"\"type\":\"PARTITION_RECORD\",\"version\":2", "\"eligibleLeaderReplicas\":[2]",
                                        "\"lastKnownElr\":[3]"}))
      << r.all();
  EXPECT_TRUE(printed_line_with_all(r, {"\"type\":\"PARTITION_RECORD\"", "\"leaderRecoveryState\":1"})) << r.all();
  EXPECT_TRUE(printed_line_with_all(r, {"\"type\":\"REGISTER_BROKER_RECORD\",\"version\":4", "\"brokerId\":4",
                                        "\"fenced\":true"}))
      << r.all();
  EXPECT_TRUE(printed_line_with_all(r, {"\"type\":\"REGISTER_BROKER_RECORD\"", "\"brokerId\":3", "\"fenced\":false",
                                        "\"inControlledShutdown\":true"}))
      << r.all();
  EXPECT_TRUE(printed_line_with_all(r, {"\"type\":\"REGISTER_CONTROLLER_RECORD\"", "\"controllerId\":9"})) << r.all();
  EXPECT_TRUE(printed_line_with_all(r, {"\"type\":\"CONFIG_RECORD\"", "\"resourceType\":32", "\"resourceName\":\"g1\""}))
      << r.all();
  EXPECT_TRUE(printed_line_with_all(r, {"\"type\":\"CONFIG_RECORD\"", "\"resourceType\":16"})) << r.all();
  EXPECT_TRUE(printed_line_with_all(r, {"\"type\":\"CONFIG_RECORD\"", "\"resourceType\":8"})) << r.all();
  EXPECT_TRUE(printed_line_with_all(r, {"\"type\":\"PRODUCER_IDS_RECORD\"", "\"nextProducerId\":2000"})) << r.all();

  std::filesystem::remove_all(tmpl);
}

}  // namespace
}  // namespace hw::testing
