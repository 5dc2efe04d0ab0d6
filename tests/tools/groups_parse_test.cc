// kafka-consumer-groups.sh's pure parsing, against what Kafka 4.3.1's own
// parsers answer for the same text (values taken from running
// Utils.getDateTime and Duration.parse on it).

#include <gtest/gtest.h>

#include "tools/commands/consumer_groups.h"

namespace hw::tools::groups {
namespace {

int64_t datetime(const std::string& text) {
  int64_t ms = 0;
  std::string error;
  EXPECT_TRUE(parse_datetime(text, &ms, &error)) << text << ": " << error;
  return ms;
}

std::string datetime_error(const std::string& text) {
  int64_t ms = 0;
  std::string error;
  EXPECT_FALSE(parse_datetime(text, &ms, &error)) << text << " parsed as " << ms;
  return error;
}

TEST(GroupsParse, DatetimesAsUtilsGetDateTimeReadsThem) {
  EXPECT_EQ(datetime("2020-01-01T00:00:00.000"), 1577836800000);
  EXPECT_EQ(datetime("2020-01-01T00:00:00.5"), 1577836800005);  // SSS reads "5" as 5 ms
  EXPECT_EQ(datetime("2020-01-01T00:00:00.000+01:00"), 1577833200000);
  EXPECT_EQ(datetime("2020-01-01T00:00:00.000+0100"), 1577833200000);  // "+01" read, "00" ignored
  EXPECT_EQ(datetime("2030-01-01T00:00:00.000-05"), 1893474000000);
  EXPECT_EQ(datetime("2030-01-01T00:00:00.000Zjunk"), 1893456000000);
  EXPECT_EQ(datetime("2020-02-29T12:34:56.789"), 1582979696789);
  EXPECT_EQ(datetime("2020-1-1T1:2:3.4"), 1577840523004);
  EXPECT_EQ(datetime("2020-01-01T00:00:00.000-00:30"), 1577838600000);
  EXPECT_EQ(datetime("20200-01-01T00:00:00.000"), 575283254400000);
  // Before 1582-10-15 GregorianCalendar counts Julian days.
  EXPECT_EQ(datetime("1500-03-01T00:00:00.000"), -14825808000000);
  EXPECT_EQ(datetime("0001-01-01T00:00:00.000"), -62135769600000);
}

TEST(GroupsParse, DatetimeErrorsCarryKafkasMessages) {
  EXPECT_EQ(datetime_error("2020-01-01"),
            "java.text.ParseException: Error parsing timestamp. It does not contain a 'T' according to ISO8601 format");
  EXPECT_EQ(datetime_error("2020-01-01T00:00:00"), "java.text.ParseException: Unparseable date: \"2020-01-01T00:00:00Z\"");
  EXPECT_EQ(datetime_error("2019-02-29T00:00:00.000"),
            "java.text.ParseException: Unparseable date: \"2019-02-29T00:00:00.000Z\"");
  datetime_error("2020-13-01T00:00:00.000");
  datetime_error("2020-01-01T24:00:00.000");
  datetime_error("2020-01-01T00:00:60.000");
  datetime_error("2020-01-01T00:00:00.1234");
  EXPECT_EQ(datetime_error("2020-01-01T00:00:00.000+24:00"),
            "java.text.ParseException: Unparseable date: \"2020-01-01T00:00:00.000+24:00\"");
}

TEST(GroupsParse, DurationsAsJavaReadsThem) {
  const std::pair<const char*, __int128> cases[] = {
      {"PT1H", __int128(3600) * 1000000000},
      {"P1D", __int128(86400) * 1000000000},
      {"-PT1H", -__int128(3600) * 1000000000},
      {"PT-1.5S", -__int128(1500000000)},
      {"P1DT2H3M4.5S", __int128(93784) * 1000000000 + 500000000},
      {"pt1m", __int128(60) * 1000000000},
      {"PT1.S", __int128(1000000000)},
      {"+P1D", __int128(86400) * 1000000000},
      {"PT0.000000001S", 1},
      {"P-1DT1H", -__int128(82800) * 1000000000},
  };
  for (const auto& [text, nanos] : cases) {
    __int128 parsed = 0;
    ASSERT_TRUE(parse_duration(text, &parsed)) << text;
    EXPECT_TRUE(parsed == nanos) << text;
  }
  for (const char* bad : {"PT", "P", "P1X", "1H", "PT1H2", ""}) {
    __int128 parsed = 0;
    EXPECT_FALSE(parse_duration(bad, &parsed)) << bad;
  }
}

TEST(GroupsParse, TopicWithPartitions) {
  std::vector<topic_partition> out;
  std::string error;
  ASSERT_TRUE(parse_topic_with_partitions("orders:0,2,1", &out, &error)) << error;
  EXPECT_EQ(out, (std::vector<topic_partition>{{"orders", 0}, {"orders", 2}, {"orders", 1}}));
  out.clear();
  ASSERT_TRUE(parse_topic_with_partitions("orders:3,", &out, &error)) << error;  // Java's split drops the trailing ""
  EXPECT_EQ(out, (std::vector<topic_partition>{{"orders", 3}}));
  EXPECT_FALSE(parse_topic_with_partitions("orders:x", &out, &error));
  EXPECT_EQ(error, "Invalid partition 'x' specified in topic arg 'orders:x''");
  EXPECT_FALSE(parse_topic_with_partitions("orders:", &out, &error));
  EXPECT_EQ(error, "Invalid topic arg 'orders:', expected topic name and partitions");
  EXPECT_FALSE(parse_topic_with_partitions("a:1:2", &out, &error));
  EXPECT_EQ(error, "Invalid topic arg 'a:1:2', expected topic name and partitions");
  EXPECT_FALSE(parse_topic_with_partitions("orders:,1", &out, &error));
  EXPECT_EQ(error, "Invalid partition '' specified in topic arg 'orders:,1''");
}

TEST(GroupsParse, StatesAndTypes) {
  std::vector<group_state> states;
  std::string error;
  ASSERT_TRUE(parse_state_list(" stable , EMPTY,preparingrebalance", &states, &error)) << error;
  EXPECT_EQ(states, (std::vector<group_state>{group_state::stable, group_state::empty, group_state::preparing_rebalance}));
  EXPECT_FALSE(parse_state_list("stable,bogus", &states, &error));
  EXPECT_EQ(error.rfind("Invalid state list 'stable,bogus'. Valid states are: ", 0), 0u) << error;
  EXPECT_FALSE(parse_state_list("NotReady", &states, &error));  // a streams group state
  EXPECT_EQ(state_name(parse_state("completingrebalance")), "CompletingRebalance");
  EXPECT_EQ(state_name(parse_state("whatever")), "Unknown");

  std::vector<std::string> types;
  ASSERT_TRUE(parse_type_list("CLASSIC, consumer", &types, &error)) << error;
  EXPECT_EQ(types, (std::vector<std::string>{"Classic", "Consumer"}));
  EXPECT_FALSE(parse_type_list("share", &types, &error));
  EXPECT_EQ(error, "Invalid types list 'share'. Valid types are: Consumer, Classic");
}

TEST(GroupsJava, HashesAndHashMapOrder) {
  EXPECT_EQ(java::string_hash("orders"), static_cast<int32_t>(-1008770331));
  EXPECT_EQ(java::string_hash(""), 0);
  EXPECT_EQ(java_hash(topic_partition{"orders", 0}), 31 * 31 + java::string_hash("orders"));
  // Kafka 4.3.1 printed this reset plan (built in a HashMap from
  // orders:0,2 then payments' partitions) in this order.
  const std::vector<topic_partition> inserted{{"orders", 0}, {"orders", 2}, {"payments", 0}, {"payments", 1}};
  EXPECT_EQ(java_hash_order(inserted),
            (std::vector<topic_partition>{{"payments", 0}, {"payments", 1}, {"orders", 0}, {"orders", 2}}));
  // ... and the failed deletions of groups g2 and nope in this one.
  EXPECT_EQ(java_hash_order(std::vector<std::string>{"g2", "nope"}), (std::vector<std::string>{"nope", "g2"}));
  // Kafka 4.3.1's --to-current plan for a group without commits: the log
  // ends put with putAll into an empty map, whose table is sized for 5 (8).
  const std::vector<topic_partition> all{{"orders", 0}, {"orders", 1}, {"orders", 2}, {"payments", 0}, {"payments", 1}};
  EXPECT_EQ(java_put_all_capacity(0, 5), 8u);
  EXPECT_EQ(java_hash_order(all, java_put_all_capacity(0, 5)), all);
  EXPECT_EQ(java_hash_order(all).front(), (topic_partition{"payments", 0}));
  EXPECT_EQ(java_put_all_capacity(3, 2), 16u);
  EXPECT_EQ(java_put_all_capacity(12, 1), 32u);
  EXPECT_EQ(java::length("h\xC3\xA9llo"), 5u);      // é: one UTF-16 unit
  EXPECT_EQ(java::length("\xF0\x9F\x98\x80"), 2u);  // an emoji: a surrogate pair
  EXPECT_EQ(pad("ab", 4), "ab  ");
  EXPECT_EQ(pad("abcdef", 4), "abcdef");
}

}  // namespace
}  // namespace hw::tools::groups
