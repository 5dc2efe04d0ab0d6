// ConsumerGroupHeartbeat through the consumer group manager: members join,
// are reconciled without ever sharing a partition, leave or time out; the
// records it writes rebuild the same groups; refusals carry Kafka's codes
// and messages.
#include "broker/group/consumer/consumer_group_manager.h"

#include <gtest/gtest.h>

#include "tests/broker/consumer_group_support.h"

namespace hw::broker::group::consumer {
namespace {

using protocol::error_code;
using request = protocol::msg::consumer_group_heartbeat_request;
using testing::topic_map_image;

struct harness {
  consumer_group_manager manager{consumer_group_options{}};
  topic_map_image topics;
  int64_t now = 1000;
  int next_id = 0;
  std::vector<consumer_group_record> written;

  harness() { topics.add("orders", 1, 4); }

  heartbeat_outcome beat(const request& r) {
    auto out = manager.heartbeat(r, 1, "client", "/127.0.0.1", topics, now,
                                 [this] { return "generated-" + std::to_string(++next_id); });
    written.insert(written.end(), out.records.begin(), out.records.end());
    return out;
  }
};

request join(const std::string& member_id, std::vector<std::string> topics = {"orders"}) {
  request r;
  r.group_id = "g";
  r.member_id = member_id;
  r.member_epoch = 0;
  r.rebalance_timeout_ms = 60000;
  r.subscribed_topic_names = std::move(topics);
  r.topic_partitions.emplace();
  return r;
}

// A heartbeat saying the member owns `owned` (what its last answer gave it).
request beat(const std::string& member_id, int32_t epoch, const std::set<int32_t>& owned) {
  request r;
  r.group_id = "g";
  r.member_id = member_id;
  r.member_epoch = epoch;
  r.topic_partitions.emplace();
  auto& tp = r.topic_partitions->emplace_back();
  tp.topic_id = testing::topic_id_of(1);
  tp.partitions = {owned.begin(), owned.end()};
  return r;
}

std::set<int32_t> assigned(const heartbeat_outcome& out) {
  std::set<int32_t> parts;
  if (!out.response.assignment) return parts;
  for (const auto& tp : out.response.assignment->topic_partitions) parts.insert(tp.partitions.begin(), tp.partitions.end());
  return parts;
}

TEST(ConsumerHeartbeat, AFirstMemberGetsEveryPartition) {
  harness h;
  auto out = h.beat(join("m-1"));
  EXPECT_EQ(out.response.error_code, 0);
  EXPECT_EQ(out.response.member_id, std::optional<std::string>("m-1"));
  EXPECT_EQ(out.response.member_epoch, 1);
  EXPECT_EQ(out.response.heartbeat_interval_ms, 5000);
  EXPECT_EQ(assigned(out), (std::set<int32_t>{0, 1, 2, 3}));
  // Member, group epoch, its target and the target's epoch, then where it stands.
  ASSERT_EQ(out.records.size(), 5u);
  EXPECT_TRUE(std::holds_alternative<member_metadata_record>(out.records[0]));
  EXPECT_TRUE(std::holds_alternative<group_epoch_record>(out.records[1]));
  EXPECT_TRUE(std::holds_alternative<target_assignment_member_record>(out.records[2]));
  EXPECT_TRUE(std::holds_alternative<target_assignment_epoch_record>(out.records[3]));
  EXPECT_TRUE(std::holds_alternative<current_assignment_record>(out.records[4]));
  EXPECT_EQ(h.manager.group("g")->state(), consumer_group_state::stable);
  // A v0 client leaves the id to the coordinator.
  auto v0 = join("");
  v0.group_id = "other";
  auto named = h.manager.heartbeat(v0, 0, "c", "/h", h.topics, h.now, [] { return std::string("made-here"); });
  EXPECT_EQ(named.response.member_id, std::optional<std::string>("made-here"));
}

TEST(ConsumerHeartbeat, ASecondMemberGetsPartitionsOnlyOnceTheFirstLetsThemGo) {
  harness h;
  auto a = h.beat(join("a"));
  std::set<int32_t> a_owns = assigned(a);
  auto b = h.beat(join("b"));
  EXPECT_EQ(b.response.member_epoch, 2);
  std::set<int32_t> b_owns = assigned(b);
  // Nothing b is given is still a's.
  for (int32_t p : b_owns) EXPECT_FALSE(a_owns.count(p)) << p;
  EXPECT_TRUE(b_owns.empty());
  // a is told to give two partitions up, and stays at its epoch until it does.
  auto a2 = h.beat(beat("a", 1, a_owns));
  EXPECT_EQ(a2.response.member_epoch, 1);
  ASSERT_TRUE(a2.response.assignment.has_value());
  a_owns = assigned(a2);
  EXPECT_EQ(a_owns.size(), 2u);
  EXPECT_EQ(h.manager.group("g")->state(), consumer_group_state::reconciling);
  auto a3 = h.beat(beat("a", 1, a_owns));
  EXPECT_EQ(a3.response.member_epoch, 2);
  // Now b gets the other two.
  auto b2 = h.beat(beat("b", 2, b_owns));
  b_owns = assigned(b2);
  EXPECT_EQ(b_owns.size(), 2u);
  for (int32_t p : b_owns) EXPECT_FALSE(a_owns.count(p)) << p;
  EXPECT_EQ(h.manager.group("g")->state(), consumer_group_state::stable);
}

TEST(ConsumerHeartbeat, AMemberLeavingOrTimingOutGivesItsPartitionsBack) {
  harness h;
  auto a = h.beat(join("a"));
  h.beat(join("b"));
  h.beat(beat("a", 1, assigned(a)));  // told to give two partitions to b, it has not yet
  request leave;
  leave.group_id = "g";
  leave.member_id = "b";
  leave.member_epoch = -1;
  auto left = h.beat(leave);
  EXPECT_EQ(left.response.error_code, 0);
  EXPECT_EQ(left.response.member_epoch, -1);
  EXPECT_EQ(h.manager.group("g")->member("b"), nullptr);
  EXPECT_EQ(h.manager.group("g")->group_epoch(), 3);
  // a's next heartbeat takes a new target: everything.
  const auto* member_a = h.manager.group("g")->member("a");
  auto next = h.beat(beat("a", member_a->current.epoch.value, partitions_of(member_a->current.assigned).begin()->second));
  EXPECT_EQ(assigned(next), (std::set<int32_t>{0, 1, 2, 3}));
  // a stops heartbeating: its session ends and it is removed.
  EXPECT_EQ(h.manager.next_deadline_ms(), h.now + 45000);
  EXPECT_TRUE(h.manager.expire_sessions(h.now + 44999, h.topics).empty());
  auto expired = h.manager.expire_sessions(h.now + 45000, h.topics);
  EXPECT_FALSE(expired.empty());
  EXPECT_TRUE(h.manager.group("g")->members().empty());
  EXPECT_EQ(h.manager.group("g")->state(), consumer_group_state::empty);
  EXPECT_FALSE(h.manager.next_deadline_ms().has_value());
}

TEST(ConsumerHeartbeat, ARegularExpressionIsResolvedAgainstTheTopics) {
  harness h;
  h.topics.add("orders-eu", 2, 2);
  auto r = join("r", {});
  r.subscribed_topic_names.reset();
  r.subscribed_topic_regex = "orders.*";
  auto out = h.beat(r);
  EXPECT_EQ(out.response.error_code, 0);
  size_t partitions = 0;
  for (const auto& tp : out.response.assignment->topic_partitions) partitions += tp.partitions.size();
  EXPECT_EQ(partitions, 6u);
  EXPECT_EQ(h.manager.group("g")->resolved_regexes().at("orders.*").topics,
            (std::set<std::string>{"orders", "orders-eu"}));
  auto bad = join("x", {});
  bad.subscribed_topic_names.reset();
  bad.subscribed_topic_regex = "orders(";
  auto refused = h.beat(bad);
  EXPECT_EQ(refused.response.error_code, static_cast<int16_t>(error_code::invalid_regular_expression));
  EXPECT_EQ(refused.response.error_message,
            std::optional<std::string>("SubscribedTopicRegex `orders(` is not a valid regular expression: "
                                       "missing closing )."));
  EXPECT_TRUE(refused.records.empty());
}

TEST(ConsumerHeartbeat, RefusalsLeaveTheGroupAsItWas) {
  harness h;
  h.beat(join("a"));
  const auto records_before = h.written.size();
  auto unknown = h.beat(beat("nobody", 1, {}));
  EXPECT_EQ(unknown.response.error_code, static_cast<int16_t>(error_code::unknown_member_id));
  EXPECT_EQ(unknown.response.error_message, std::optional<std::string>("Member nobody is not a member of group g."));
  auto ahead = h.beat(beat("a", 7, {0, 1, 2, 3}));
  EXPECT_EQ(ahead.response.error_code, static_cast<int16_t>(error_code::fenced_member_epoch));
  auto no_group = beat("a", 1, {});
  no_group.group_id = "missing";
  EXPECT_EQ(h.beat(no_group).response.error_message, std::optional<std::string>("Consumer group missing not found."));
  auto assignor = join("c");
  assignor.server_assignor = "sticky";
  EXPECT_EQ(h.beat(assignor).response.error_code, static_cast<int16_t>(error_code::unsupported_assignor));
  EXPECT_EQ(h.written.size(), records_before);
  // A refused join does not leave an empty group behind.
  auto refused_join = join("n", {});
  refused_join.group_id = "never-made";
  refused_join.subscribed_topic_names.reset();
  refused_join.subscribed_topic_regex = "(";
  EXPECT_EQ(h.beat(refused_join).response.error_code, static_cast<int16_t>(error_code::invalid_regular_expression));
  EXPECT_EQ(h.manager.group("never-made"), nullptr);
  consumer_group_options small;
  small.max_size = 1;
  consumer_group_manager full(small);
  full.heartbeat(join("a"), 1, "c", "/h", h.topics, 0, [] { return std::string("x"); });
  auto over = full.heartbeat(join("b"), 1, "c", "/h", h.topics, 0, [] { return std::string("y"); });
  EXPECT_EQ(over.response.error_code, static_cast<int16_t>(error_code::group_max_size_reached));
  EXPECT_EQ(over.response.error_message,
            std::optional<std::string>("The consumer group has reached its maximum capacity of 1 members."));
}

TEST(ConsumerHeartbeat, TheRecordsRebuildTheSameGroups) {
  harness h;
  auto a = h.beat(join("a"));
  auto b = h.beat(join("b"));
  h.beat(beat("a", 1, assigned(a)));
  consumer_group_manager rebuilt{consumer_group_options{}};
  for (const auto& r : h.written) ASSERT_FALSE(rebuilt.replay(r));
  const auto* live = h.manager.group("g");
  const auto* again = rebuilt.group("g");
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->members(), live->members());
  EXPECT_EQ(again->target_assignment(), live->target_assignment());
  EXPECT_EQ(again->group_epoch(), live->group_epoch());
  EXPECT_EQ(again->assignment_epoch(), live->assignment_epoch());
  EXPECT_EQ(again->metadata_hash(), live->metadata_hash());
  EXPECT_EQ(again->state(), live->state());
}

}  // namespace
}  // namespace hw::broker::group::consumer
