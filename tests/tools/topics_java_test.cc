// The Java behaviours kafka-topics.sh reproduces. Expected values were
// printed by the JDK 17 that runs Kafka 4.3.1's tools here (HashMap,
// String.split, Uuid.fromString of kafka-clients 4.3.1).

#include <gtest/gtest.h>

#include "tools/commands/kafka_topics.h"

namespace hw::tools::topics {
namespace {

std::vector<std::string> split_list(const std::string& csv) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t comma; (comma = csv.find(',', start)) != std::string::npos; start = comma + 1)
    out.push_back(csv.substr(start, comma - start));
  out.push_back(csv.substr(start));
  return out;
}

TEST(TopicsJava, StringHashCodeOverUtf16) {
  EXPECT_EQ(java::string_hash("a.b_c"), 91049145);
  EXPECT_EQ(java::string_hash("\xc3\xa9t\xc3\xa9"), 227742);    // "été"
  EXPECT_EQ(java::string_hash("\xf0\x9f\x98\x80"), 1772899);    // U+1F600, two UTF-16 units
  EXPECT_EQ(java::string_hash(""), 0);
}

TEST(TopicsJava, HashMapOrderOfTopicConfigNames) {
  // new Config(entries): a HashMap<String, ConfigEntry> filled in the response's (sorted) order.
  const auto sorted = split_list(
      "cleanup.policy,compression.gzip.level,compression.lz4.level,compression.type,compression.zstd.level,"
      "delete.retention.ms,file.delete.delay.ms,flush.messages,flush.ms,follower.replication.throttled.replicas,"
      "index.interval.bytes,leader.replication.throttled.replicas,local.retention.bytes,local.retention.ms,"
      "max.compaction.lag.ms,max.message.bytes,message.timestamp.after.max.ms,message.timestamp.before.max.ms,"
      "message.timestamp.type,min.cleanable.dirty.ratio,min.compaction.lag.ms,min.insync.replicas,preallocate,"
      "remote.log.copy.disable,remote.log.delete.on.disable,remote.storage.enable,retention.bytes,retention.ms,"
      "segment.bytes,segment.index.bytes,segment.jitter.ms,segment.ms,unclean.leader.election.enable");
  EXPECT_EQ(java::hash_map_order(sorted),
            split_list("compression.type,remote.log.delete.on.disable,leader.replication.throttled.replicas,"
                       "remote.storage.enable,min.insync.replicas,segment.jitter.ms,remote.log.copy.disable,"
                       "local.retention.ms,cleanup.policy,flush.ms,follower.replication.throttled.replicas,"
                       "compression.lz4.level,compression.gzip.level,retention.ms,segment.bytes,"
                       "compression.zstd.level,flush.messages,file.delete.delay.ms,max.compaction.lag.ms,"
                       "max.message.bytes,min.compaction.lag.ms,message.timestamp.type,local.retention.bytes,"
                       "preallocate,index.interval.bytes,min.cleanable.dirty.ratio,unclean.leader.election.enable,"
                       "delete.retention.ms,retention.bytes,message.timestamp.after.max.ms,"
                       "message.timestamp.before.max.ms,segment.ms,segment.index.bytes"));
}

TEST(TopicsJava, HashMapSizedCopiedAndRefilled) {
  // describeTopics: HashMap(n) in name order, copied, then allTopicNames()'s HashMap(n).
  std::vector<std::string> topics;
  for (int i = 0; i < 40; ++i) topics.push_back("topic-" + std::to_string(i));
  std::sort(topics.begin(), topics.end());
  java::hash_order futures(static_cast<int32_t>(topics.size()));
  for (size_t i = 0; i < topics.size(); ++i) futures.put(java::string_hash(topics[i]), i);
  std::vector<std::string> copied;
  for (size_t i : java::hash_order::copy_of(futures).order()) copied.push_back(topics[i]);
  const auto expected = split_list(
      "topic-6,topic-7,topic-8,topic-9,topic-0,topic-1,topic-30,topic-2,topic-31,topic-10,topic-3,topic-32,"
      "topic-11,topic-33,topic-4,topic-12,topic-34,topic-5,topic-24,topic-25,topic-26,topic-27,topic-28,topic-29,"
      "topic-20,topic-21,topic-22,topic-23,topic-13,topic-35,topic-14,topic-36,topic-15,topic-37,topic-16,"
      "topic-38,topic-17,topic-39,topic-18,topic-19");
  EXPECT_EQ(copied, expected);
  EXPECT_EQ(java::hash_map_order(copied, static_cast<int32_t>(copied.size())), expected);
}

