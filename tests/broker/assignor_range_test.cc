// The range assignor on hand-made groups, each expectation worked out from
// what Kafka 4.3.1's server-side RangeAssignor does.

#include <gtest/gtest.h>

#include "tests/broker/assignor_support.h"

namespace hw::broker::group::consumer {
namespace {

using testing::answer_of;
using testing::error_of;
using testing::group_of;
using testing::member;
using testing::topic;

const protocol::uuid t1 = topic(1), t2 = topic(2), t3 = topic(3);

assignment_result range(const group_spec& g, const topic_describer& topics) {
  return testing::run_assignor("range", g, topics);
}

member_spec static_member(std::string id, std::string instance, std::vector<protocol::uuid> topics) {
  member_spec m = member(std::move(id), std::move(topics));
  m.instance_id = std::move(instance);
  return m;
}

TEST(AssignorRange, AnEmptyGroupGetsAnEmptyAnswer) {
  partition_count_map topics({{t1, 3}});
  EXPECT_TRUE(answer_of(range(group_spec{}, topics)).members.empty());
}

TEST(AssignorRange, EqualTopicsAreCoPartitioned) {
  partition_count_map topics({{t1, 3}, {t2, 3}});
  auto answer = answer_of(range(group_of({member("m1", {t1, t2}), member("m2", {t1, t2})}), topics));
  EXPECT_EQ(answer.members["m1"], (topic_partitions{{t1, {0, 1}}, {t2, {0, 1}}}));
  EXPECT_EQ(answer.members["m2"], (topic_partitions{{t1, {2}}, {t2, {2}}}));
}

TEST(AssignorRange, StaticMembersComeFirstByInstanceIdThenMemberIds) {
  // 5 partitions for 3: the first two take the extras.
  partition_count_map topics({{t1, 5}});
  auto answer = answer_of(range(
      group_of({member("a-dynamic", {t1}), static_member("m1", "i-b", {t1}), static_member("m2", "i-a", {t1})}),
      topics));
  EXPECT_EQ(answer.members["m2"], (topic_partitions{{t1, {0, 1}}}));
  EXPECT_EQ(answer.members["m1"], (topic_partitions{{t1, {2, 3}}}));
  EXPECT_EQ(answer.members["a-dynamic"], (topic_partitions{{t1, {4}}}));
}

TEST(AssignorRange, MemberIdsSortAsJavaStrings) {
  partition_count_map topics({{t1, 2}});
  auto answer = answer_of(range(group_of({member("m2", {t1}), member("m10", {t1})}), topics));
  EXPECT_EQ(answer.members["m10"], (topic_partitions{{t1, {0}}}));
  EXPECT_EQ(answer.members["m2"], (topic_partitions{{t1, {1}}}));
}

TEST(AssignorRange, MembersBeyondThePartitionCountGetNothingButAreAnswered) {
  partition_count_map topics({{t1, 2}});
  auto answer = answer_of(range(group_of({member("m1", {t1}), member("m2", {t1}), member("m3", {t1})}), topics));
  EXPECT_EQ(answer.members["m1"], (topic_partitions{{t1, {0}}}));
  EXPECT_EQ(answer.members["m2"], (topic_partitions{{t1, {1}}}));
  ASSERT_TRUE(answer.members.contains("m3"));
  EXPECT_TRUE(answer.members["m3"].empty());
  EXPECT_TRUE(answer.listings["m3"].empty());
}

TEST(AssignorRange, HeterogeneousTopicsAreCutAmongTheirOwnSubscribers) {
  partition_count_map topics({{t1, 2}, {t2, 4}, {t3, 3}});
  auto answer = answer_of(
      range(group_of({member("m1", {t1, t2}), member("m2", {t2, t3}), member("m3", {t3})}), topics));
  EXPECT_EQ(answer.members["m1"], (topic_partitions{{t1, {0, 1}}, {t2, {0, 1}}}));
  EXPECT_EQ(answer.members["m2"], (topic_partitions{{t2, {2, 3}}, {t3, {0, 1}}}));
  EXPECT_EQ(answer.members["m3"], (topic_partitions{{t3, {2}}}));
}

TEST(AssignorRange, TheCurrentAssignmentPlaysNoPart) {
  partition_count_map topics({{t1, 4}});
  auto answer = answer_of(
      range(group_of({member("m1", {t1}, {{t1, {2, 3}}}), member("m2", {t1}, {{t1, {0, 1}}})}), topics));
  EXPECT_EQ(answer.members["m1"], (topic_partitions{{t1, {0, 1}}}));
  EXPECT_EQ(answer.members["m2"], (topic_partitions{{t1, {2, 3}}}));
}

TEST(AssignorRange, ATopicTheMetadataDoesNotKnowFailsTheAssignment) {
  partition_count_map topics({{t1, 4}});
  EXPECT_EQ(error_of(range(group_of({member("m1", {t1, t2}), member("m2", {t1, t2})}), topics)),
            "Member is subscribed to a non-existent topic");
  EXPECT_EQ(error_of(range(group_of({member("m1", {t1}), member("m2", {t2})}), topics)),
            "Member is subscribed to a non-existent topic");
}

TEST(AssignorRange, ListingsFollowTheAnswersHashMapWithAscendingRanges) {
  // The member's map is sized for its three topics (8 buckets): topic 9 and
  // topic 1 share bucket 1, in subscription order, before topic 2.
  partition_count_map topics({{topic(9), 2}, {t2, 2}, {t1, 3}});
  auto answer = answer_of(range(group_of({member("m1", {topic(9), t2, t1})}), topics));
  EXPECT_EQ(answer.listings["m1"], (partition_listing{{topic(9), {0, 1}}, {t1, {0, 1, 2}}, {t2, {0, 1}}}));
}

}  // namespace
}  // namespace hw::broker::group::consumer
