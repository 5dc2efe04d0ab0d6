// kafka-configs.sh's printed lines, as Kafka 4.3.1's ConfigCommand prints
// them: headers, entry lines with their synonyms and sensitive values, the
// dynamic-source filter and the order of entries.

#include <gtest/gtest.h>

#include "tools/commands/configs.h"

namespace hw::tools::configs {
namespace {

TEST(ConfigsFormat, Headers) {
  EXPECT_EQ(describe_header(topics, "orders", false), "Dynamic configs for topic orders are:");
  EXPECT_EQ(describe_header(topics, "orders", true), "All configs for topic orders are:");
  EXPECT_EQ(describe_header(broker_loggers, "1", false), "Dynamic configs for broker-logger 1 are:");
  EXPECT_EQ(describe_header(client_metrics, "cm", true), "All configs for client-metric cm are:");
  EXPECT_EQ(describe_header(brokers, "", false), "Default configs for brokers in the cluster are:");
  EXPECT_EQ(describe_header(brokers, "", true), "Default configs for brokers in the cluster are:");
  EXPECT_EQ(missing_line(groups, "g"), "The group 'g' doesn't exist and doesn't have dynamic config.");
  EXPECT_EQ(missing_line(client_metrics, "cm"), "The client-metric 'cm' doesn't exist and doesn't have dynamic config.");
}

TEST(ConfigsFormat, EntryLines) {
  config_entry policy{"cleanup.policy", "compact,delete", 1, false,
                      {{"cleanup.policy", "compact,delete", 1}, {"log.cleanup.policy", "delete", 5}}};
  EXPECT_EQ(entry_line(policy),
            "  cleanup.policy=compact,delete sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=compact,"
            "delete, DEFAULT_CONFIG:log.cleanup.policy=delete}");
  config_entry password{"listener.name.plaintext.ssl.key.password", std::nullopt, 2, true,
                        {{"listener.name.plaintext.ssl.key.password", std::nullopt, 2}}};
  EXPECT_EQ(entry_line(password),
            "  listener.name.plaintext.ssl.key.password=null sensitive=true "
            "synonyms={DYNAMIC_BROKER_CONFIG:listener.name.plaintext.ssl.key.password=null}");
  EXPECT_EQ(entry_line({"root", "INFO", 6, false, {}}), "  root=INFO sensitive=false synonyms={}");
  EXPECT_EQ(source_name(3), "DYNAMIC_DEFAULT_BROKER_CONFIG");
  EXPECT_EQ(source_name(4), "STATIC_BROKER_CONFIG");
  EXPECT_EQ(source_name(7), "DYNAMIC_CLIENT_METRICS_CONFIG");
  EXPECT_EQ(source_name(8), "DYNAMIC_GROUP_CONFIG");
  EXPECT_EQ(source_name(42), "UNKNOWN");
}

TEST(ConfigsFormat, DynamicEntriesSortedByName) {
  std::vector<config_entry> entries = {{"segment.ms", "1", 5, false, {}},
                                       {"retention.ms", "1000", 1, false, {}},
                                       {"Zeta", "x", 1, false, {}},
                                       {"cleanup.policy", "compact", 1, false, {}}};
  auto dynamic = filter_and_sort(entries, std::int8_t{1});
  ASSERT_EQ(dynamic.size(), 3u);
  EXPECT_EQ(dynamic[0].name, "Zeta");  // String.compareTo: upper case first
  EXPECT_EQ(dynamic[1].name, "cleanup.policy");
  EXPECT_EQ(dynamic[2].name, "retention.ms");
  EXPECT_EQ(filter_and_sort(entries, std::nullopt).size(), 4u);
}

TEST(ConfigsFormat, FailuresAsMainReportsThem) {
  auto f = execution(kafka_exception(3, std::string()));
  EXPECT_EQ(f.how, failure::kind::executing);
  EXPECT_EQ(f.trace, (std::vector<std::string>{
                         "java.util.concurrent.ExecutionException: "
                         "org.apache.kafka.common.errors.UnknownTopicOrPartitionException: ",
                         "Caused by: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: "}));
  EXPECT_EQ(kafka_exception(40, std::string("Invalid value abc for configuration retention.ms: Not a number of type LONG")),
            "org.apache.kafka.common.errors.InvalidConfigurationException: Invalid value abc for configuration "
            "retention.ms: Not a number of type LONG");
}

}  // namespace
}  // namespace hw::tools::configs
