// Kafka 4.3.1's ConfigCommand (kafka-configs.sh) against a real highwater:
// topic, broker and group configs described and altered, the lines printed
// checked against what a Kafka 4.3.1 broker made the same tool print
// (captured by hand with scripts/kafka-server.sh), and the configs kept
// across a restart.

#include <gtest/gtest.h>

#include <algorithm>

#include "broker_process.h"
#include "kafka_tool.h"

namespace hw::testing {
namespace {

const char* const k_config_command = "kafka.admin.ConfigCommand";
const char* const k_topic_command = "org.apache.kafka.tools.TopicCommand";

class ToolsConfigsIT : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(broker.start()) << broker.log(); }
  std::string bootstrap() const { return "127.0.0.1:" + std::to_string(broker.port()); }
  tool_result run(const char* main_class, std::vector<std::string> args) {
    args.insert(args.begin(), {"--bootstrap-server", bootstrap()});
    return run_kafka_tool(broker.dir(), main_class, args);
  }
  tool_result configs(std::vector<std::string> args) { return run(k_config_command, std::move(args)); }
  tool_result describe_topic(const std::string& topic, bool all = false) {
    std::vector<std::string> args{"--entity-type", "topics", "--entity-name", topic, "--describe"};
    if (all) args.push_back("--all");
    return configs(args);
  }
  broker_process broker;
};

TEST_F(ToolsConfigsIT, TopicConfigsAlteredDescribedAndKeptAcrossARestart) {
  auto created = run(k_topic_command, {"--create", "--topic", "orders", "--partitions", "1"});
  ASSERT_EQ(created.exit_code, 0) << created.all();

  auto none = describe_topic("orders");
  ASSERT_EQ(none.exit_code, 0) << none.all();
  EXPECT_EQ(lines_of(none.out), std::vector<std::string>{"Dynamic configs for topic orders are:"}) << none.all();

  auto altered = configs({"--entity-type", "topics", "--entity-name", "orders", "--alter", "--add-config",
                          "retention.ms=1000,cleanup.policy=compact"});
  ASSERT_EQ(altered.exit_code, 0) << altered.all();
  EXPECT_EQ(lines_of(altered.out), std::vector<std::string>{"Completed updating config for topic orders."})
      << altered.all();

  const std::vector<std::string> dynamic = {
      "Dynamic configs for topic orders are:",
      "  cleanup.policy=compact sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=compact, "
      "DEFAULT_CONFIG:log.cleanup.policy=delete}",
      "  retention.ms=1000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=1000}",
  };
  auto described = describe_topic("orders");
  ASSERT_EQ(described.exit_code, 0) << described.all();
  EXPECT_EQ(lines_of(described.out), dynamic) << described.all();

  // --all lists every topic config with its source, as Kafka does (34 lines on Kafka 4.3.1).
  auto all = describe_topic("orders", true);
  ASSERT_EQ(all.exit_code, 0) << all.all();
  EXPECT_EQ(lines_of(all.out).size(), 34u) << all.all();
  EXPECT_TRUE(printed_line(all, "All configs for topic orders are:")) << all.all();
  EXPECT_TRUE(printed_line(all, dynamic[1])) << all.all();
  EXPECT_TRUE(printed_line(all, "  delete.retention.ms=86400000 sensitive=false "
                            "synonyms={DEFAULT_CONFIG:log.cleaner.delete.retention.ms=86400000}"))
      << all.all();
  EXPECT_TRUE(printed_line(all, "  index.interval.bytes=4096 sensitive=false "
                            "synonyms={DEFAULT_CONFIG:log.index.interval.bytes=4096}"))
      << all.all();

  // Configs live in the metadata log: a restart brings them back.
  ASSERT_EQ(broker.stop(SIGTERM), 0);
  ASSERT_TRUE(broker.start()) << broker.log();
  auto after = describe_topic("orders");
  ASSERT_EQ(after.exit_code, 0) << after.all();
  EXPECT_EQ(lines_of(after.out), dynamic) << after.all();

  auto deleted = configs({"--entity-type", "topics", "--entity-name", "orders", "--alter", "--delete-config",
                          "cleanup.policy"});
  ASSERT_EQ(deleted.exit_code, 0) << deleted.all();
  auto remaining = describe_topic("orders");
  EXPECT_EQ(lines_of(remaining.out), (std::vector<std::string>{dynamic[0], dynamic[2]})) << remaining.all();
}

TEST_F(ToolsConfigsIT, BrokerConfigs) {
  auto altered = configs({"--entity-type", "brokers", "--entity-name", "1", "--alter", "--add-config",
                          "log.cleaner.threads=2"});
  ASSERT_EQ(altered.exit_code, 0) << altered.all();
  EXPECT_EQ(lines_of(altered.out), std::vector<std::string>{"Completed updating config for broker 1."})
      << altered.all();
  auto described = configs({"--entity-type", "brokers", "--entity-name", "1", "--describe"});
  ASSERT_EQ(described.exit_code, 0) << described.all();
  EXPECT_EQ(lines_of(described.out),
            (std::vector<std::string>{"Dynamic configs for broker 1 are:",
                                      "  log.cleaner.threads=2 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:"
                                      "log.cleaner.threads=2, DEFAULT_CONFIG:log.cleaner.threads=1}"}))
      << described.all();
}

