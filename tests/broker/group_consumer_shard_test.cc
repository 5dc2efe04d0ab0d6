// Consumer groups (KIP-848) inside a group shard: a heartbeat is answered
// once its records are durable, a failed append puts the group back, the
// log rebuilds the groups and their sessions start at activation, an empty
// classic or consumer group gives way to the other protocol, and
// offsets are committed, fetched and deleted under the member epochs.
#include <gtest/gtest.h>

#include "tests/broker/consumer_shard_support.h"

namespace hw::broker::group::testing {
namespace {

TEST(ConsumerShard, AHeartbeatIsAnsweredOnceItsRecordsAreDurable) {
  consumer_shard h;
  h.auto_ack = false;
  auto t = h.send(join("a"));
  EXPECT_FALSE(h.take<msg::consumer_group_heartbeat_response>(t));
  ASSERT_EQ(h.pending.size(), 1u);
  EXPECT_EQ(h.pending[0].records.size(), 5u);
  // The group already stands as the records leave it.
  ASSERT_NE(h.s().find_consumer_group("g"), nullptr);
  EXPECT_EQ(h.s().find_consumer_group("g")->group_epoch(), 2);
  h.ack(error_code::none);
  auto a = h.take<msg::consumer_group_heartbeat_response>(t);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->error_code, 0);
  EXPECT_EQ(a->member_epoch, 2);
  EXPECT_EQ(partition_count(*a), 4u);
  // A heartbeat that changes nothing writes nothing and is answered at once.
  auto same = h.send(beat("a", 2, *a));
  EXPECT_TRUE(h.pending.empty());
  EXPECT_TRUE(h.take<msg::consumer_group_heartbeat_response>(same));
}

TEST(ConsumerShard, AFailedAppendPutsTheGroupBackAndLaterWritesStayOnTop) {
  consumer_shard h;
  auto a = h.beat(join("a"));
  h.auto_ack = false;
  const auto b_token = h.send(join("b"));
  const auto c_token = h.send(join("c", "other"));
  ASSERT_EQ(h.pending.size(), 2u);
  EXPECT_EQ(h.s().find_consumer_group("g")->members().size(), 2u);
  // b's write fails (the ISR shrank under min.insync.replicas), c's succeeds.
  auto writes = std::move(h.pending);
  h.pending.clear();
  h.s().on_append_done(writes[0].token, error_code::not_enough_replicas, h.now);
  h.s().on_append_done(writes[1].token, error_code::none, h.now);
  auto b = h.take<msg::consumer_group_heartbeat_response>(b_token);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->error_code, code(error_code::coordinator_not_available));
  EXPECT_EQ(h.s().find_consumer_group("g")->members().size(), 1u);
  EXPECT_EQ(h.s().find_consumer_group("g")->group_epoch(), 2);
  EXPECT_EQ(h.take<msg::consumer_group_heartbeat_response>(c_token)->error_code, 0);
  ASSERT_NE(h.s().find_consumer_group("other"), nullptr);
  // a goes on as if b never came; b joining again gets its share.
  h.auto_ack = true;
  EXPECT_EQ(h.beat(beat("a", 2, a)).error_code, 0);
  auto b2 = h.beat(join("b"));
  EXPECT_EQ(b2.error_code, 0);
  EXPECT_EQ(h.s().find_consumer_group("g")->members().size(), 2u);

  // Two writes of one group in flight, the first fails: the second, which
  // may still succeed, is replayed on top of the group put back.
  consumer_shard k;
  auto ka = k.beat(join("a"));
  k.auto_ack = false;
  k.send(join("b"));
  k.send(leave("a"));
  auto in_flight = std::move(k.pending);
  k.pending.clear();
  ASSERT_EQ(in_flight.size(), 2u);
  k.s().on_append_done(in_flight[0].token, error_code::not_enough_replicas, k.now);
  const auto* g = k.s().find_consumer_group("g");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->member("a"), nullptr);  // a's leave stays (its write is still in flight)
  EXPECT_EQ(g->member("b"), nullptr);  // b's join went with its write
  k.s().on_append_done(in_flight[1].token, error_code::none, k.now);
}

TEST(ConsumerShard, TheLogRebuildsTheGroupsAndSessionsStartAtActivation) {
  consumer_shard h;
  auto a = h.beat(join("a"));
  h.beat(join("b"));
  h.beat(beat("a", 2, a));
  consumer_shard loaded(false);
  loaded.now = h.now + 100000;
  loaded.load_from(h.log);
  const auto* live = h.s().find_consumer_group("g");
  const auto* again = loaded.s().find_consumer_group("g");
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->members(), live->members());
  EXPECT_EQ(again->target_assignment(), live->target_assignment());
  EXPECT_EQ(again->group_epoch(), live->group_epoch());
  EXPECT_EQ(loaded.s().next_deadline_ms(), loaded.now + 45000);
  // Nobody heartbeats to the new coordinator: both sessions end.
  loaded.tick(45000);
  EXPECT_TRUE(loaded.s().find_consumer_group("g")->members().empty());
  EXPECT_FALSE(loaded.log.empty());
}