TEST(TopicsJava, HashMapCollisionsKeepInsertionOrderAndTinyTablesGrow) {
  // "Aa" and "BB" share a hashCode, as do their concatenations.
  EXPECT_EQ(java::hash_map_order({"BB", "Aa", "AaAa", "BBBB", "AaBB", "BBAa", "x"}),
            (std::vector<std::string>{"BB", "Aa", "x", "AaAa", "BBBB", "AaBB", "BBAa"}));
  EXPECT_EQ(java::hash_map_order({"z", "y", "x", "w", "v"}, 1),
            (std::vector<std::string>{"x", "y", "z", "v", "w"}));
  EXPECT_EQ(java::hash_map_order({"retention.ms", "segment.bytes", "foo", "bar"}),
            (std::vector<std::string>{"bar", "foo", "retention.ms", "segment.bytes"}));
}

TEST(TopicsJava, HashMapOfIntegersWrapsAroundTheTable) {
  java::hash_order ints;
  for (int32_t i = 14; i < 18; ++i) ints.put(i, static_cast<size_t>(i));
  EXPECT_EQ(ints.order(), (std::vector<size_t>{16, 17, 14, 15}));
  java::hash_order set;
  const int32_t values[] = {33, 1, 17, -1, 16};
  for (size_t i = 0; i < 5; ++i) set.put(values[i], i);
  std::vector<int32_t> got;
  for (size_t i : set.order()) got.push_back(values[i]);
  EXPECT_EQ(got, (std::vector<int32_t>{-1, 16, 33, 1, 17}));
}

TEST(TopicsJava, SplitDropsTrailingEmptiesOnly) {
  EXPECT_EQ(java_split("1,2", ','), (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(java_split("1,,2", ','), (std::vector<std::string>{"1", "", "2"}));
  EXPECT_EQ(java_split("1,2,,", ','), (std::vector<std::string>{"1", "2"}));
  EXPECT_TRUE(java_split(",", ',').empty());
  EXPECT_EQ(java_split("", ','), std::vector<std::string>{""});
  EXPECT_EQ(java_split(",1", ','), (std::vector<std::string>{"", "1"}));
}

TEST(TopicsJava, ParseIntAndTrim) {
  EXPECT_EQ(java_parse_int("42"), 42);
  EXPECT_EQ(java_parse_int("+7"), 7);
  EXPECT_EQ(java_parse_int("-2147483648"), INT32_MIN);
  EXPECT_EQ(java_parse_int("2147483648"), std::nullopt);
  EXPECT_EQ(java_parse_int(" 1"), std::nullopt);
  EXPECT_EQ(java_parse_int("-"), std::nullopt);
  EXPECT_EQ(java_parse_int(""), std::nullopt);
  EXPECT_EQ(number_format_message("a"), "For input string: \"a\"");
  EXPECT_EQ(java_trim("\t a b \n"), "a b");
}

TEST(TopicsJava, UuidFromStringMessages) {
  auto message = [](const std::string& s) {
    protocol::uuid u;
    std::string error;
    return java_uuid_from_string(s, &u, &error) ? "ok " + u.to_string() : error;
  };
  EXPECT_EQ(message("AAAAAAAAAAAAAAAAAAAAAQ"), "ok AAAAAAAAAAAAAAAAAAAAAQ");
  EXPECT_EQ(message("AAAAAAAAAAAAAAAAAAAAAQ=="), "ok AAAAAAAAAAAAAAAAAAAAAQ");
  EXPECT_EQ(message(""),
            "Input string `` decoded as 0 bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID");
  EXPECT_EQ(message("A"), "Input byte[] should at least have 2 bytes for base64 bytes");
  EXPECT_EQ(message("AAA="),
            "Input string `AAA=` decoded as 2 bytes, which is not equal to the expected 16 bytes of a base64-encoded "
            "UUID");
  EXPECT_EQ(message("AA=A"), "Input byte array has wrong 4-byte ending unit");
  EXPECT_EQ(message("AA==A"), "Input byte array has incorrect ending byte at 4");
  EXPECT_EQ(message("A!"), "Illegal base64 character 21");
  EXPECT_EQ(message("A\xc3\xa9"), "Illegal base64 character -17");  // é: a byte above 0x7f
  EXPECT_EQ(message("A\xe2\x82\xac"), "Illegal base64 character 3f");  // €: not ISO-8859-1, sent as '?'
  EXPECT_EQ(message("AAAAAAAAAAAAAAAAAAAAAAAAA"),
            "Input string with prefix `AAAAAAAAAAAAAAAAAAAAAAAA` is too long to be decoded as a base64 UUID");
}

}  // namespace
}  // namespace hw::tools::topics
