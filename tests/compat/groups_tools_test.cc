// Kafka 4.3.1's console consumer with --group and kafka-consumer-groups
// (ConsumerGroupCommand) against a real highwater: the group consumes and
// commits, then --list, --describe (partition, current offset, log end
// offset, lag), --reset-offsets --to-earliest --execute and --delete, each
// checked by what the tool printed.

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "broker_process.h"
#include "kafka_tool.h"
#include "raw_requests.h"

namespace hw::testing {
namespace {

const char* const k_console_consumer = "org.apache.kafka.tools.consumer.ConsoleConsumer";
const char* const k_groups = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand";

class GroupsToolsIT : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(broker.start({"--override", "group.initial.rebalance.delay.ms=0"})) << broker.log();
  }
  std::string bootstrap() const { return "127.0.0.1:" + std::to_string(broker.port()); }
  tool_result groups(std::vector<std::string> args) {
    args.insert(args.begin(), {"--bootstrap-server", bootstrap()});
    return run_kafka_tool(broker.dir(), k_groups, args);
  }
  broker_process broker;
};

TEST_F(GroupsToolsIT, ConsoleConsumerGroupThenListDescribeResetDelete) {
  const std::string topic = "tool-groups";
  {
    raw_client c(broker.port());
    auto created = c.create_topic(topic, 2);
    ASSERT_TRUE(created);
    ASSERT_EQ(created->topics[0].error_code, 0);
    // 3 records in partition 0, 5 in partition 1.
    ASSERT_EQ(c.produce(topic, 0, simple_batch(3))->error_code, 0);
    ASSERT_EQ(c.produce(topic, 1, simple_batch(5))->error_code, 0);
  }

  // The console consumer reads all 8 through the group and commits on close.
  auto consumed = run_kafka_tool(broker.dir(), k_console_consumer,
                           {"--bootstrap-server", bootstrap(), "--topic", topic, "--group", "tools-group",
                            "--from-beginning", "--max-messages", "8", "--timeout-ms", "60000"});
  ASSERT_EQ(consumed.exit_code, 0) << consumed.all() << broker.log();
  int lines = 0;
  for (char ch : consumed.out) lines += ch == '\n';
  EXPECT_EQ(lines, 8) << consumed.all();
  EXPECT_NE(consumed.err.find("Processed a total of 8 messages"), std::string::npos) << consumed.all();

  auto listed = groups({"--list"});
  ASSERT_EQ(listed.exit_code, 0) << listed.all();
  EXPECT_EQ(words_of(listed.out), std::vector<std::string>{"tools-group"}) << listed.all();

  auto described = groups({"--describe", "--group", "tools-group"});
  ASSERT_EQ(described.exit_code, 0) << described.all();
  auto rows = table_rows(described.out, "GROUP");
  ASSERT_EQ(rows.size(), 2u) << described.all();
  std::map<std::string, std::string> current, end, lag;
  for (auto& r : rows) {
    EXPECT_EQ(r["GROUP"], "tools-group");
    EXPECT_EQ(r["TOPIC"], topic);
    current[r["PARTITION"]] = r["CURRENT-OFFSET"];
    end[r["PARTITION"]] = r["LOG-END-OFFSET"];
    lag[r["PARTITION"]] = r["LAG"];
  }
  EXPECT_EQ(current, (std::map<std::string, std::string>{{"0", "3"}, {"1", "5"}})) << described.all();
  EXPECT_EQ(end, (std::map<std::string, std::string>{{"0", "3"}, {"1", "5"}})) << described.all();
  EXPECT_EQ(lag, (std::map<std::string, std::string>{{"0", "0"}, {"1", "0"}})) << described.all();

  auto reset = groups({"--reset-offsets", "--group", "tools-group", "--topic", topic, "--to-earliest", "--execute"});
  ASSERT_EQ(reset.exit_code, 0) << reset.all();
  auto reset_rows = table_rows(reset.out, "GROUP");
  ASSERT_EQ(reset_rows.size(), 2u) << reset.all();
  for (auto& r : reset_rows) EXPECT_EQ(r["NEW-OFFSET"], "0") << reset.all();

  auto after_reset = groups({"--describe", "--group", "tools-group"});
  ASSERT_EQ(after_reset.exit_code, 0) << after_reset.all();
  std::map<std::string, std::string> lag_after;
  for (auto& r : table_rows(after_reset.out, "GROUP")) {
    EXPECT_EQ(r["CURRENT-OFFSET"], "0") << after_reset.all();
    lag_after[r["PARTITION"]] = r["LAG"];
  }
  EXPECT_EQ(lag_after, (std::map<std::string, std::string>{{"0", "3"}, {"1", "5"}})) << after_reset.all();

  auto deleted = groups({"--delete", "--group", "tools-group"});
  ASSERT_EQ(deleted.exit_code, 0) << deleted.all();
  EXPECT_NE(deleted.out.find("Deletion of requested consumer groups ('tools-group') was successful."),
            std::string::npos)
      << deleted.all();
  auto listed_after = groups({"--list"});
  ASSERT_EQ(listed_after.exit_code, 0) << listed_after.all();
  EXPECT_TRUE(words_of(listed_after.out).empty()) << listed_after.all();
}

}  // namespace
}  // namespace hw::testing
