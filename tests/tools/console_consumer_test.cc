// The console consumer's pure parts: Kafka's DefaultMessageFormatter (what
// a record prints as), the Java consumer properties mapped to librdkafka's,
// and the order Kafka lists conflicting group ids in. Expected outputs are
// Kafka 4.3.1's ConsoleConsumer's for the same records and properties.

#include <gtest/gtest.h>

#include "tools/commands/console.h"
#include "tools/commands/console_consumer.h"
#include "tools/commands/java.h"

namespace hw::tools::console {
namespace {

consumed_record sample() {
  consumed_record r;
  r.topic = "t";
  r.partition = 2;
  r.offset = 41;
  r.ts_type = timestamp_type::create_time;
  r.timestamp = 1700000000123;
  r.key = "k1";
  r.value = "v1";
  r.headers = {{"h1", "a"}, {"h2", std::nullopt}};
  return r;
}

formatter_settings formatter(const properties& props) {
  formatter_settings s;
  std::string error;
  EXPECT_TRUE(configure_formatter(props, &s, &error)) << error;
  return s;
}

TEST(ConsoleFormatter, ValueAloneByDefault) {
  EXPECT_EQ(format_record(formatter({}), sample()), "v1\n");
  consumed_record null_value = sample();
  null_value.value.reset();
  EXPECT_EQ(format_record(formatter({}), null_value), "null\n");
}

TEST(ConsoleFormatter, EveryColumnInKafkasOrder) {
  auto s = formatter({{"print.timestamp", "true"},
                      {"print.partition", "true"},
                      {"print.offset", "true"},
                      {"print.headers", "true"},
                      {"print.key", "true"}});
  EXPECT_EQ(format_record(s, sample()), "CreateTime:1700000000123\tPartition:2\tOffset:41\th1:a,h2:null\tk1\tv1\n");
}

TEST(ConsoleFormatter, SeparatorsNullLiteralAndBooleans) {
  auto s = formatter({{"print.key", " True "},
                      {"key.separator", " | "},
                      {"line.separator", "<EOL>\n"},
                      {"null.literal", "NULL"},
                      {"print.headers", "true"},
                      {"headers.separator", ";"}});
  consumed_record r = sample();
  r.key.reset();
  EXPECT_EQ(format_record(s, r), "h1:a;h2:NULL | NULL | v1<EOL>\n");
  EXPECT_EQ(format_record(formatter({{"print.key", "yes"}}), r), "v1\n");  // only "true" is true
}

TEST(ConsoleFormatter, WithoutTheValueTheLastColumnEndsTheLine) {
  EXPECT_EQ(format_record(formatter({{"print.key", "true"}, {"print.value", "false"}}), sample()), "k1\n");
  EXPECT_EQ(format_record(formatter({{"print.offset", "true"}, {"print.value", "false"}}), sample()), "Offset:41\n");
  EXPECT_EQ(format_record(formatter({{"print.value", "false"}}), sample()), "");
}

TEST(ConsoleFormatter, TimestampTypesHeadersAndAbsentFields) {
  consumed_record r = sample();
  r.headers.clear();
  r.ts_type = timestamp_type::log_append_time;
  auto s = formatter({{"print.timestamp", "true"}, {"print.headers", "true"}});
  EXPECT_EQ(format_record(s, r), "LogAppendTime:1700000000123\tNO_HEADERS\tv1\n");
  r.ts_type = timestamp_type::none;
  EXPECT_EQ(format_record(s, r), "NO_TIMESTAMP\tNO_HEADERS\tv1\n");
  // The console consumer gives its formatter neither a delivery count nor a leader epoch.
  EXPECT_EQ(format_record(formatter({{"print.delivery", "true"}, {"print.epoch", "true"}}), r),
            "Delivery:NOT_PRESENT\tEpoch:NOT_PRESENT\tv1\n");
}

TEST(ConsoleFormatter, StringDeserializerOnlyReplacesMalformedUtf8) {
  consumed_record r = sample();
  r.value = "ok\xFF";
  EXPECT_EQ(format_record(formatter({}), r), "ok\xFF\n");
  auto s = formatter({{"value.deserializer", "org.apache.kafka.common.serialization.StringDeserializer"}});
  EXPECT_EQ(format_record(s, r), "ok\xEF\xBF\xBD\n");
  formatter_settings refused;
  std::string error;
  EXPECT_FALSE(configure_formatter(
      {{"key.deserializer", "org.apache.kafka.common.serialization.LongDeserializer"}}, &refused, &error));
  EXPECT_NE(error.find("key.deserializer=org.apache.kafka.common.serialization.LongDeserializer"), std::string::npos);
}

properties consumer_defaults() {
  // What ConsoleConsumer hands KafkaConsumer with --topic and no group.
  return {{"bootstrap.servers", "h:1"},     {"client.id", "console-consumer"},
          {"auto.offset.reset", "latest"},  {"isolation.level", "read_uncommitted"},
          {"group.id", "console-consumer-1"}, {"enable.auto.commit", "false"}};
}

std::string setting(const client_settings& s, const std::string& key) {
  std::string value = "<unset>";
  for (const auto& [k, v] : s.rdkafka)
    if (k == key) value = v;
  return value;
}

TEST(ConsoleConsumerConfig, DefaultsMapToLibrdkafka) {
  client_settings s;
  std::string error;
  ASSERT_TRUE(map_client_properties(client_kind::consumer, consumer_defaults(), &s, &error)) << error;
  EXPECT_EQ(setting(s, "group.id"), "console-consumer-1");
  EXPECT_EQ(setting(s, "enable.auto.commit"), "false");
  EXPECT_EQ(setting(s, "auto.offset.reset"), "latest");
  EXPECT_EQ(setting(s, "isolation.level"), "read_uncommitted");
  EXPECT_EQ(setting(s, "partition.assignment.strategy"), "range");
  EXPECT_EQ(setting(s, "allow.auto.create.topics"), "true");
  EXPECT_TRUE(s.exclude_internal_topics);
}

TEST(ConsoleConsumerConfig, KafkasNamesAndValues) {
  properties props = consumer_defaults();
  props["auto.offset.reset"] = "none";
  props["isolation.level"] = "read_committed";
  props["fetch.max.wait.ms"] = "250";
  props["request.timeout.ms"] = "20000";
  props["partition.assignment.strategy"] =
      "org.apache.kafka.clients.consumer.RangeAssignor,org.apache.kafka.clients.consumer.CooperativeStickyAssignor";
  client_settings s;
  std::string error;
  ASSERT_TRUE(map_client_properties(client_kind::consumer, props, &s, &error)) << error;
  EXPECT_EQ(setting(s, "auto.offset.reset"), "error");
  EXPECT_EQ(setting(s, "isolation.level"), "read_committed");
  EXPECT_EQ(setting(s, "fetch.wait.max.ms"), "250");
  EXPECT_EQ(setting(s, "socket.timeout.ms"), "20000");
  EXPECT_EQ(setting(s, "partition.assignment.strategy"), "range");
}

std::string consumer_error(const properties& extra) {
  properties props = consumer_defaults();
  for (auto& [k, v] : extra) props[k] = v;
  client_settings s;
  std::string error;
  EXPECT_FALSE(map_client_properties(client_kind::consumer, props, &s, &error));
  return error;
}

TEST(ConsoleConsumerConfig, InvalidValuesAndRefusals) {
  const std::string ce = "org.apache.kafka.common.config.ConfigException: ";
  EXPECT_EQ(consumer_error({{"isolation.level", "foo"}}),
            ce + "Invalid value foo for configuration isolation.level: String must be one of: read_committed, "
                 "read_uncommitted");
  EXPECT_EQ(consumer_error({{"enable.auto.commit", "yes"}}),
            ce + "Invalid value yes for configuration enable.auto.commit: Expected value to be either true or false");
  EXPECT_EQ(consumer_error({{"auto.offset.reset", "foo"}}),
            ce + "Invalid value foo for configuration auto.offset.reset: Invalid value `foo` for configuration "
                 "auto.offset.reset. The value must be either 'earliest', 'latest', 'none' or of the format "
                 "'by_duration:<PnDTnHnMn.nS.>'.");
  EXPECT_NE(consumer_error({{"group.protocol", "consumer"}}).find("group.protocol=consumer"), std::string::npos);
  EXPECT_NE(consumer_error({{"partition.assignment.strategy", "org.apache.kafka.clients.consumer.StickyAssignor"}})
                .find("StickyAssignor"),
            std::string::npos);
}

TEST(ConsoleConsumerOptions, GroupIdsInJavaHashSetOrder) {
  // Kafka 4.3.1 printed "Detected group ids: 'a', 'g1'" for --group g1 and group.id=a.
  EXPECT_EQ(java::hash_map_order({"g1", "a"}), (std::vector<std::string>{"a", "g1"}));
  EXPECT_EQ(java::hash_map_order({"zz", "aa"}), (std::vector<std::string>{"zz", "aa"}));  // one bucket: insertion order
}

}  // namespace
}  // namespace hw::tools::console
