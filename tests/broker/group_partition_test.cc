#include "broker/group/group_partition.h"

#include <gtest/gtest.h>

namespace hw::broker::group {
namespace {

TEST(GroupPartition, JavaStringHashCodeOverUtf16) {
  EXPECT_EQ(java_string_hash(""), 0);
  EXPECT_EQ(java_string_hash("a"), 97);
  EXPECT_EQ(java_string_hash("golden-group"), -1429646149);
  EXPECT_EQ(java_string_hash("\xc3\xa9"), 233);  // é: one UTF-16 unit
  // 😀 is a surrogate pair in Java: 31 * 0xD83D + 0xDE00.
  EXPECT_EQ(java_string_hash("\xf0\x9f\x98\x80"), 31 * 0xD83D + 0xDE00);
}

TEST(GroupPartition, AbsNegatesAndMapsTheMinimumToZero) {
  // The classic string whose hashCode is Integer.MIN_VALUE: Utils.abs
  // gives 0 where Math.abs would stay negative.
  EXPECT_EQ(java_string_hash("polygenelubricants"), INT32_MIN);
  EXPECT_EQ(group_partition("polygenelubricants", 50), 0);
  // A negative hash is negated, not masked: "my-group" hashes to
  // -1906497762, and Kafka 4.3 (Math.abs, checked with jshell) puts it on
  // partition 12, where masking the sign bit would give 36.
  EXPECT_EQ(kafka_abs(-1906497762), 1906497762);
  EXPECT_EQ(group_partition("my-group", 50), 12);
}

TEST(GroupPartition, ModuloOffsetsTopicPartitions) {
  EXPECT_EQ(group_partition("golden-group", 50), 49);
  EXPECT_EQ(group_partition("my-group", 50), 12);
  EXPECT_EQ(group_partition("console-consumer-12345", 50), 6);
  EXPECT_EQ(group_partition("a", 50), 47);
  EXPECT_EQ(group_partition("golden-group", 1), 0);
}

}  // namespace
}  // namespace hw::broker::group
