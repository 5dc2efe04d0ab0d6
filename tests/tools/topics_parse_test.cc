// kafka-topics.sh's pure parts: --replica-assignment, --config, the --topic
// filter, the report flags' conditions and the lines --describe prints.
// Messages as Kafka 4.3.1's TopicCommand prints them.

#include <gtest/gtest.h>

#include "tools/commands/kafka_topics.h"

namespace hw::tools::topics {
namespace {

TEST(TopicsReplicaAssignment, PartitionsAndBrokers) {
  std::vector<std::vector<int32_t>> a;
  topic_error e;
  ASSERT_TRUE(parse_replica_assignment("1:2, 2 :3,3:1", &a, &e)) << e.message;
  EXPECT_EQ(a, (std::vector<std::vector<int32_t>>{{1, 2}, {2, 3}, {3, 1}}));
  ASSERT_TRUE(parse_replica_assignment("5", &a, &e));
  EXPECT_EQ(a, (std::vector<std::vector<int32_t>>{{5}}));
  ASSERT_TRUE(parse_replica_assignment(",", &a, &e));  // splits into nothing: no assignment
  EXPECT_TRUE(a.empty());
}

TEST(TopicsReplicaAssignment, ErrorsAsTopicCommand) {
  std::vector<std::vector<int32_t>> a;
  topic_error e;
  EXPECT_FALSE(parse_replica_assignment("1:1", &a, &e));
  EXPECT_EQ(e.message, "Partition replica lists may not contain duplicate entries: 1");
  EXPECT_EQ(e.java_class, "org.apache.kafka.tools.AdminCommandFailedException");
  EXPECT_FALSE(parse_replica_assignment("33:1:17:-1:16:33:1:17:-1:16", &a, &e));
  EXPECT_EQ(e.message, "Partition replica lists may not contain duplicate entries: -1,16,33,1,17");  // HashSet order
  EXPECT_FALSE(parse_replica_assignment("1,1:2", &a, &e));
  EXPECT_EQ(e.message, "Partition 1 has different replication factor: [1, 2]");
  EXPECT_EQ(e.java_class, "org.apache.kafka.tools.AdminOperationException");
  EXPECT_FALSE(parse_replica_assignment("a", &a, &e));
  EXPECT_EQ(e.message, "For input string: \"a\"");
  EXPECT_FALSE(parse_replica_assignment("1,,2", &a, &e));
  EXPECT_EQ(e.message, "For input string: \"\"");
  EXPECT_FALSE(parse_replica_assignment("1:x:1", &a, &e));  // numbers first, then duplicates
  EXPECT_EQ(e.message, "For input string: \"x\"");
}

TEST(TopicsConfigs, SplitTrimAndJavaOrder) {
  std::vector<std::pair<std::string, std::string>> c;
  topic_error e;
  ASSERT_TRUE(parse_topic_configs({" retention.ms = 1000 ", "cleanup.policy=compact", "segment.bytes=1048576=",
                                   "retention.ms=2000"},
                                  &c, &e))
      << e.message;
  // A repeated key keeps its first place and takes the last value; "a=b=" is a=b (trailing parts drop).
  EXPECT_EQ(c, (std::vector<std::pair<std::string, std::string>>{
                   {"cleanup.policy", "compact"}, {"retention.ms", "2000"}, {"segment.bytes", "1048576"}}));
}

TEST(TopicsConfigs, ErrorsAsTopicCommandAndLogConfig) {
  std::vector<std::pair<std::string, std::string>> c;
  topic_error e;
  const std::string format =
      "requirement failed: Invalid topic config: all configs to be added must be in the format \"key=val\".";
  for (const char* bad : {"a", "a=", "a=b=c", "=="}) {
    EXPECT_FALSE(parse_topic_configs({bad}, &c, &e)) << bad;
    EXPECT_EQ(e.message, format) << bad;
  }
  EXPECT_FALSE(parse_topic_configs({"foo=bar"}, &c, &e));
  EXPECT_EQ(e.message, "Unknown topic config name: foo");
  EXPECT_EQ(e.java_class, "org.apache.kafka.common.errors.InvalidConfigurationException");
  // Names are checked first, in HashMap order: bar before foo.
  EXPECT_FALSE(parse_topic_configs({"retention.ms=abc", "segment.bytes=1", "foo=1", "bar=2"}, &c, &e));
  EXPECT_EQ(e.message, "Unknown topic config name: bar");
  EXPECT_FALSE(parse_topic_configs({"retention.ms=abc"}, &c, &e));
  EXPECT_EQ(e.message, "Invalid value abc for configuration retention.ms: Not a number of type LONG");
  EXPECT_EQ(e.java_class, "org.apache.kafka.common.config.ConfigException");
  // Values in LogConfig's definition order: segment.bytes comes before retention.ms.
  EXPECT_FALSE(parse_topic_configs({"retention.ms=abc", "segment.bytes=x"}, &c, &e));
  EXPECT_NE(e.message.find("segment.bytes"), std::string::npos) << e.message;
  EXPECT_FALSE(parse_topic_configs({"min.compaction.lag.ms=10", "max.compaction.lag.ms=5"}, &c, &e));
  EXPECT_EQ(e.message, "conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)");
}

TEST(TopicsIncludeList, WholeNameRegexWithCommasAndQuotes) {
  include_list f;
  std::string error;
  ASSERT_TRUE(include_list::make(" 'orders.*, pay ments' ", &f, &error)) << error;
  EXPECT_EQ(f.regex_text(), "orders.*|payments");
  EXPECT_TRUE(f.allowed("orders", false));
  EXPECT_TRUE(f.allowed("orders-eu", false));
  EXPECT_TRUE(f.allowed("payments", false));
  EXPECT_FALSE(f.allowed("old-orders", false));  // matches() is a whole-name match
  ASSERT_TRUE(include_list::make("__.*", &f, &error));
  EXPECT_TRUE(f.allowed("__consumer_offsets", false));
  EXPECT_FALSE(f.allowed("__consumer_offsets", true));
  EXPECT_TRUE(f.allowed("__private", true));  // only Kafka's own topics are internal
  EXPECT_FALSE(include_list::make("[", &f, &error));
  EXPECT_EQ(error, "[ is an invalid regex.");
}

TEST(TopicsNames, InternalAndCollisionChars) {
  EXPECT_TRUE(is_internal_topic("__transaction_state"));
  EXPECT_TRUE(is_internal_topic("__share_group_state"));
  EXPECT_FALSE(is_internal_topic("__cluster_metadata"));
  EXPECT_TRUE(has_collision_chars("a.b"));
  EXPECT_TRUE(has_collision_chars("a_b"));
  EXPECT_FALSE(has_collision_chars("a-b"));
}

partition_view partition(std::optional<int32_t> leader, std::vector<int32_t> replicas, std::vector<int32_t> isr) {
  partition_view p;
  p.leader = leader;
  p.replicas = std::move(replicas);
  p.isr = std::move(isr);
  return p;
}

TEST(TopicsReports, ConditionsOfTheReportFlags) {
  const auto healthy = partition(1, {1, 2, 3}, {1, 2, 3});
  const auto lagging = partition(1, {1, 2, 3}, {1, 2});
  const auto leaderless = partition(std::nullopt, {1, 2, 3}, {3});
  EXPECT_FALSE(under_replicated(healthy));
  EXPECT_TRUE(under_replicated(lagging));
  EXPECT_TRUE(under_min_isr(leaderless, 1));
  EXPECT_TRUE(under_min_isr(lagging, 3));
  EXPECT_FALSE(under_min_isr(lagging, 2));
  EXPECT_TRUE(at_min_isr(lagging, 2));
  EXPECT_FALSE(at_min_isr(healthy, 2));
  EXPECT_TRUE(unavailable(leaderless, {1, 2, 3}));
  EXPECT_TRUE(unavailable(healthy, {2, 3}));
  EXPECT_FALSE(unavailable(healthy, {1}));
}

TEST(TopicsReports, ReplicationFactorDuringReassignment) {
  auto p = partition(1, {1, 2, 3, 4}, {1, 2, 3, 4});
  p.reassigning = partition_view::reassignment{{1, 2, 3, 4}, {4}, {1}};
  EXPECT_EQ(replication_factor(p), 3);  // the target set without the replica being added
  EXPECT_FALSE(under_replicated(p));
  p.reassigning = partition_view::reassignment{{1, 2, 3, 4}, {5}, {6}};  // finished meanwhile
  EXPECT_EQ(replication_factor(p), 4);
}

TEST(TopicsLines, TopicAndPartitionLines) {
  protocol::uuid id;
  ASSERT_TRUE(protocol::uuid::parse("nEVuyMrbRAKqwzZuQFlKMg").has_value());
  id = *protocol::uuid::parse("nEVuyMrbRAKqwzZuQFlKMg");
  EXPECT_EQ(topic_line("a.b_c", id, 2, 1, {{"min.insync.replicas", "1"}, {"cleanup.policy", "compact"}}),
            "Topic: a.b_c\tTopicId: nEVuyMrbRAKqwzZuQFlKMg\tPartitionCount: 2\tReplicationFactor: 1\t"
            "Configs: min.insync.replicas=1,cleanup.policy=compact");
  EXPECT_EQ(topic_line("t", protocol::uuid{}, 1, 3, {{"sasl.secret", std::nullopt}}),
            "Topic: t\tPartitionCount: 1\tReplicationFactor: 3\tConfigs: sasl.secret=null");
  auto p = partition(2, {2, 3}, {2});
  p.partition = 4;
  p.elr = std::vector<int32_t>{3};
  p.last_known_elr = std::vector<int32_t>{};
  EXPECT_EQ(partition_line("t", p), "\tTopic: t\tPartition: 4\tLeader: 2\tReplicas: 2,3\tIsr: 2\tElr: 3\tLastKnownElr: ");
  auto q = partition(std::nullopt, {1, 2}, {});
  q.reassigning = partition_view::reassignment{{1, 2, 3}, {3}, {}};
  EXPECT_EQ(partition_line("t", q),
            "\tTopic: t\tPartition: 0\tLeader: none\tReplicas: 1,2\tIsr: \tAdding Replicas: 3\tRemoving Replicas: "
            "\tElr: N/A\tLastKnownElr: N/A");
}

}  // namespace
}  // namespace hw::tools::topics
