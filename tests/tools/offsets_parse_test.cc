// kafka-get-offsets.sh's pure parts: --time, the topic-partition filters,
// the bootstrap check and the order of the printed lines, as Kafka 4.3.1's
// GetOffsetShell reads and prints them.

#include <gtest/gtest.h>

#include "tools/commands/get_offsets.h"

namespace hw::tools::get_offsets {
namespace {

partition_filter rules(const std::string& spec) {
  partition_filter f;
  tool_error e;
  EXPECT_TRUE(parse_topic_partitions(spec, &f, &e)) << spec << ": " << e.message;
  return f;
}

TEST(OffsetsParse, TimeNamesAndNumbers) {
  const std::pair<const char*, int64_t> cases[] = {{"latest", -1},        {"earliest", -2},      {"max-timestamp", -3},
                                                   {"earliest-local", -4}, {"latest-tiered", -5}, {"earliest-pending-upload", -6},
                                                   {"-2", -2},            {"+17", 17},           {"1700000000000", 1700000000000}};
  for (const auto& [text, value] : cases) {
    int64_t ts = 0;
    tool_error e;
    ASSERT_TRUE(parse_time(text, &ts, &e)) << text;
    EXPECT_EQ(ts, value) << text;
  }
  int64_t ts = 0;
  tool_error e;
  EXPECT_FALSE(parse_time("LATEST", &ts, &e));
  EXPECT_FALSE(parse_time("9223372036854775808", &ts, &e));
  EXPECT_EQ(e.message,
            "Malformed time argument 9223372036854775808. Please use -1 or latest / -2 or earliest / -3 or max-timestamp "
            "/ -4 or earliest-local / -5 or latest-tiered / -6 or earliest-pending-upload, or a specified long format "
            "timestamp");
  EXPECT_TRUE(e.trace.empty());
}

TEST(OffsetsParse, TopicPartitionRules) {
  const auto f = rules("orders:1-,payments:-1,:5,audit.*,logs:2-4,x:");
  EXPECT_TRUE(f.allowed({"orders", 1}));
  EXPECT_TRUE(f.allowed({"orders", 100}));
  EXPECT_FALSE(f.allowed({"orders", 0}));
  EXPECT_TRUE(f.allowed({"payments", 0}));
  EXPECT_FALSE(f.allowed({"payments", 1}));
  EXPECT_TRUE(f.allowed({"anything", 5}));  // ":5": any topic, partition 5
  EXPECT_TRUE(f.allowed({"audit-2024", 9}));
  EXPECT_FALSE(f.allowed({"xaudit", 9}));  // the whole name must match
  EXPECT_TRUE(f.allowed({"logs", 3}));
  EXPECT_FALSE(f.allowed({"logs", 4}));  // upper bound exclusive
  EXPECT_TRUE(f.allowed({"x", 7}));      // "x:": every partition
  EXPECT_TRUE(f.topic_allowed("orders"));
  EXPECT_TRUE(f.topic_allowed("zzz"));   // ":5" allows every topic

  partition_filter bad;
  tool_error e;
  EXPECT_FALSE(parse_topic_partitions("a:b:c", &bad, &e));
  EXPECT_EQ(e.message, "org.apache.kafka.tools.TerseException: Invalid rule specification: a:b:c");
  EXPECT_FALSE(parse_topic_partitions("t:1-2-3", &bad, &e));
  EXPECT_FALSE(parse_topic_partitions("x(:1", &bad, &e));
  EXPECT_EQ(e.message, "x( is an invalid regex.");
  EXPECT_EQ(e.trace, "java.lang.RuntimeException: x( is an invalid regex.");
  EXPECT_FALSE(parse_topic_partitions(":99999999999", &bad, &e));
  EXPECT_EQ(e.message, "For input string: \"99999999999\"");
}

TEST(OffsetsParse, TopicAndPartitions) {
  partition_filter f;
  tool_error e;
  ASSERT_TRUE(parse_topic_and_partitions(std::string(" orders, pay.* "), std::string("0,2"), &f, &e)) << e.message;
  EXPECT_TRUE(f.allowed({"orders", 2}));
  EXPECT_TRUE(f.allowed({"payments", 0}));
  EXPECT_FALSE(f.allowed({"orders", 1}));
  ASSERT_TRUE(parse_topic_and_partitions(std::nullopt, std::string(""), &f, &e));
  EXPECT_TRUE(f.allowed({"any", 42}));
  EXPECT_FALSE(parse_topic_and_partitions(std::nullopt, std::string("1,,2"), &f, &e));
  EXPECT_EQ(e.message, "--partitions expects a comma separated list of numeric partition ids, but received: 1,,2");
}

TEST(OffsetsParse, BootstrapServers) {
  EXPECT_EQ(validate_bootstrap_server("localhost:9092"), "");
  EXPECT_EQ(validate_bootstrap_server("a:1,b:2,"), "");
  EXPECT_EQ(validate_bootstrap_server("[::1]:9092"), "");
  EXPECT_EQ(validate_bootstrap_server("  "), "Error while validating the bootstrap address\n");
  EXPECT_EQ(validate_bootstrap_server(",,"), "Please provide valid host:port like host1:9091,host2:9092\n");
  EXPECT_EQ(validate_bootstrap_server("a:1,b"), "Please provide valid host:port like host1:9091,host2:9092\n");
  EXPECT_EQ(validate_bootstrap_server("h:99999999999"), "For input string: \"99999999999\"");
}

TEST(OffsetsParse, LinesSortedAsTopicPartitionStrings) {
  const std::vector<std::pair<topic_partition, int64_t>> found{
      {{"orders", 10}, 3}, {{"orders", 2}, 1}, {{"orders-1", 0}, 9}, {{"a", 0}, 0}};
  EXPECT_EQ(offset_lines(found),
            (std::vector<std::string>{"a:0:0", "orders-1:0:9", "orders:10:3", "orders:2:1"}));
}

TEST(OffsetsParse, JavaSplitAndNumbers) {
  EXPECT_EQ(java_split("", ','), (std::vector<std::string>{""}));
  EXPECT_EQ(java_split(",", ','), (std::vector<std::string>{}));
  EXPECT_EQ(java_split("a,,b,,", ','), (std::vector<std::string>{"a", "", "b"}));
  int64_t v = 0;
  EXPECT_TRUE(java_parse_long("-9223372036854775808", &v));
  EXPECT_EQ(v, INT64_MIN);
  EXPECT_FALSE(java_parse_long("9223372036854775808", &v));
  EXPECT_FALSE(java_parse_long("+", &v));
  EXPECT_FALSE(java_parse_long(" 1", &v));
  int32_t i = 0;
  EXPECT_FALSE(java_parse_int("2147483648", &i));
}

}  // namespace
}  // namespace hw::tools::get_offsets