TEST(ConsumerShard, ClassicAndConsumerGroupsOfOneIdGiveWayOnlyWhenEmpty) {
  consumer_shard h;
  // A classic group with a member keeps its id.
  {
    msg::join_group_request r;
    r.group_id = "classic";
    r.member_id = "";
    r.protocol_type = "consumer";
    r.session_timeout_ms = 10000;
    r.rebalance_timeout_ms = 10000;
    r.protocols.push_back({"range", subscription({"orders"}), {}});
    h.s().join_group(h.next_token++, 3, {"c", "/h"}, r, h.now);
    h.drain();
    ASSERT_NE(h.s().find_group("classic"), nullptr);
    ASSERT_EQ(h.s().find_group("classic")->members().size(), 1u);
  }
  auto refused = h.beat(beat("x", 3, {}, "classic"));
  EXPECT_EQ(refused.error_code, code(error_code::group_id_not_found));
  EXPECT_EQ(refused.error_message, std::optional<std::string>("Group classic is not a consumer group."));
  // An empty (simple) group, made by a commit, gives way to the consumer group.
  EXPECT_EQ(h.commit_as("simple", "", -1, 0, 42), 0);
  ASSERT_NE(h.s().find_group("simple"), nullptr);
  h.log.clear();
  auto joined = h.beat(join("x", "simple"));
  EXPECT_EQ(joined.error_code, 0);
  EXPECT_EQ(h.s().find_group("simple"), nullptr);
  ASSERT_FALSE(h.log.empty());
  auto first = decode_record(h.log[0].key, std::nullopt);
  ASSERT_TRUE(first);
  EXPECT_TRUE(std::holds_alternative<group_record>(*first));
  // Its offsets stay, readable by the member.
  EXPECT_EQ(h.fetch_as("simple", "x", 2).topics.at(0).partitions.at(0).committed_offset, 42);
  std::vector<msg::list_groups_response::listed_group> listed;
  EXPECT_EQ(h.s().list_groups({}, {"Consumer"}, listed), error_code::none);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].group_id, "simple");
  EXPECT_EQ(listed[0].group_type, "consumer");
  EXPECT_EQ(listed[0].group_state, "Stable");
  // A classic member joins the consumer group while it has members (as one
  // of them: group_consumer_migration_test.cc)...
  msg::join_group_request cj;
  cj.group_id = "simple";
  cj.protocol_type = "consumer";
  cj.session_timeout_ms = 10000;
  cj.rebalance_timeout_ms = 10000;
  cj.protocols.push_back({"range", subscription({"orders"}), {}});
  auto t = h.next_token++;
  h.s().join_group(t, 9, {"c", "/h"}, cj, h.now);
  auto asked = h.take<msg::join_group_response>(t);
  ASSERT_TRUE(asked);
  EXPECT_EQ(asked->error_code, code(error_code::member_id_required));
  EXPECT_NE(h.s().find_consumer_group("simple"), nullptr);
  // ...and once it is empty the consumer group gives way to the classic one.
  EXPECT_EQ(h.beat(leave("x", "simple")).error_code, 0);
  t = h.next_token++;
  h.s().join_group(t, 9, {"c", "/h"}, cj, h.now);
  auto required = h.take<msg::join_group_response>(t);
  ASSERT_TRUE(required);
  EXPECT_EQ(required->error_code, code(error_code::member_id_required));
  EXPECT_EQ(h.s().find_consumer_group("simple"), nullptr);
  // A DescribeGroups of a consumer group says it is not a classic one.
  h.beat(join("y", "modern"));
  auto described = h.s().describe_groups({"modern"});
  EXPECT_EQ(described.at(0).group_state, "Dead");
  EXPECT_EQ(described.at(0).error_message, std::optional<std::string>("Group modern is not a classic group."));
  auto modern = h.s().describe_consumer_groups({"modern", "classic", "none"});
  EXPECT_EQ(modern.at(0).error_code, 0);
  EXPECT_EQ(modern.at(0).members.size(), 1u);
  EXPECT_EQ(modern.at(1).error_message, std::optional<std::string>("Group classic is not a consumer group."));
  EXPECT_EQ(modern.at(2).error_message, std::optional<std::string>("Group none not found."));
}

