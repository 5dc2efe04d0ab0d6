// Kafka 4.3.1's TopicCommand and GetOffsetShell against a real highwater:
// the printed output, not only the exit codes, and what the broker then
// reports over the wire.

#include <gtest/gtest.h>

#include <algorithm>

#include "broker_process.h"
#include "kafka_tool.h"
#include "raw_requests.h"

namespace hw::testing {
namespace {

const char* const k_topic_command = "org.apache.kafka.tools.TopicCommand";
const char* const k_get_offsets = "org.apache.kafka.tools.GetOffsetShell";

class ToolsTopicsIT : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(broker.start()) << broker.log(); }
  std::string bootstrap() const { return "127.0.0.1:" + std::to_string(broker.port()); }
  tool_result topics(std::vector<std::string> args) {
    args.insert(args.begin(), {"--bootstrap-server", bootstrap()});
    return run_kafka_tool(broker.dir(), k_topic_command, args);
  }
  size_t partitions_of(const std::string& topic) {
    raw_client c(broker.port());
    auto md = c.metadata(std::vector<std::string>{topic});
    if (!md || md->topics.size() != 1 || md->topics[0].error_code != 0) return 0;
    return md->topics[0].partitions.size();
  }
  broker_process broker;
};

TEST_F(ToolsTopicsIT, CreateListAlterDelete) {
  auto created = topics({"--create", "--topic", "orders", "--partitions", "3", "--replication-factor", "1"});
  ASSERT_EQ(created.exit_code, 0) << created.all();
  EXPECT_EQ(lines_of(created.out), std::vector<std::string>{"Created topic orders."}) << created.all();
  auto other = topics({"--create", "--topic", "payments", "--partitions", "1"});
  ASSERT_EQ(other.exit_code, 0) << other.all();
  EXPECT_EQ(partitions_of("orders"), 3u);

  auto listed = topics({"--list"});
  ASSERT_EQ(listed.exit_code, 0) << listed.all();
  EXPECT_EQ(lines_of(listed.out), (std::vector<std::string>{"orders", "payments"})) << listed.all();

  auto again = topics({"--create", "--topic", "orders", "--partitions", "3"});
  EXPECT_NE(again.exit_code, 0);
  EXPECT_NE(again.all().find("Topic 'orders' already exists."), std::string::npos) << again.all();
  auto if_not = topics({"--create", "--if-not-exists", "--topic", "orders", "--partitions", "3"});
  EXPECT_EQ(if_not.exit_code, 0) << if_not.all();

  auto altered = topics({"--alter", "--topic", "orders", "--partitions", "5"});
  ASSERT_EQ(altered.exit_code, 0) << altered.all();
  EXPECT_EQ(partitions_of("orders"), 5u);
  auto shrink = topics({"--alter", "--topic", "orders", "--partitions", "2"});
  EXPECT_NE(shrink.exit_code, 0);
  EXPECT_NE(shrink.all().find("InvalidPartitionsException"), std::string::npos) << shrink.all();
  EXPECT_EQ(partitions_of("orders"), 5u);

  auto deleted = topics({"--delete", "--topic", "orders"});
  ASSERT_EQ(deleted.exit_code, 0) << deleted.all();
  auto after = topics({"--list"});
  ASSERT_EQ(after.exit_code, 0) << after.all();
  EXPECT_EQ(lines_of(after.out), std::vector<std::string>{"payments"}) << after.all();
}

TEST_F(ToolsTopicsIT, InvalidRequestsAreReported) {
  auto bad_name = topics({"--create", "--topic", "bad name", "--partitions", "1"});
  EXPECT_NE(bad_name.exit_code, 0);
  EXPECT_NE(bad_name.all().find("InvalidTopicException"), std::string::npos) << bad_name.all();
  auto rf = topics({"--create", "--topic", "rf3", "--partitions", "1", "--replication-factor", "3"});
  EXPECT_NE(rf.exit_code, 0);
  EXPECT_NE(rf.all().find("InvalidReplicationFactorException"), std::string::npos) << rf.all();
  auto missing = topics({"--delete", "--topic", "missing"});
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.all().find("Topic 'missing' does not exist"), std::string::npos) << missing.all();
  auto listed = topics({"--list"});
  EXPECT_TRUE(lines_of(listed.out).empty()) << listed.all();
}

// TopicCommand --describe reads the topic's configs too.
TEST_F(ToolsTopicsIT, Describe) {
  ASSERT_EQ(topics({"--create", "--topic", "described", "--partitions", "2"}).exit_code, 0);
  auto d = topics({"--describe", "--topic", "described"});
  if (d.unsupported("DESCRIBE_CONFIGS")) GTEST_SKIP() << "DescribeConfigs (api key 32) is not served yet";
  ASSERT_EQ(d.exit_code, 0) << d.all();
  auto lines = lines_of(d.out);
  ASSERT_EQ(lines.size(), 3u) << d.all();
  EXPECT_NE(lines[0].find("Topic: described"), std::string::npos) << d.all();
  EXPECT_NE(lines[0].find("PartitionCount: 2"), std::string::npos) << d.all();
  EXPECT_NE(lines[0].find("ReplicationFactor: 1"), std::string::npos) << d.all();
  for (int p = 0; p < 2; ++p) {
    EXPECT_NE(lines[1 + p].find("Partition: " + std::to_string(p) + "\tLeader: 1\tReplicas: 1\tIsr: 1"),
              std::string::npos)
        << d.all();
  }
}

TEST_F(ToolsTopicsIT, GetOffsetShellEarliestAndLatest) {
  raw_client c(broker.port());
  ASSERT_EQ(c.create_topic("offsets", 2)->topics[0].error_code, 0);
  ASSERT_EQ(c.produce("offsets", 0, simple_batch(7))->error_code, 0);
  ASSERT_EQ(c.produce("offsets", 0, simple_batch(3))->error_code, 0);
  ASSERT_EQ(c.produce("offsets", 1, simple_batch(4))->error_code, 0);
  auto latest = run_kafka_tool(broker.dir(), k_get_offsets,
                               {"--bootstrap-server", bootstrap(), "--topic", "offsets", "--time", "latest"});
  ASSERT_EQ(latest.exit_code, 0) << latest.all();
  EXPECT_EQ(lines_of(latest.out), (std::vector<std::string>{"offsets:0:10", "offsets:1:4"})) << latest.all();
  auto earliest = run_kafka_tool(broker.dir(), k_get_offsets,
                                 {"--bootstrap-server", bootstrap(), "--topic", "offsets", "--time", "-2"});
  ASSERT_EQ(earliest.exit_code, 0) << earliest.all();
  EXPECT_EQ(lines_of(earliest.out), (std::vector<std::string>{"offsets:0:0", "offsets:1:0"})) << earliest.all();
  auto one = run_kafka_tool(broker.dir(), k_get_offsets,
                            {"--bootstrap-server", bootstrap(), "--topic-partitions", "offsets:1", "--time", "-1"});
  ASSERT_EQ(one.exit_code, 0) << one.all();
  EXPECT_EQ(lines_of(one.out), std::vector<std::string>{"offsets:1:4"}) << one.all();
}

}  // namespace
}  // namespace hw::testing
