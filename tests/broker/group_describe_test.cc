// ConsumerGroupDescribe's view of a consumer group.
#include "broker/group/consumer/describe.h"

#include <gtest/gtest.h>

#include "tests/broker/consumer_group_support.h"

namespace hw::broker::group::consumer {
namespace {

using testing::topic_map_image;
const auto topic = testing::topic_id_of;

// orders (topic 1, four partitions); topic 9 was deleted.
topic_map_image orders_image() {
  topic_map_image image;
  image.add("orders", 1, 4);
  return image;
}

void replay(consumer_group& g, const consumer_group_record& r) { ASSERT_FALSE(g.replay(r)); }

consumer_group two_members() {
  consumer_group g("g");
  group_epoch_record epoch;
  epoch.key.group_id = "g";
  epoch.value.emplace();
  epoch.value->epoch = 3;
  replay(g, epoch);
  for (const auto* id : {"a", "b"}) {
    member_metadata_record m;
    m.key.group_id = "g";
    m.key.member_id = id;
    m.value.emplace();
    m.value->client_id = std::string("client-") + id;
    m.value->client_host = "/10.0.0.1";
    m.value->subscribed_topic_names = {"orders"};
    m.value->server_assignor = std::string(id) == "a" ? std::optional<std::string>("range") : std::nullopt;
    m.value->instance_id = std::string(id) == "b" ? std::optional<std::string>("static-b") : std::nullopt;
    // A member of the consumer protocol (a value's default, as in Kafka's
    // generated class, is a classic member's empty metadata).
    m.value->classic_member_metadata.reset();
    replay(g, m);
  }
  // a holds 0 and 1, is giving 1 up and keeps 0 (target 0, 2); b waits for 1 and 3.
  current_assignment_record a;
  a.key.group_id = "g";
  a.key.member_id = "a";
  a.value.emplace();
  a.value->member_epoch = 2;
  a.value->previous_member_epoch = 1;
  a.value->state = 1;
  a.value->assigned_partitions.emplace_back().topic_id = topic(1);
  a.value->assigned_partitions[0].partitions = {0};
  a.value->assigned_partitions.emplace_back().topic_id = topic(9);
  a.value->assigned_partitions[1].partitions = {5};
  a.value->partitions_pending_revocation.emplace_back().topic_id = topic(1);
  a.value->partitions_pending_revocation[0].partitions = {1};
  replay(g, a);
  for (const auto& [id, parts] : std::map<std::string, std::set<int32_t>>{{"a", {0, 2}}, {"b", {1, 3}}}) {
    target_assignment_member_record t;
    t.key.group_id = "g";
    t.key.member_id = id;
    topic_partitions target{{topic(1), parts}};
    t.value = to_value(target);
    replay(g, t);
  }
  target_assignment_epoch_record te;
  te.key.group_id = "g";
  te.value.emplace();
  te.value->assignment_epoch = 3;
  replay(g, te);
  return g;
}

TEST(Describe, AGroupMidRebalance) {
  const auto g = two_members();
  const auto d = describe(g, "uniform", orders_image());
  EXPECT_EQ(d.group_id, "g");
  EXPECT_EQ(d.group_state, "Reconciling");
  EXPECT_EQ(d.group_epoch, 3);
  EXPECT_EQ(d.assignment_epoch, 3);
  EXPECT_EQ(d.assignor_name, "range");  // the one member that asks names it
  ASSERT_EQ(d.members.size(), 2u);
  const auto& a = d.members[0];
  EXPECT_EQ(a.member_id, "a");
  EXPECT_EQ(a.member_epoch, 2);
  EXPECT_EQ(a.client_id, "client-a");
  EXPECT_EQ(a.client_host, "/10.0.0.1");
  EXPECT_EQ(a.subscribed_topic_names, std::vector<std::string>{"orders"});
  EXPECT_EQ(a.subscribed_topic_regex, std::optional<std::string>(""));  // Kafka's "" for none
  EXPECT_EQ(a.member_type, 1);
  // What a holds: 0 and the 1 it is still giving up; the deleted topic is left out.
  ASSERT_EQ(a.assignment.topic_partitions.size(), 1u);
  EXPECT_EQ(a.assignment.topic_partitions[0].topic_name, "orders");
  EXPECT_EQ(a.assignment.topic_partitions[0].partitions, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(a.target_assignment.topic_partitions[0].partitions, (std::vector<int32_t>{0, 2}));
  const auto& b = d.members[1];
  EXPECT_EQ(b.instance_id, std::optional<std::string>("static-b"));
  EXPECT_EQ(b.member_epoch, 0);
  EXPECT_TRUE(b.assignment.topic_partitions.empty());
  EXPECT_EQ(b.target_assignment.topic_partitions[0].partitions, (std::vector<int32_t>{1, 3}));
}

TEST(Describe, TheDefaultAssignorWhenNoMemberAsks) {
  consumer_group g("empty");
  EXPECT_EQ(preferred_assignor(g, "uniform"), "uniform");
  const auto d = describe(g, "uniform", orders_image());
  EXPECT_EQ(d.group_state, "Empty");
  EXPECT_EQ(d.group_epoch, 1);  // a new group's, as Kafka 4.3 starts them
  EXPECT_EQ(d.assignment_epoch, 1);
  EXPECT_TRUE(d.members.empty());
}

}  // namespace
}  // namespace hw::broker::group::consumer