TEST(ConsumerShard, OffsetsAreCommittedAndFetchedUnderTheMemberEpoch) {
  consumer_shard h;
  auto a = h.beat(join("a"));
  EXPECT_EQ(h.commit_as("g", "a", 2, 0, 10), 0);
  EXPECT_EQ(h.commit_as("g", "a", 3, 0, 11), code(error_code::stale_member_epoch));
  EXPECT_EQ(h.commit_as("g", "nobody", 2, 0, 11), code(error_code::unknown_member_id));
  EXPECT_EQ(h.commit_as("g", "", -1, 0, 11), code(error_code::unknown_member_id));
  EXPECT_EQ(h.commit_as("g", "a", 2, 0, 11, 8), code(error_code::unsupported_version));
  // b joins: a keeps two partitions given at epoch 2 and moves to epoch 3.
  auto b = h.beat(join("b"));
  auto a2 = h.beat(beat("a", 2, a));
  ASSERT_TRUE(a2.assignment.has_value());
  auto a3 = h.beat(beat("a", 2, a2));
  ASSERT_EQ(a3.member_epoch, 3);
  std::set<int32_t> kept;
  for (const auto& tp : a2.assignment->topic_partitions) kept.insert(tp.partitions.begin(), tp.partitions.end());
  ASSERT_EQ(kept.size(), 2u);
  // A commit at the older epoch 2 still counts for what a was given at 2.
  EXPECT_EQ(h.commit_as("g", "a", 2, *kept.begin(), 20), 0);
  int32_t given_away = 0;
  while (kept.count(given_away)) ++given_away;
  EXPECT_EQ(h.commit_as("g", "a", 2, given_away, 20), code(error_code::stale_member_epoch));
  // Fetches name the member at its epoch, or nobody.
  auto fetched = h.fetch_as("g", "a", 3);
  EXPECT_EQ(fetched.error_code, 0);
  EXPECT_EQ(fetched.topics.at(0).partitions.at(0).committed_offset, *kept.begin() == 0 ? 20 : 10);
  EXPECT_EQ(h.fetch_as("g", "a", 2).error_code, code(error_code::stale_member_epoch));
  EXPECT_EQ(h.fetch_as("g", "ghost", 2).error_code, code(error_code::unknown_member_id));
  EXPECT_EQ(h.fetch_as("g", std::nullopt, -1).error_code, 0);
  (void)b;
}

TEST(ConsumerShard, AGroupIsDeletedOnlyOnceEmptyWithItsOffsets) {
  consumer_shard h;
  h.beat(join("a"));
  EXPECT_EQ(h.commit_as("g", "a", 2, 0, 10), 0);
  auto del = [&h] {
    auto t = h.next_token++;
    h.s().delete_groups(t, {"g"});
    return h.take<delete_groups_results>(t).value().at(0).error_code;
  };
  EXPECT_EQ(del(), code(error_code::non_empty_group));
  h.beat(leave("a"));
  EXPECT_EQ(del(), 0);
  EXPECT_EQ(h.s().find_consumer_group("g"), nullptr);
  EXPECT_EQ(h.fetch_as("g", std::nullopt, -1).topics.at(0).partitions.at(0).committed_offset, -1);
  // The log says the same.
  consumer_shard loaded(false);
  loaded.load_from(h.log);
  EXPECT_EQ(loaded.s().find_consumer_group("g"), nullptr);
  EXPECT_EQ(loaded.s().find_group("g"), nullptr);
}

TEST(ConsumerShard, RetentionKeepsSubscribedOffsetsAndDeletesAnEmptyGroupWithItsOffsets) {
  group_config config;
  config.offsets_retention_ms = 60000;
  config.offsets_retention_check_interval_ms = 10000;
  consumer_shard h(true, config);
  h.beat(join("a"));
  EXPECT_EQ(h.commit_as("g", "a", 2, 0, 10), 0);
  // A member still subscribes to the topic: its offset outlives retention
  // (the member keeps heartbeating meanwhile).
  for (int i = 0; i < 8; ++i) {
    h.tick(10000);
    h.beat(beat("a", 2, {}));
  }
  EXPECT_EQ(h.fetch_as("g", std::nullopt, -1).topics.at(0).partitions.at(0).committed_offset, 10);
  // Once it leaves, the offset ages from its commit: already past, it goes
  // at the next check, and the empty group with it.
  h.beat(leave("a"));
  h.tick(10000);
  EXPECT_EQ(h.fetch_as("g", std::nullopt, -1).topics.at(0).partitions.at(0).committed_offset, -1);
  EXPECT_EQ(h.s().find_consumer_group("g"), nullptr);
}

TEST(ConsumerShard, ATopicGrowingReachesTheGroupThroughTheImage) {
  consumer_shard h;
  auto a = h.beat(join("a"));
  EXPECT_EQ(partition_count(a), 4u);
  auto grown = std::make_shared<hw::testing::topic_map_image>();
  grown->add("orders", 1, 6);
  h.s().set_topics(grown, {"orders"}, false);
  auto next = h.beat(beat("a", 2, a));
  EXPECT_EQ(next.member_epoch, 3);
  EXPECT_EQ(partition_count(next), 6u);
}

}  // namespace
}  // namespace hw::broker::group::testing