TEST_F(ToolsConfigsIT, BadRequestsAreReported) {
  auto created = run(k_topic_command, {"--create", "--topic", "orders", "--partitions", "1"});
  ASSERT_EQ(created.exit_code, 0) << created.all();
  auto missing = describe_topic("missing");
  EXPECT_NE(missing.all().find("The topic 'missing' doesn't exist and doesn't have dynamic config."),
            std::string::npos)
      << missing.all();
  auto bad = configs({"--entity-type", "topics", "--entity-name", "orders", "--alter", "--add-config",
                      "retention.ms=abc"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.all().find("InvalidConfigurationException: Invalid value abc for configuration retention.ms: "
                           "Not a number of type LONG"),
            std::string::npos)
      << bad.all();
  auto unchanged = describe_topic("orders");
  EXPECT_EQ(lines_of(unchanged.out), std::vector<std::string>{"Dynamic configs for topic orders are:"})
      << unchanged.all();
}

// Lines as Kafka 4.3.1's broker made the same commands print (a group with
// configs and no members: kafka-configs.sh finds it through
// ListConfigResources), but for the consumer heartbeat interval's default:
// 1000 here, 5000 in Kafka (a deliberate difference, README "Group
// protocols").
TEST_F(ToolsConfigsIT, GroupConfigs) {
  auto describe_group = [&](bool all) {
    std::vector<std::string> args{"--entity-type", "groups", "--entity-name", "g", "--describe"};
    if (all) args.push_back("--all");
    return configs(args);
  };
  auto none = describe_group(false);
  ASSERT_EQ(none.exit_code, 0) << none.all();
  EXPECT_EQ(lines_of(none.out), std::vector<std::string>{"The group 'g' doesn't exist and doesn't have dynamic config."})
      << none.all();

  auto altered = configs({"--entity-type", "groups", "--entity-name", "g", "--alter", "--add-config",
                          "consumer.session.timeout.ms=50000"});
  ASSERT_EQ(altered.exit_code, 0) << altered.all();
  EXPECT_EQ(lines_of(altered.out), std::vector<std::string>{"Completed updating config for group g."})
      << altered.all();

  const std::string session =
      "  consumer.session.timeout.ms=50000 sensitive=false synonyms={DYNAMIC_GROUP_CONFIG:"
      "consumer.session.timeout.ms=50000, DEFAULT_CONFIG:group.consumer.session.timeout.ms=45000}";
  auto described = describe_group(false);
  ASSERT_EQ(described.exit_code, 0) << described.all();
  EXPECT_EQ(lines_of(described.out), (std::vector<std::string>{"Dynamic configs for group g are:", session}))
      << described.all();

  auto all = describe_group(true);
  ASSERT_EQ(all.exit_code, 0) << all.all();
  const std::vector<std::string> kafka_all = {
      "All configs for group g are:",
      "  consumer.assignment.interval.ms=1000 sensitive=false synonyms={DEFAULT_CONFIG:group.consumer.assignment.interval.ms=1000}",
      "  consumer.heartbeat.interval.ms=1000 sensitive=false synonyms={DEFAULT_CONFIG:group.consumer.heartbeat.interval.ms=1000}",
      session,
      "  share.assignment.interval.ms=1000 sensitive=false synonyms={DEFAULT_CONFIG:group.share.assignment.interval.ms=1000}",
      "  share.auto.offset.reset=latest sensitive=false synonyms={DEFAULT_CONFIG:share.auto.offset.reset=latest}",
      "  share.delivery.count.limit=5 sensitive=false synonyms={DEFAULT_CONFIG:group.share.delivery.count.limit=5}",
      "  share.heartbeat.interval.ms=5000 sensitive=false synonyms={DEFAULT_CONFIG:group.share.heartbeat.interval.ms=5000}",
      "  share.isolation.level=read_uncommitted sensitive=false synonyms={DEFAULT_CONFIG:share.isolation.level=read_uncommitted}",
      "  share.partition.max.record.locks=2000 sensitive=false synonyms={DEFAULT_CONFIG:group.share.partition.max.record.locks=2000}",
      "  share.record.lock.duration.ms=30000 sensitive=false synonyms={DEFAULT_CONFIG:group.share.record.lock.duration.ms=30000}",
      "  share.renew.acknowledge.enable=true sensitive=false synonyms={DEFAULT_CONFIG:share.renew.acknowledge.enable=true}",
      "  share.session.timeout.ms=45000 sensitive=false synonyms={DEFAULT_CONFIG:group.share.session.timeout.ms=45000}",
      "  streams.assignment.interval.ms=1000 sensitive=false synonyms={DEFAULT_CONFIG:group.streams.assignment.interval.ms=1000}",
      "  streams.heartbeat.interval.ms=5000 sensitive=false synonyms={DEFAULT_CONFIG:group.streams.heartbeat.interval.ms=5000}",
      "  streams.initial.rebalance.delay.ms=3000 sensitive=false synonyms={DEFAULT_CONFIG:group.streams.initial.rebalance.delay.ms=3000}",
      "  streams.num.standby.replicas=0 sensitive=false synonyms={DEFAULT_CONFIG:group.streams.num.standby.replicas=0}",
      "  streams.session.timeout.ms=45000 sensitive=false synonyms={DEFAULT_CONFIG:group.streams.session.timeout.ms=45000}",
  };
  EXPECT_EQ(lines_of(all.out), kafka_all) << all.all();

  auto bad = configs({"--entity-type", "groups", "--entity-name", "g", "--alter", "--add-config",
                      "consumer.assignment.interval.ms=16000"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.all().find("InvalidConfigurationException: consumer.assignment.interval.ms must be less than or "
                           "equal to group.consumer.max.assignment.interval.ms"),
            std::string::npos)
      << bad.all();

  ASSERT_EQ(broker.stop(SIGTERM), 0);
  ASSERT_TRUE(broker.start()) << broker.log();
  auto after = describe_group(false);
  EXPECT_EQ(lines_of(after.out), (std::vector<std::string>{"Dynamic configs for group g are:", session}))
      << after.all();
}

}  // namespace
}  // namespace hw::testing
