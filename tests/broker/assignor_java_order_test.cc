// The Java orders the assignors reproduce: HashMap/HashSet iteration (JDK
// 17), String and Uuid hash codes and comparisons. Expected values are what
// Java 17 and Kafka 4.3.1's Uuid print for the same operations.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "broker/group/consumer/java_group_view.h"
#include "broker/group/consumer/java_hash_map.h"
#include "broker/group/consumer/java_keys.h"
#include "tests/broker/assignor_support.h"

namespace hw::broker::group::consumer {
namespace {

using int_set = java_hash_set<int32_t, java_integer_key>;
using int_map = java_hash_map<int32_t, int, java_integer_key>;

int_set copy_of(const std::vector<int32_t>& list, jdk_release jdk = jdk_release::java17) {
  auto s = int_set::sized_for_copy(list.size(), jdk);
  for (int32_t v : list) s.add(v);
  return s;
}

TEST(AssignorJavaOrder, ACopiedSetKeepsTheListOrderWithinABucket) {
  // new HashSet<>(list) of 10 has 16 buckets: 8 and 24 share bucket 8.
  EXPECT_EQ(copy_of({24, 0, 1, 2, 3, 4, 5, 6, 7, 8}).elements(), (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 24, 8}));
  EXPECT_EQ(copy_of({0, 1, 2, 3, 4, 5, 6, 7, 8, 24}).elements(), (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 24}));
}

TEST(AssignorJavaOrder, JavaNineteenSizesACopyOfTwelveSmaller) {
  // Java 17: 12 / 0.75 + 1 = 17 -> 32 buckets; Java 19 on: 12 / 0.75 = 16.
  std::vector<int32_t> listed{16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(copy_of(listed, jdk_release::java17).elements(),
            (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 16}));
  EXPECT_EQ(copy_of(listed, jdk_release::java19_or_later).elements(),
            (std::vector<int32_t>{16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
}

TEST(AssignorJavaOrder, ComputeIfAbsentPrependsWherePutAppends) {
  int_map computed, put;
  for (int32_t k : {3, 19, 35}) {
    computed.compute_if_absent(k, [] { return 0; });
    put.put(k, 0);
  }
  EXPECT_EQ(computed.keys(), (std::vector<int32_t>{35, 19, 3}));
  EXPECT_EQ(put.keys(), (std::vector<int32_t>{3, 19, 35}));
}

TEST(AssignorJavaOrder, PutGrowsPastThreeQuartersAndSplitsBucketsInOrder) {
  int_set s;
  for (int32_t v : {17, 1, 33, 2, 3, 4, 5, 6, 7, 8, 9, 10}) s.add(v);
  EXPECT_EQ(s.elements(), (std::vector<int32_t>{17, 1, 33, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  s.add(11);  // the 13th key: 32 buckets
  EXPECT_EQ(s.elements(), (std::vector<int32_t>{1, 33, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 17}));
}

TEST(AssignorJavaOrder, ComputeIfAbsentGrowsOnlyAtTheNextCall) {
  int_map m;
  for (int32_t k : {17, 1, 33, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}) m.compute_if_absent(k, [] { return 0; });
  EXPECT_EQ(m.capacity(), 16);
  EXPECT_EQ(m.keys(), (std::vector<int32_t>{33, 1, 17, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  m.compute_if_absent(1, [] { return 0; });  // present, but the table grows first
  EXPECT_EQ(m.capacity(), 32);
  EXPECT_EQ(m.keys(), (std::vector<int32_t>{33, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 17}));
}

TEST(AssignorJavaOrder, AnInitialCapacityIsRoundedUpAndSmallTablesGrowEarly) {
  int_map m(3);  // 4 buckets, grows past 3 keys
  for (int32_t k : {5, 1, 9, 13}) m.put(k, 0);
  EXPECT_EQ(m.capacity(), 8);
  EXPECT_EQ(m.keys(), (std::vector<int32_t>{1, 9, 5, 13}));
}

TEST(AssignorJavaOrder, ACrowdedBucketInASmallTableDoublesIt) {
  int_set s;
  for (int32_t i = 0; i < 9; ++i) s.add(i * 16 + 5);
  EXPECT_EQ(s.elements(), (std::vector<int32_t>{5, 37, 69, 101, 133, 21, 53, 85, 117}));
}

TEST(AssignorJavaOrder, RemovalKeepsTheOthersInPlace) {
  int_set s = copy_of({24, 0, 8, 40});
  EXPECT_TRUE(s.erase(24));
  EXPECT_FALSE(s.erase(24));
  EXPECT_EQ(s.elements(), (std::vector<int32_t>{0, 8, 40}));
  s.add(24);
  EXPECT_EQ(s.elements(), (std::vector<int32_t>{0, 8, 40, 24}));
}

TEST(AssignorJavaOrder, StringHashesAndOrdersAreOverUtf16) {
  EXPECT_EQ(java_string_hash("m1"), 3428);
  EXPECT_EQ(java_string_hash("mA"), 3444);
  EXPECT_EQ(java_string_hash("polygenelubricants"), INT32_MIN);
  EXPECT_LT(java_string_compare("m10", "m2"), 0);
  EXPECT_EQ(java_string_compare("m2", "m2"), 0);
  EXPECT_LT(java_string_compare("m", "m2"), 0);
  // U+E000 is one unit 0xE000; U+1F600 is 0xD83D 0xDE00, which Java puts
  // first, where its UTF-8 bytes (F0 ...) sort after U+E000's (EE ...).
  EXPECT_GT(java_string_compare("\xee\x80\x80", "\xf0\x9f\x98\x80"), 0);
}

TEST(AssignorJavaOrder, MembersIterateInTheirMapsOrder) {
  // "m1" and "mA" share a bucket; "m2" is in the next one.
  group_spec g;
  for (const char* id : {"mA", "m2", "m1"}) g.members.push_back(testing::member(id, {}));
  std::vector<std::string> order;
  for (const member_spec* m : members_in_java_order(g)) order.push_back(m->member_id);
  EXPECT_EQ(order, (std::vector<std::string>{"mA", "m1", "m2"}));
}

protocol::uuid uuid_of(int64_t most, int64_t least) {
  protocol::uuid u;
  for (int i = 0; i < 8; ++i) {
    u.bytes[static_cast<size_t>(i)] = static_cast<uint8_t>(static_cast<uint64_t>(most) >> (56 - 8 * i));
    u.bytes[static_cast<size_t>(8 + i)] = static_cast<uint8_t>(static_cast<uint64_t>(least) >> (56 - 8 * i));
  }
  return u;
}

TEST(AssignorJavaOrder, UuidHashesAndComparesAsKafkasUuid) {
  auto a = uuid_of(static_cast<int64_t>(0x8000000000000001ULL), 5);
  auto b = uuid_of(1, static_cast<int64_t>(0x80000000FFFFFFFFULL));
  EXPECT_EQ(a.to_string(), "gAAAAAAAAAEAAAAAAAAABQ");
  EXPECT_EQ(b.to_string(), "AAAAAAAAAAGAAAAA_____w");
  EXPECT_EQ(java_uuid_hash(a), -2147483644);
  EXPECT_EQ(java_uuid_hash(b), 2147483646);
  // Signed: a's negative most significant half sorts first; bytewise it
  // would sort last.
  EXPECT_LT(java_uuid_compare(a, b), 0);
  EXPECT_GT(java_uuid_compare(b, a), 0);
  EXPECT_GT(a, b);
  EXPECT_EQ(java_uuid_hash(testing::topic(7)), 268435463);
}

}  // namespace
}  // namespace hw::broker::group::consumer
