// ConsumerGroupHeartbeat through the consumer group manager: members join,
// are reconciled without ever sharing a partition, leave or time out; the
// records it writes rebuild the same groups; refusals carry Kafka's codes
// and messages.
#include "broker/group/consumer/consumer_group_manager.h"

#include <gtest/gtest.h>

#include "broker/group/heartbeat_interval.h"
#include "tests/broker/consumer_group_support.h"

namespace hw::broker::group::consumer {
namespace {

using protocol::error_code;
using request = protocol::msg::consumer_group_heartbeat_request;
using testing::topic_map_image;

// Every heartbeat may compute a target unless a test says otherwise.
consumer_group_options no_interval() {
  consumer_group_options o;
  o.assignment_interval_ms = 0;
  return o;
}

struct harness {
  explicit harness(consumer_group_options options = no_interval()) : manager(std::move(options)) {
    topics.add("orders", 1, 4);
  }
  consumer_group_manager manager;
  topic_map_image topics;
  int64_t now = 1000;
  int next_id = 0;
  std::vector<consumer_group_record> written;

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

// A join subscribing by regular expression alone.
request regex_join(const std::string& member_id, const std::string& regex) {
  request r = join(member_id, {});
  r.subscribed_topic_names.reset();
  r.subscribed_topic_regex = regex;
  return r;
}

// A heartbeat saying the member owns `owned` (what its last answer gave it).
request beat(const std::string& member_id, int32_t epoch, const std::set<int32_t>& owned) {
  return testing::heartbeat_owning(member_id, epoch, {owned.begin(), owned.end()});
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
  EXPECT_EQ(out.response.member_epoch, 2);  // a new group is at epoch 1 (Kafka 4.3)
  EXPECT_EQ(out.response.heartbeat_interval_ms, 1000);
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
  EXPECT_EQ(b.response.member_epoch, 3);
  std::set<int32_t> b_owns = assigned(b);
  // Nothing b is given is still a's.
  for (int32_t p : b_owns) EXPECT_FALSE(a_owns.count(p)) << p;
  EXPECT_TRUE(b_owns.empty());
  // Waiting for a's partitions, b is asked back sooner than the interval.
  EXPECT_EQ(b.response.heartbeat_interval_ms, k_unreleased_heartbeat_interval_ms);
  EXPECT_EQ(h.beat(beat("b", 3, b_owns)).response.heartbeat_interval_ms, k_unreleased_heartbeat_interval_ms);
  // a is told to give two partitions up, and stays at its epoch until it does.
  auto a2 = h.beat(beat("a", 2, a_owns));
  EXPECT_EQ(a2.response.member_epoch, 2);
  EXPECT_EQ(a2.response.heartbeat_interval_ms, 1000);
  ASSERT_TRUE(a2.response.assignment.has_value());
  a_owns = assigned(a2);
  EXPECT_EQ(a_owns.size(), 2u);
  EXPECT_EQ(h.manager.group("g")->state(), consumer_group_state::reconciling);
  auto a3 = h.beat(beat("a", 2, a_owns));
  EXPECT_EQ(a3.response.member_epoch, 3);
  // Now b gets the other two.
  auto b2 = h.beat(beat("b", 3, b_owns));
  b_owns = assigned(b2);
  EXPECT_EQ(b_owns.size(), 2u);
  EXPECT_EQ(b2.response.heartbeat_interval_ms, 1000);
  for (int32_t p : b_owns) EXPECT_FALSE(a_owns.count(p)) << p;
  EXPECT_EQ(h.manager.group("g")->state(), consumer_group_state::stable);
}

TEST(ConsumerHeartbeat, AMemberLeavingOrTimingOutGivesItsPartitionsBack) {
  harness h;
  auto a = h.beat(join("a"));
  h.beat(join("b"));
  h.beat(beat("a", 2, assigned(a)));  // told to give two partitions to b, it has not yet
  request leave;
  leave.group_id = "g";
  leave.member_id = "b";
  leave.member_epoch = -1;
  auto left = h.beat(leave);
  EXPECT_EQ(left.response.error_code, 0);
  EXPECT_EQ(left.response.member_epoch, -1);
  EXPECT_EQ(h.manager.group("g")->member("b"), nullptr);
  EXPECT_EQ(h.manager.group("g")->group_epoch(), 4);
  // a's next heartbeat takes a new target: everything.
  const auto* member_a = h.manager.group("g")->member("a");
  auto next = h.beat(beat("a", member_a->current.epoch.value, partitions_of(member_a->current.assigned).begin()->second));
  EXPECT_EQ(assigned(next), (std::set<int32_t>{0, 1, 2, 3}));
  // a stops heartbeating: its session ends and it is removed.
  EXPECT_EQ(h.manager.next_deadline_ms(), h.now + 45000);
  EXPECT_TRUE(h.manager.expire_sessions(h.now + 44999, h.topics).records.empty());
  auto expired = h.manager.expire_sessions(h.now + 45000, h.topics);
  EXPECT_FALSE(expired.records.empty());
  EXPECT_TRUE(h.manager.group("g")->members().empty());
  EXPECT_EQ(h.manager.group("g")->state(), consumer_group_state::empty);
  EXPECT_FALSE(h.manager.next_deadline_ms().has_value());
}

TEST(ConsumerHeartbeat, ARegularExpressionIsResolvedAgainstTheTopics) {
  harness h;
  h.topics.add("orders-eu", 2, 2);
  auto r = regex_join("r", "orders.*");
  auto out = h.beat(r);
  EXPECT_EQ(out.response.error_code, 0);
  size_t partitions = 0;
  for (const auto& tp : out.response.assignment->topic_partitions) partitions += tp.partitions.size();
  EXPECT_EQ(partitions, 6u);
  EXPECT_EQ(h.manager.group("g")->resolved_regexes().at("orders.*").topics,
            (std::set<std::string>{"orders", "orders-eu"}));
  auto bad = regex_join("x", "orders(");
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
  auto no_group = beat("a", 2, {});
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
  h.beat(beat("a", 2, assigned(a)));
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

TEST(ConsumerHeartbeat, TheAssignmentIntervalDefersTheNextTarget) {
  consumer_group_options options;
  options.assignment_interval_ms = 1000;
  harness h(options);
  auto a = h.beat(join("a"));
  EXPECT_EQ(a.response.member_epoch, 2);
  h.now += 400;
  // b joins 400 ms after the last target: the group epoch moves, the target waits.
  auto b = h.beat(join("b"));
  EXPECT_EQ(h.manager.group("g")->group_epoch(), 3);
  EXPECT_EQ(h.manager.group("g")->assignment_epoch(), 2);
  EXPECT_EQ(b.response.member_epoch, 2);
  EXPECT_TRUE(assigned(b).empty());
  EXPECT_EQ(h.manager.group("g")->state(), consumer_group_state::assigning);
  h.now += 599;
  h.beat(beat("a", 2, assigned(a)));
  EXPECT_EQ(h.manager.group("g")->assignment_epoch(), 2);
  h.now += 1;
  // Once the interval has passed, the next heartbeat computes it.
  auto a2 = h.beat(beat("a", 2, assigned(a)));
  EXPECT_EQ(h.manager.group("g")->assignment_epoch(), 3);
  EXPECT_EQ(assigned(a2).size(), 2u);
}

TEST(ConsumerHeartbeat, ANewPartitionCountBumpsTheGroupAtItsNextHeartbeat) {
  harness h;
  auto a = h.beat(join("a"));
  const int64_t hash = h.manager.group("g")->metadata_hash();
  // Nothing changed: a heartbeat writes nothing.
  EXPECT_TRUE(h.beat(beat("a", 2, assigned(a))).records.empty());
  h.topics.add("orders", 1, 6);
  // Unseen until the image says the topic changed.
  EXPECT_TRUE(h.beat(beat("a", 2, assigned(a))).records.empty());
  h.manager.on_topics_changed({"unrelated"}, true, 7);
  EXPECT_TRUE(h.beat(beat("a", 2, assigned(a))).records.empty());
  h.manager.on_topics_changed({"orders"}, false, 8);
  auto next = h.beat(beat("a", 2, assigned(a)));
  EXPECT_EQ(h.manager.group("g")->group_epoch(), 3);
  EXPECT_NE(h.manager.group("g")->metadata_hash(), hash);
  EXPECT_EQ(next.response.member_epoch, 3);
  EXPECT_EQ(assigned(next), (std::set<int32_t>{0, 1, 2, 3, 4, 5}));
}

TEST(ConsumerHeartbeat, ARegularExpressionIsResolvedAgainWhenTopicsAreCreated) {
  harness h;
  auto r = regex_join("r", "orders.*");
  auto out = h.beat(r);
  const int32_t epoch = out.response.member_epoch;
  h.topics.add("orders-eu", 2, 2);
  h.topics.set_version(42);
  h.manager.on_topics_changed({"orders-eu"}, true, 42);
  // Not within ten seconds of the last resolution.
  h.now += regex_min_refresh_interval_ms;
  EXPECT_TRUE(h.beat(beat("r", epoch, assigned(out))).records.empty());
  h.now += 1;
  auto next = h.beat(beat("r", epoch, assigned(out)));
  const auto& resolved = h.manager.group("g")->resolved_regexes().at("orders.*");
  EXPECT_EQ(resolved.topics, (std::set<std::string>{"orders", "orders-eu"}));
  EXPECT_EQ(resolved.version, 42);
  EXPECT_EQ(resolved.timestamp_ms, h.now);
  EXPECT_EQ(h.manager.group("g")->group_epoch(), epoch + 1);
  size_t partitions = 0;
  for (const auto& tp : next.response.assignment->topic_partitions) partitions += tp.partitions.size();
  EXPECT_EQ(partitions, 6u);
}

TEST(ConsumerHeartbeat, ARestoredGroupIsTheGroupBeforeTheWrite) {
  harness h;
  auto a = h.beat(join("a"));
  auto before = h.manager.snapshot("g");
  ASSERT_TRUE(before);
  h.beat(join("b"));
  h.manager.restore("g", before, h.now);
  EXPECT_EQ(h.manager.group("g")->members(), before->members());
  EXPECT_EQ(h.manager.group("g")->group_epoch(), 2);
  // b's session went with it; a's is kept.
  EXPECT_EQ(h.manager.groups_with_ended_sessions(h.now + 45000), (std::set<std::string>{"g"}));
  EXPECT_TRUE(h.manager.expire_sessions(h.now + 45000, h.topics).records.size() > 0);
  EXPECT_TRUE(h.manager.group("g")->members().empty());
  // A group the write made goes entirely.
  EXPECT_FALSE(h.manager.snapshot("new"));
  auto n = join("x");
  n.group_id = "new";
  h.beat(n);
  ASSERT_NE(h.manager.group("new"), nullptr);
  h.manager.restore("new", std::nullopt, h.now);
  EXPECT_EQ(h.manager.group("new"), nullptr);
  EXPECT_FALSE(h.manager.next_deadline_ms().has_value());
}


request static_join(const std::string& member_id, const std::string& instance) {
  auto r = join(member_id);
  r.instance_id = instance;
  return r;
}

TEST(ConsumerHeartbeat, AStaticMemberLeavesForNowAndComesBackUnderANewIdWithItsPartitions) {
  harness h;
  auto a = h.beat(static_join("a-1", "instance-a"));
  auto b = h.beat(join("b"));
  auto a2 = h.beat(beat("a-1", 2, assigned(a)));
  auto a3 = h.beat(beat("a-1", 2, assigned(a2)));
  h.beat(beat("b", 3, assigned(b)));
  const auto a_partitions = partitions_of(h.manager.group("g")->member("a-1")->current.assigned);
  ASSERT_FALSE(a_partitions.empty());
  const int32_t epoch_before = h.manager.group("g")->group_epoch();
  // -2: gone for now; the group epoch stays, nothing moves to b.
  request away = beat("a-1", -2, {});
  away.instance_id = "instance-a";
  auto left = h.beat(away);
  EXPECT_EQ(left.response.error_code, 0);
  EXPECT_EQ(left.response.member_epoch, -2);
  ASSERT_EQ(left.records.size(), 1u);
  EXPECT_EQ(h.manager.group("g")->group_epoch(), epoch_before);
  EXPECT_EQ(h.manager.group("g")->member("a-1")->current.epoch, leave_group_static_epoch);
  // Back under a new id: the same partitions, no new group epoch.
  auto back = h.beat(static_join("a-2", "instance-a"));
  EXPECT_EQ(back.response.error_code, 0);
  EXPECT_EQ(h.manager.group("g")->member("a-1"), nullptr);
  ASSERT_NE(h.manager.group("g")->member("a-2"), nullptr);
  EXPECT_EQ(partitions_of(h.manager.group("g")->member("a-2")->current.assigned), a_partitions);
  EXPECT_EQ(h.manager.group("g")->group_epoch(), epoch_before);
  EXPECT_EQ(*h.manager.group("g")->static_member_id("instance-a"), "a-2");
  (void)a3;
}

TEST(ConsumerHeartbeat, StaticMembersAreRefusedWithKafkasCodes) {
  harness h;
  h.beat(static_join("a-1", "instance-a"));
  // The instance id is still held: a second process with it cannot join.
  auto unreleased = h.beat(static_join("a-2", "instance-a"));
  EXPECT_EQ(unreleased.response.error_code, static_cast<int16_t>(error_code::unreleased_instance_id));
  EXPECT_EQ(unreleased.response.error_message,
            std::optional<std::string>("Static member a-2 with instance id instance-a cannot join the group because "
                                       "the instance id is owned by a-1 member."));
  auto unknown = beat("x", 1, {});
  unknown.instance_id = "nobody";
  EXPECT_EQ(h.beat(unknown).response.error_message, std::optional<std::string>("Instance id nobody is unknown."));
  auto fenced = beat("a-2", 2, {0, 1, 2, 3});
  fenced.instance_id = "instance-a";
  auto f = h.beat(fenced);
  EXPECT_EQ(f.response.error_code, static_cast<int16_t>(error_code::fenced_instance_id));
  EXPECT_EQ(f.response.error_message,
            std::optional<std::string>("Static member a-2 with instance id instance-a was fenced by member a-1."));
  auto leave_other = beat("a-2", -2, {});
  leave_other.instance_id = "instance-a";
  EXPECT_EQ(h.beat(leave_other).response.error_code, static_cast<int16_t>(error_code::fenced_instance_id));
  auto no_group = beat("a-1", -1, {});
  no_group.group_id = "missing";
  EXPECT_EQ(h.beat(no_group).response.error_message, std::optional<std::string>("Group missing not found."));
  // A static member leaving for good (-1) is removed.
  auto gone = beat("a-1", -1, {});
  gone.instance_id = "instance-a";
  EXPECT_EQ(h.beat(gone).response.error_code, 0);
  EXPECT_TRUE(h.manager.group("g")->members().empty());
  EXPECT_EQ(h.manager.group("g")->static_member_id("instance-a"), nullptr);
}

TEST(ConsumerHeartbeat, AStaticMemberThatDoesNotComeBackIsRemovedWhenItsSessionEnds) {
  harness h;
  auto a = h.beat(static_join("a-1", "instance-a"));
  h.now += 1000;
  request away = beat("a-1", -2, {});
  away.instance_id = "instance-a";
  h.beat(away);
  // Its session runs from its last heartbeat before it left.
  EXPECT_TRUE(h.manager.expire_sessions(h.now + 43999, h.topics).records.empty());
  EXPECT_FALSE(h.manager.expire_sessions(h.now + 44000, h.topics).records.empty());
  EXPECT_TRUE(h.manager.group("g")->members().empty());
  (void)a;
}


TEST(ConsumerHeartbeat, AMemberThatDoesNotRevokeInItsRebalanceTimeoutIsFenced) {
  harness h;
  auto a = h.beat(join("a"));  // rebalance timeout 60 s
  h.beat(join("b"));
  auto told = h.beat(beat("a", 2, assigned(a)));  // told to give two partitions up
  ASSERT_EQ(h.manager.group("g")->member("a")->current.state, member_state::unrevoked_partitions);
  // It keeps heartbeating without letting them go: its session lives on,
  // its rebalance timeout does not.
  for (int i = 0; i < 11; ++i) {
    h.now += 5000;
    h.beat(beat("a", 2, assigned(a)));
    h.beat(beat("b", 3, {}));
  }
  EXPECT_TRUE(h.manager.expire_sessions(h.now, h.topics).records.empty());
  EXPECT_EQ(h.manager.next_deadline_ms(), int64_t{1000} + 60000);
  h.now = 1000 + 60000;
  auto fenced = h.manager.expire_sessions(h.now, h.topics);
  EXPECT_FALSE(fenced.records.empty());
  EXPECT_EQ(h.manager.group("g")->member("a"), nullptr);
  // b now gets everything.
  auto b = h.beat(beat("b", 3, {}));
  EXPECT_EQ(assigned(b), (std::set<int32_t>{0, 1, 2, 3}));
  (void)told;
}

TEST(ConsumerHeartbeat, AMemberThatRevokesInTimeKeepsItsPlace) {
  harness h;
  auto a = h.beat(join("a"));
  h.beat(join("b"));
  auto told = h.beat(beat("a", 2, assigned(a)));
  h.now += 1000;
  auto done = h.beat(beat("a", 2, assigned(told)));
  EXPECT_EQ(done.response.member_epoch, 3);
  // Both keep their sessions; no rebalance timeout is left to end at 61 s.
  h.now = 45000;
  h.beat(beat("a", 3, assigned(told)));
  h.beat(beat("b", 3, {}));
  EXPECT_EQ(h.manager.next_deadline_ms(), int64_t{45000} + 45000);
  h.now = 1000 + 60000;
  EXPECT_TRUE(h.manager.expire_sessions(h.now, h.topics).records.empty());
  EXPECT_NE(h.manager.group("g")->member("a"), nullptr);
}


TEST(ConsumerHeartbeat, AGroupsOwnConfigsOverrideTheBrokersForThatGroupAlone) {
  harness h;
  h.topics.set_group_config("g", "consumer.session.timeout.ms", "50000");
  h.topics.set_group_config("g", "consumer.heartbeat.interval.ms", "7000");
  h.manager.set_config_source(&h.topics);
  auto a = h.beat(join("a"));
  EXPECT_EQ(a.response.heartbeat_interval_ms, 7000);
  EXPECT_EQ(h.manager.next_deadline_ms(), h.now + 50000);
  auto other = join("x");
  other.group_id = "other";
  auto o = h.beat(other);
  EXPECT_EQ(o.response.heartbeat_interval_ms, 1000);
  EXPECT_EQ(h.manager.next_deadline_ms(), h.now + 45000);
}

// What the coordinator keeps of a group: its epochs, members and target.
bool same_group(const consumer_group& a, const consumer_group& b) {
  return a.group_epoch() == b.group_epoch() && a.assignment_epoch() == b.assignment_epoch() &&
         a.members() == b.members() && a.target_assignment() == b.target_assignment();
}

// The common heartbeat, a stable member holding what it was given: no
// records, nothing for a rollback to keep, and the group as it was.
TEST(ConsumerHeartbeat, AHeartbeatThatChangesNothingWritesNothing) {
  harness h;
  auto a = h.beat(join("a"));
  auto b = h.beat(join("b"));
  std::set<int32_t> a_owns = assigned(h.beat(beat("a", 2, assigned(a))));
  h.beat(beat("a", 2, a_owns));
  std::set<int32_t> b_owns = assigned(h.beat(beat("b", 3, assigned(b))));
  ASSERT_EQ(h.manager.group("g")->state(), consumer_group_state::stable);
  const consumer_group before = *h.manager.group("g");
  auto again = h.beat(beat("b", 3, b_owns));
  EXPECT_EQ(again.response.error_code, 0);
  EXPECT_EQ(again.response.member_epoch, 3);
  EXPECT_TRUE(again.records.empty());
  EXPECT_FALSE(again.before.has_value());
  EXPECT_FALSE(again.response.assignment.has_value());
  EXPECT_TRUE(same_group(*h.manager.group("g"), before));
  // The next change copies the group as usual: a's leave is undone by its before.
  auto leave = request{};
  leave.group_id = "g";
  leave.member_id = "a";
  leave.member_epoch = -1;
  auto left = h.beat(leave);
  ASSERT_FALSE(left.records.empty());
  ASSERT_TRUE(left.before.has_value());
  EXPECT_TRUE(same_group(*left.before, before));
}


TEST(ConsumerHeartbeat, ARegularExpressionMatchesOnlyTheTopicsTheMemberMaySee) {
  harness h;
  h.topics.add("orders-eu", 2, 2);
  auto r = regex_join("r", "orders.*");
  const topic_filter may_describe = [](const std::string& topic) { return topic != "orders-eu"; };
  auto out = h.manager.heartbeat(r, 1, "client", "/127.0.0.1", h.topics, h.now, [] { return std::string("x"); },
                                 may_describe);
  EXPECT_EQ(out.response.error_code, 0);
  EXPECT_EQ(h.manager.group("g")->resolved_regexes().at("orders.*").topics, (std::set<std::string>{"orders"}));
  EXPECT_EQ(assigned(out), (std::set<int32_t>{0, 1, 2, 3}));
}

}  // namespace
}  // namespace hw::broker::group::consumer
