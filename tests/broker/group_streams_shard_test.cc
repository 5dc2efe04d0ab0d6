// Streams groups (KIP-1071) inside a group shard: a heartbeat answered once
// its records are durable and the group read back from them by the next
// coordinator; a failed write putting the group back; ids held by groups of
// other kinds refused with Kafka's messages (an empty classic group
// replaced); offsets committed and fetched with member epochs; sessions
// ending; DeleteGroups only of an empty group; ListGroups.
#include <gtest/gtest.h>

#include "tests/broker/consumer_shard_support.h"
#include "tests/integration/streams_heartbeats.h"

namespace hw::broker::group::testing {
namespace {

using streams_request = msg::streams_group_heartbeat_request;

streams::streams_group_options quick_streams() {
  streams::streams_group_options o;
  o.session_timeout_ms = 6000;
  o.assignment_interval_ms = 0;
  o.initial_rebalance_delay_ms = 0;
  return o;
}

// A member's join with a topology reading "orders" (the harness's topic).
streams_request streams_join(const std::string& member, const std::string& group = "app") {
  return ::hw::testing::streams_join(group, member, "process-" + member, "orders");
}

struct streams_shard : consumer_shard {
  explicit streams_shard(bool start_active = true) : consumer_shard(start_active, {}, no_interval(), quick_streams()) {}
  request_token send_streams(const streams_request& r) {
    auto t = next_token++;
    s().streams_group_heartbeat(t, {"client", "/127.0.0.1"}, r, now);
    drain();
    return t;
  }
  msg::streams_group_heartbeat_response streams_beat(const streams_request& r) {
    auto a = take<streams_heartbeat_answer>(send_streams(r));
    EXPECT_TRUE(a.has_value());
    return a ? a->response : msg::streams_group_heartbeat_response{};
  }
};

TEST(StreamsShard, AJoinIsAnsweredOnceDurableAndTheNextCoordinatorReadsTheGroupBack) {
  streams_shard h;
  h.auto_ack = false;
  auto token = h.send_streams(streams_join("a"));
  EXPECT_FALSE(h.answered(token));  // its records are not durable yet
  h.ack(error_code::none);
  auto joined = h.take<streams_heartbeat_answer>(token);
  ASSERT_TRUE(joined);
  ASSERT_EQ(joined->response.error_code, 0) << joined->response.error_message.value_or("");
  EXPECT_EQ(joined->response.member_epoch, 2);
  ASSERT_TRUE(joined->response.active_tasks);
  ASSERT_EQ(joined->response.active_tasks->size(), 1u);
  EXPECT_EQ(joined->response.active_tasks->at(0).partitions, (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_TRUE(joined->to_create.empty());

  streams_shard next(false);
  next.load_from(h.log);
  const auto* g = next.s().find_streams_group("app");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->group_epoch(), 2);
  EXPECT_EQ(g->assignment_epoch(), 2);
  ASSERT_NE(g->member("a"), nullptr);
  EXPECT_EQ(g->member("a")->epoch, 2);
  EXPECT_EQ(g->member("a")->process_id, "process-a");
  // The member carries on with the new coordinator at its epoch.
  auto again = next.streams_beat(::hw::testing::streams_beat("app", "a", 2, *joined->response.active_tasks));
  EXPECT_EQ(again.error_code, 0);
  EXPECT_EQ(again.member_epoch, 2);
}

TEST(StreamsShard, AFailedWritePutsTheGroupBack) {
  streams_shard h;
  ASSERT_EQ(h.streams_beat(streams_join("a")).error_code, 0);
  const int32_t epoch = h.s().find_streams_group("app")->group_epoch();
  h.auto_ack = false;
  auto token = h.send_streams(streams_join("b"));
  h.ack(error_code::not_leader_or_follower);
  auto failed = h.take<streams_heartbeat_answer>(token);
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->response.error_code, code(error_code::not_coordinator));
  const auto* g = h.s().find_streams_group("app");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->members().size(), 1u);
  EXPECT_EQ(g->group_epoch(), epoch);
  // A failed first write leaves no group at all.
  auto first = h.send_streams(streams_join("x", "other"));
  h.ack(error_code::not_leader_or_follower);
  EXPECT_TRUE(h.answered(first));
  EXPECT_EQ(h.s().find_streams_group("other"), nullptr);
}

TEST(StreamsShard, IdsOfOtherKindsOfGroupsAreRefusedAsKafkaRefusesThem) {
  streams_shard h;
  ASSERT_EQ(h.beat(join("c1", "cg")).error_code, 0);
  auto refused = h.streams_beat(streams_join("a", "cg"));
  EXPECT_EQ(refused.error_code, code(error_code::group_id_not_found));
  EXPECT_EQ(refused.error_message, std::optional<std::string>("Group cg is not a streams group."));

  ASSERT_EQ(h.streams_beat(streams_join("a")).error_code, 0);
  auto consumer = h.beat(join("c2", "app"));
  EXPECT_EQ(consumer.error_code, code(error_code::group_id_not_found));
  EXPECT_EQ(consumer.error_message, std::optional<std::string>("Group app is not a consumer group."));
  join_args classic = args("app");
  auto joined = h.take<msg::join_group_response>(h.join(classic));
  ASSERT_TRUE(joined);
  EXPECT_EQ(joined->error_code, code(error_code::inconsistent_group_protocol));
  auto described = h.s().describe_groups({"app"});
  ASSERT_EQ(described.size(), 1u);
  EXPECT_EQ(described[0].error_message, std::optional<std::string>("Group app is not a classic group."));

  // An empty classic group (a simple consumer's offsets) gives way to the
  // streams group; its offsets stay.
  ASSERT_EQ(h.commit_as("simple", "", -1, 0, 17), 0);
  ASSERT_NE(h.s().find_group("simple"), nullptr);
  ASSERT_EQ(h.streams_beat(streams_join("a", "simple")).error_code, 0);
  EXPECT_EQ(h.s().find_group("simple"), nullptr);
  ASSERT_NE(h.s().find_streams_group("simple"), nullptr);
  EXPECT_EQ(h.fetch_as("simple", std::nullopt, -1).topics.at(0).partitions.at(0).committed_offset, 17);
}

TEST(StreamsShard, OffsetsAreCommittedAndFetchedWithTheMemberEpoch) {
  streams_shard h;
  auto joined = h.streams_beat(streams_join("a"));
  ASSERT_EQ(joined.error_code, 0);
  const int32_t epoch = joined.member_epoch;
  EXPECT_EQ(h.commit_as("app", "a", epoch, 1, 5), 0);
  EXPECT_EQ(h.commit_as("app", "a", epoch + 1, 1, 6), code(error_code::stale_member_epoch));
  EXPECT_EQ(h.commit_as("app", "nobody", epoch, 1, 6), code(error_code::unknown_member_id));
  EXPECT_EQ(h.commit_as("app", "a", epoch, 1, 6, 8), code(error_code::unsupported_version));
  // From outside the group (epoch -1) only while it has no members.
  EXPECT_EQ(h.commit_as("app", "", -1, 1, 6), code(error_code::unknown_member_id));
  EXPECT_EQ(h.fetch_as("app", std::string("a"), epoch).topics.at(0).partitions.at(1).committed_offset, 5);
  EXPECT_EQ(h.fetch_as("app", std::string("a"), epoch + 1).error_code, code(error_code::stale_member_epoch));
  EXPECT_EQ(h.fetch_as("app", std::nullopt, -1).topics.at(0).partitions.at(1).committed_offset, 5);
}

TEST(StreamsShard, ASessionEndsThenTheEmptyGroupMayBeDeleted) {
  streams_shard h;
  ASSERT_EQ(h.streams_beat(streams_join("a")).error_code, 0);
  std::vector<msg::list_groups_response::listed_group> listed;
  ASSERT_EQ(h.s().list_groups({}, {"streams"}, listed), error_code::none);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].group_type, "streams");
  EXPECT_EQ(listed[0].protocol_type, "streams");
  EXPECT_EQ(listed[0].group_state, "Stable");

  auto deleting = h.next_token++;
  h.s().delete_groups(deleting, {"app"});
  auto refused = h.take<delete_groups_results>(deleting);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->at(0).error_code, code(error_code::non_empty_group));

  EXPECT_EQ(h.s().next_deadline_ms(), std::optional<int64_t>(h.now + 6000));
  h.tick(6000);
  const auto* g = h.s().find_streams_group("app");
  ASSERT_NE(g, nullptr);
  EXPECT_TRUE(g->members().empty());
  EXPECT_EQ(g->state(), streams::streams_group_state::empty);

  deleting = h.next_token++;
  h.s().delete_groups(deleting, {"app"});
  auto deleted = h.take<delete_groups_results>(deleting);
  ASSERT_TRUE(deleted);
  EXPECT_EQ(deleted->at(0).error_code, 0);
  EXPECT_EQ(h.s().find_streams_group("app"), nullptr);
  streams_shard next(false);
  next.load_from(h.log);
  EXPECT_EQ(next.s().find_streams_group("app"), nullptr);
}

}  // namespace
}  // namespace hw::broker::group::testing
