// A consumer group rebuilt from the records Kafka 4.3.1 wrote for it
// (fixtures/consumer_group_records_4_3.txt: two members subscribed to
// ^cap-.*, a static member to other and cap-b; one regex member leaves, a
// third cap- topic appears, the other regex member leaves, the static member
// leaves temporarily), and the group's replay rules on their own.
#include "broker/group/consumer/consumer_group.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "broker/group/group_records.h"
#include "tests/broker/golden_records.h"

namespace hw::broker::group::consumer {
namespace {

// The fixture's consumer-group records, in log order.
std::vector<consumer_group_record> kafkas_records() {
  std::vector<consumer_group_record> out;
  for (const auto& g : testing::read_golden("consumer_group_records_4_3.txt")) {
    auto d = decode_record(g.key, g.value ? std::optional<byte_view>(*g.value) : std::nullopt);
    EXPECT_TRUE(d.has_value()) << "offset " << g.offset;
    if (!d) continue;
    if (auto* c = std::get_if<consumer_group_record>(&*d)) out.push_back(std::move(*c));
  }
  return out;
}

// Every partition a member holds is held at its epoch in the group's map, and no other.
void expect_consistent(const consumer_group& g) {
  size_t held = 0;
  for (const auto& [id, m] : g.members()) {
    for (const auto* list : {&m.current.assigned, &m.current.pending_revocation}) {
      for (const auto& [topic, partitions] : *list) {
        for (const auto& [p, epoch] : partitions) {
          ++held;
          EXPECT_EQ(g.current_partition_epochs().owner_epoch(topic, p), m.current.epoch) << id << " " << p;
        }
      }
    }
  }
  size_t mapped = 0;
  for (const auto& [topic, partitions] : g.current_partition_epochs().all()) mapped += partitions.size();
  EXPECT_EQ(mapped, held);
}

TEST(ConsumerGroup, RebuiltFromKafkasRecords) {
  consumer_group g("cg-capture");
  std::vector<consumer_group_state> states;
  for (const auto& r : kafkas_records()) {
    auto error = g.replay(r);
    ASSERT_FALSE(error.has_value()) << *error;
    expect_consistent(g);
    if (states.empty() || states.back() != g.state()) states.push_back(g.state());
  }
  // At the end only the static member is left, away (-2) but still holding its partitions.
  ASSERT_EQ(g.members().size(), 1u);
  const auto& [id, member] = *g.members().begin();
  EXPECT_EQ(member.subscription.instance_id, std::optional<std::string>("static-1"));
  EXPECT_EQ(member.subscription.rack_id, std::optional<std::string>("rack-1"));
  EXPECT_EQ(member.subscription.subscribed_topic_names, (std::set<std::string>{"cap-b", "other"}));
  EXPECT_EQ(member.current.epoch, leave_group_static_epoch);
  EXPECT_FALSE(member.current.assigned.empty());
  ASSERT_NE(g.static_member_id("static-1"), nullptr);
  EXPECT_EQ(*g.static_member_id("static-1"), id);
  EXPECT_EQ(g.group_epoch(), 7);
  EXPECT_TRUE(g.resolved_regexes().empty());  // removed once no member subscribed to it
  EXPECT_EQ(g.target_assignment().size(), 1u);
  EXPECT_EQ(g.subscribed_topics().size(), 2u);
  EXPECT_TRUE(g.homogeneous_subscriptions());
  // The group went through every state but Dead on the way.
  for (auto s : {consumer_group_state::assigning, consumer_group_state::reconciling, consumer_group_state::stable})
    EXPECT_NE(std::find(states.begin(), states.end(), s), states.end()) << to_string(s);
}

TEST(ConsumerGroup, RecordsOfAMemberRoundTrip) {
  for (const auto& r : kafkas_records()) {
    if (auto* m = std::get_if<member_metadata_record>(&r); m && m->value) {
      EXPECT_EQ(to_value(subscription_from(*m->value)), *m->value);
    }
    if (auto* a = std::get_if<current_assignment_record>(&r); a && a->value) {
      // Kafka 4.3 writes every partition's assignment epoch.
      auto back = to_value(assignment_from(*a->value));
      EXPECT_EQ(back.member_epoch, a->value->member_epoch);
      EXPECT_EQ(back.assigned_partitions.size(), a->value->assigned_partitions.size());
      EXPECT_EQ(assignment_from(back), assignment_from(*a->value));
    }
    if (auto* t = std::get_if<target_assignment_member_record>(&r); t && t->value) {
      EXPECT_EQ(target_from(to_value(target_from(*t->value))), target_from(*t->value));
    }
  }
}

TEST(ConsumerGroup, AssignmentsWithoutEpochsAreHeldAtTheRecordsEpoch) {
  msg::consumer_group_current_member_assignment_value v;
  v.member_epoch = 5;
  auto& tp = v.assigned_partitions.emplace_back();
  tp.topic_id.bytes[0] = 1;
  tp.partitions = {0, 1};
  EXPECT_EQ(epoch_of(assignment_from(v).assigned, tp.topic_id, 1), member_epoch{5});
  v.member_epoch = -2;  // a static member away: held from epoch 0
  EXPECT_EQ(epoch_of(assignment_from(v).assigned, tp.topic_id, 1), member_epoch{0});
  tp.assignment_epochs = std::vector<int32_t>{3};  // not one per partition: ignored
  v.assigned_partitions[0] = tp;
  v.member_epoch = 4;
  EXPECT_EQ(epoch_of(assignment_from(v).assigned, tp.topic_id, 0), member_epoch{4});
}

consumer_group_record member_record(const std::string& id) {
  member_metadata_record r;
  r.key.group_id = "g";
  r.key.member_id = id;
  r.value.emplace();
  r.value->client_id = "c";
  r.value->subscribed_topic_names = {"t"};
  return r;
}

consumer_group_record assignment_record(const std::string& id, int32_t epoch, std::vector<int32_t> partitions) {
  current_assignment_record r;
  r.key.group_id = "g";
  r.key.member_id = id;
  r.value.emplace();
  r.value->member_epoch = epoch;
  r.value->previous_member_epoch = epoch - 1;
  auto& tp = r.value->assigned_partitions.emplace_back();
  tp.topic_id.bytes[15] = 7;
  tp.partitions = std::move(partitions);
  return r;
}

TEST(ConsumerGroup, RefusesRecordsThatBreakItsInvariants) {
  consumer_group g("g");
  ASSERT_FALSE(g.replay(member_record("a")));
  ASSERT_FALSE(g.replay(assignment_record("a", 3, {0, 1})));
  ASSERT_FALSE(g.replay(member_record("b")));
  // b cannot hold a partition a holds at the same epoch; nothing changes.
  auto error = g.replay(assignment_record("b", 3, {1}));
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->find("still owned at epoch 3"), std::string::npos) << *error;
  EXPECT_TRUE(g.member("b")->current.assigned.empty());
  // A member's metadata cannot be deleted while it still holds an assignment.
  member_metadata_record gone;
  gone.key.group_id = "g";
  gone.key.member_id = "a";
  error = g.replay(gone);
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->find("did not receive ConsumerGroupCurrentMemberAssignmentValue tombstone"), std::string::npos);
  // Nor the group while it has members.
  group_epoch_record dead;
  dead.key.group_id = "g";
  EXPECT_TRUE(g.replay(dead).has_value());
  EXPECT_FALSE(g.deleted());
  // Once a's assignment and metadata are gone, b can take the partition.
  current_assignment_record cleared;
  cleared.key.group_id = "g";
  cleared.key.member_id = "a";
  ASSERT_FALSE(g.replay(cleared));
  ASSERT_FALSE(g.replay(gone));
  EXPECT_EQ(g.member("a"), nullptr);
  ASSERT_FALSE(g.replay(assignment_record("b", 3, {1})));
  expect_consistent(g);
}

}  // namespace
}  // namespace hw::broker::group::consumer
