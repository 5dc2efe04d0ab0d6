// The uniform assignor on hand-made groups, each expectation worked out from
// what Kafka 4.3.1's UniformAssignor does. Topic k and members "m1".."m9"
// iterate in ascending order in Java's maps (assignor_support.h).

#include <gtest/gtest.h>

#include "tests/broker/assignor_support.h"

namespace hw::broker::group::consumer {
namespace {

using testing::answer_of;
using testing::error_of;
using testing::group_of;
using testing::member;
using testing::range_of;
using testing::topic;

const protocol::uuid t1 = topic(1), t2 = topic(2);

assignment_result uniform(const group_spec& g, const topic_describer& topics) {
  return testing::run_assignor("uniform", g, topics);
}

TEST(AssignorUniform, AnEmptyGroupGetsAnEmptyAnswer) {
  partition_count_map topics({{t1, 3}});
  EXPECT_TRUE(answer_of(uniform(group_spec{}, topics)).members.empty());
}

TEST(AssignorUniform, MembersSubscribedToNothingAreLeftOut) {
  partition_count_map topics({{t1, 3}});
  auto answer = answer_of(uniform(group_of({member("m1", {}), member("m2", {})}), topics));
  EXPECT_TRUE(answer.members.empty());
}

TEST(AssignorUniform, ANewGroupIsBalancedAndTheLastMembersTakeTheExtras) {
  // 7 partitions for 3 members: 2 each and one extra. Nobody holds
  // anything, so the first two give up the extra and the last takes it.
  partition_count_map topics({{t1, 7}});
  auto answer = answer_of(uniform(group_of({member("m1", {t1}), member("m2", {t1}), member("m3", {t1})}), topics));
  EXPECT_EQ(answer.members["m1"], (topic_partitions{{t1, {0, 1}}}));
  EXPECT_EQ(answer.members["m2"], (topic_partitions{{t1, {2, 3}}}));
  EXPECT_EQ(answer.members["m3"], (topic_partitions{{t1, {4, 5, 6}}}));
}

TEST(AssignorUniform, AJoiningMemberTakesOnlyWhatTheOthersMustGiveUp) {
  // 7 partitions for 4 members: 1 each and 3 extras, which the first three
  // keep since they already hold two; m3 gives up its third.
  partition_count_map topics({{t1, 7}});
  auto answer = answer_of(uniform(group_of({member("m1", {t1}, {{t1, {0, 1}}}), member("m2", {t1}, {{t1, {2, 3}}}),
                                            member("m3", {t1}, {{t1, {4, 5, 6}}}), member("m4", {t1})}),
                                  topics));
  EXPECT_EQ(answer.members["m1"], (topic_partitions{{t1, {0, 1}}}));
  EXPECT_EQ(answer.members["m2"], (topic_partitions{{t1, {2, 3}}}));
  EXPECT_EQ(answer.members["m3"], (topic_partitions{{t1, {4, 5}}}));
  EXPECT_EQ(answer.members["m4"], (topic_partitions{{t1, {6}}}));
  EXPECT_EQ(answer.listings["m4"], (partition_listing{{t1, {6}}}));
}

TEST(AssignorUniform, ALeavingMembersPartitionsGoToTheLastMemberWithRoom) {
  // m2 left holding {2, 3}. 7 partitions for 3: the one extra goes to the
  // last member, which takes both free partitions.
  partition_count_map topics({{t1, 7}});
  auto answer = answer_of(uniform(group_of({member("m1", {t1}, {{t1, {0, 1}}}), member("m3", {t1}, {{t1, {4, 5}}}),
                                            member("m4", {t1}, {{t1, {6}}})}),
                                  topics));
  EXPECT_EQ(answer.members["m1"], (topic_partitions{{t1, {0, 1}}}));
  EXPECT_EQ(answer.members["m3"], (topic_partitions{{t1, {4, 5}}}));
  EXPECT_EQ(answer.members["m4"], (topic_partitions{{t1, {2, 3, 6}}}));
}

TEST(AssignorUniform, NewPartitionsGoToTheMembersBelowTheirShare) {
  partition_count_map topics({{t1, 6}});
  auto answer = answer_of(
      uniform(group_of({member("m1", {t1}, {{t1, {0, 1}}}), member("m2", {t1}, {{t1, {2, 3}}})}), topics));
  EXPECT_EQ(answer.members["m1"], (topic_partitions{{t1, {0, 1, 4}}}));
  EXPECT_EQ(answer.members["m2"], (topic_partitions{{t1, {2, 3, 5}}}));
  // The kept partitions come first, the new one is added after them.
  EXPECT_EQ(answer.listings["m1"], (partition_listing{{t1, {0, 1, 4}}}));
}

TEST(AssignorUniform, ADeletedTopicIsDropped) {
  // t2 was deleted: the subscriptions no longer name it and the metadata no
  // longer knows it.
  partition_count_map topics({{t1, 4}});
  auto answer = answer_of(uniform(group_of({member("m1", {t1}, {{t1, {0, 1}}, {t2, {0, 1}}}),
                                            member("m2", {t1}, {{t1, {2, 3}}, {t2, {2, 3}}})}),
                                  topics));
  EXPECT_EQ(answer.members["m1"], (topic_partitions{{t1, {0, 1}}}));
  EXPECT_EQ(answer.members["m2"], (topic_partitions{{t1, {2, 3}}}));
}

TEST(AssignorUniform, ASubscribedTopicTheMetadataDoesNotKnowFailsTheAssignment) {
  partition_count_map topics({{t1, 4}});
  EXPECT_EQ(error_of(uniform(group_of({member("m1", {t1, t2}), member("m2", {t1, t2})}), topics)),
            "Members are subscribed to topic " + t2.to_string() + " which doesn't exist in the topic metadata.");
  EXPECT_EQ(error_of(uniform(group_of({member("m1", {t1}), member("m2", {t2})}), topics)),
            "Members are subscribed to topic " + t2.to_string() + " which doesn't exist in the topic metadata.");
}

TEST(AssignorUniform, TheRecordsOrderDecidesWhichPartitionAMemberKeeps) {
  // m1 holds ten partitions of 27 and may keep nine. In its HashSet of 16
  // buckets, 8 and 24 share bucket 8, after 0..7: whichever its record
  // listed first is kept, the other goes to the last member with room.
  partition_count_map topics({{t1, 27}});
  auto held = member("m1", {t1}, {{t1, {0, 1, 2, 3, 4, 5, 6, 7, 8, 24}}});
  auto as_listed = [&](std::vector<int32_t> listing) {
    member_spec m = held;
    m.assignment_listing = partition_listing{{t1, std::move(listing)}};
    return answer_of(uniform(group_of({m, member("m2", {t1}), member("m3", {t1})}), topics));
  };
  auto ascending = as_listed({0, 1, 2, 3, 4, 5, 6, 7, 8, 24});
  EXPECT_EQ(ascending.members["m1"], (topic_partitions{{t1, range_of(0, 9)}}));
  EXPECT_EQ(ascending.members["m2"], (topic_partitions{{t1, range_of(9, 18)}}));
  EXPECT_EQ(ascending.members["m3"], (topic_partitions{{t1, range_of(18, 27)}}));

  auto listed_24_first = as_listed({24, 0, 1, 2, 3, 4, 5, 6, 7, 8});
  std::set<int32_t> m1 = range_of(0, 8), m3 = range_of(18, 27);
  m1.insert(24);
  m3.erase(24);
  m3.insert(8);
  EXPECT_EQ(listed_24_first.members["m1"], (topic_partitions{{t1, m1}}));
  EXPECT_EQ(listed_24_first.members["m2"], (topic_partitions{{t1, range_of(9, 18)}}));
  EXPECT_EQ(listed_24_first.members["m3"], (topic_partitions{{t1, m3}}));
}

TEST(AssignorUniform, MembersSharingABucketGoInTheOrderTheyWereAdded) {
  // "m1" and "mA" share a bucket of Java's member map: the first added
  // gives up the extra partition, the second takes it.
  partition_count_map topics({{t1, 3}});
  auto m1_first = answer_of(uniform(group_of({member("m1", {t1}), member("mA", {t1})}), topics));
  EXPECT_EQ(m1_first.members["m1"], (topic_partitions{{t1, {0}}}));
  EXPECT_EQ(m1_first.members["mA"], (topic_partitions{{t1, {1, 2}}}));
  auto ma_first = answer_of(uniform(group_of({member("mA", {t1}), member("m1", {t1})}), topics));
  EXPECT_EQ(ma_first.members["mA"], (topic_partitions{{t1, {0}}}));
  EXPECT_EQ(ma_first.members["m1"], (topic_partitions{{t1, {1, 2}}}));
}

TEST(AssignorUniform, HeterogeneousSubscriptionsBalanceEachTopicAmongItsSubscribers) {
  // t1 and t2 tie on partitions per subscriber and subscribers, so t1 (the
  // smaller id) goes first: m1 and m2 alternate on it. m3 then takes t2's
  // first three partitions before m1, already at two, takes the last.
  partition_count_map topics({{t1, 4}, {t2, 4}});
  auto answer = answer_of(
      uniform(group_of({member("m1", {t1, t2}), member("m2", {t1}), member("m3", {t2})}), topics));
  EXPECT_EQ(answer.members["m1"], (topic_partitions{{t1, {0, 2}}, {t2, {3}}}));
  EXPECT_EQ(answer.members["m2"], (topic_partitions{{t1, {1, 3}}}));
  EXPECT_EQ(answer.members["m3"], (topic_partitions{{t2, {0, 1, 2}}}));
}

TEST(AssignorUniform, HeterogeneousMembersKeepWhatTheyStillSubscribeTo) {
  // m2 stops subscribing to t1 and m3 joins on t2. m2's t1 partition goes to
  // m1, t1's only subscriber. Balancing t2 weighs each member's whole load:
  // m1, at five with t1, gives m3 its highest t2 partitions until the three
  // are within one (3, 3, 2).
  partition_count_map topics({{t1, 2}, {t2, 6}});
  auto answer = answer_of(uniform(group_of({member("m1", {t1, t2}, {{t1, {0}}, {t2, {0, 1, 2}}}),
                                            member("m2", {t2}, {{t1, {1}}, {t2, {3, 4, 5}}}), member("m3", {t2})}),
                                  topics));
  EXPECT_EQ(answer.members["m1"], (topic_partitions{{t1, {0, 1}}, {t2, {0}}}));
  EXPECT_EQ(answer.members["m2"], (topic_partitions{{t2, {3, 4, 5}}}));
  EXPECT_EQ(answer.members["m3"], (topic_partitions{{t2, {1, 2}}}));
}

TEST(AssignorUniform, AHeldPartitionBeyondItsTopicIsAnErrorNotACrash) {
  // Partitions never shrink, so Kafka never sees this; its heterogeneous
  // builder would fail on an array index.
  partition_count_map topics({{t1, 2}, {t2, 2}});
  EXPECT_EQ(error_of(uniform(group_of({member("m1", {t1}, {{t1, {5}}}), member("m2", {t2})}), topics)),
            "Member m1 holds partition 5 of topic " + t1.to_string() + " beyond its partition count");
}

TEST(AssignorUniform, HeterogeneousWithoutKnownTopicsAnswersNobody) {
  partition_count_map topics;
  group_spec g = group_of({member("m1", {}), member("m2", {})});
  g.subscription = subscription_type::heterogeneous;
  EXPECT_TRUE(answer_of(uniform(g, topics)).members.empty());
}

TEST(AssignorUniform, TheFactoryKnowsBothNames) {
  EXPECT_EQ(make_assignor("uniform")->name(), "uniform");
  EXPECT_EQ(make_assignor("range")->name(), "range");
  EXPECT_EQ(make_assignor("sticky"), nullptr);
  EXPECT_EQ(make_assignor("Uniform"), nullptr);
}

}  // namespace
}  // namespace hw::broker::group::consumer
