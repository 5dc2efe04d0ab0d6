// Moving a group between the classic and the consumer protocol while it has
// members (KIP-848's online migration, as Kafka 4.3.1 does it): a classic
// group upgraded when a consumer-protocol member joins it, its classic
// members rejoining, syncing and heartbeating inside the consumer group, the
// group handed back to the classic protocol when its last consumer-protocol
// member leaves, group.consumer.migration.policy, and the refusals.
#include <gtest/gtest.h>

#include <algorithm>

#include "broker/group/consumer/classic_protocol.h"
#include "tests/broker/consumer_shard_support.h"

namespace hw::broker::group::testing {
namespace {

using consumer::consumer_group_options;
using consumer::migration_policy;

group_config quick_start() {
  group_config c;
  c.initial_rebalance_delay_ms = 0;
  return c;
}

consumer_group_options with_policy(migration_policy policy) {
  auto o = no_interval();
  o.migration = policy;
  return o;
}

// ConsumerProtocolAssignment bytes (version 0) of partitions of "orders".
std::vector<uint8_t> orders_assignment(const std::vector<int32_t>& partitions,
                                       std::optional<std::vector<uint8_t>> user_data = std::nullopt) {
  msg::consumer_protocol_assignment a;
  auto& tp = a.assigned_partitions.emplace_back();
  tp.topic = "orders";
  tp.partitions = partitions;
  a.user_data = std::move(user_data);
  std::vector<uint8_t> out;
  protocol::writer w(out);
  w.write_int16(0);
  a.encode(w, 0);
  return out;
}

std::set<int32_t> orders_of(const std::vector<uint8_t>& bytes) {
  auto a = consumer::decode_assignment(bytes);
  EXPECT_TRUE(a.has_value());
  if (!a || !a->partitions.count("orders")) return {};
  return a->partitions.at("orders");
}

struct classic_member {
  std::string id;
  int32_t generation = 0;
};

// A classic JoinGroup (v9) of `member_id` ("" for a new one) to group "g".
join_args classic_join_args(const std::string& member_id) {
  join_args a = args("g", "classic-client");
  a.member_id = member_id;
  a.protocols = range_protocol({"orders"});
  return a;
}

msg::join_group_response joined(consumer_shard& h, const std::string& member_id) {
  auto r = h.take<msg::join_group_response>(h.join(classic_join_args(member_id)));
  EXPECT_TRUE(r.has_value());
  return r.value_or(msg::join_group_response{});
}

// Two classic members in a Stable classic group "g": a holds orders-0 and
// 1, b holds 2 and 3, at generation 1.
std::pair<classic_member, classic_member> stable_classic_group(consumer_shard& h) {
  const std::string a = joined(h, "").member_id;
  const std::string b = joined(h, "").member_id;
  auto ta = h.join(classic_join_args(a));
  auto tb = h.join(classic_join_args(b));
  h.advance(1);
  auto ja = h.take<msg::join_group_response>(ta);
  auto jb = h.take<msg::join_group_response>(tb);
  EXPECT_TRUE(ja && jb);
  if (!ja || !jb) return {};
  const std::string leader = ja->leader;
  auto sa = h.sync("g", a, ja->generation_id,
                   leader == a ? std::map<std::string, std::vector<uint8_t>>{{a, orders_assignment({0, 1})},
                                                                             {b, orders_assignment({2, 3})}}
                               : std::map<std::string, std::vector<uint8_t>>{});
  auto sb = h.sync("g", b, jb->generation_id,
                   leader == b ? std::map<std::string, std::vector<uint8_t>>{{a, orders_assignment({0, 1})},
                                                                             {b, orders_assignment({2, 3})}}
                               : std::map<std::string, std::vector<uint8_t>>{});
  EXPECT_TRUE(h.take<msg::sync_group_response>(sa));
  EXPECT_TRUE(h.take<msg::sync_group_response>(sb));
  EXPECT_TRUE(h.s().find_group("g") && h.s().find_group("g")->in(group_state::stable));
  return {{a, ja->generation_id}, {b, jb->generation_id}};
}

// A classic member catches up inside the consumer group: it rejoins, then
// syncs; its new generation and what it was given.
std::pair<int32_t, std::set<int32_t>> rejoin_and_sync(consumer_shard& h, const std::string& member_id) {
  auto j = joined(h, member_id);
  EXPECT_EQ(j.error_code, 0);
  EXPECT_EQ(j.member_id, member_id);
  EXPECT_EQ(j.protocol_type, std::optional<std::string>("consumer"));
  EXPECT_EQ(j.protocol_name, std::optional<std::string>("range"));
  EXPECT_EQ(j.leader, "");
  EXPECT_TRUE(j.members.empty());
  auto s = h.take<msg::sync_group_response>(h.sync("g", member_id, j.generation_id));
  EXPECT_TRUE(s.has_value());
  if (!s) return {};
  EXPECT_EQ(s->error_code, 0);
  return {j.generation_id, orders_of(s->assignment)};
}

std::set<int32_t> all_partitions(const consumer::consumer_group& g) {
  std::set<int32_t> out;
  for (const auto& [id, m] : g.members())
    for (const auto& [topic, partitions] : m.current.assigned)
      for (const auto& [p, epoch] : partitions) EXPECT_TRUE(out.insert(p).second) << "partition " << p << " held twice";
  return out;
}

TEST(ConsumerMigration, AClassicGroupIsUpgradedWhenAConsumerMemberJoinsAndHandedBackWhenItLeaves) {
  consumer_shard h(true, quick_start());
  auto [a, b] = stable_classic_group(h);
  ASSERT_EQ(a.generation, 1);

  // A consumer-protocol member joins: the classic group becomes a consumer
  // group whose members hold what the classic assignment gave them.
  h.log.clear();
  auto c = h.beat(join("c"));
  ASSERT_EQ(c.error_code, 0) << c.error_message.value_or("");
  EXPECT_EQ(h.s().find_group("g"), nullptr);
  const auto* g = h.s().find_consumer_group("g");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->members().size(), 3u);
  EXPECT_EQ(g->classic_member_count(), 2);
  EXPECT_EQ(g->group_epoch(), 2);  // the classic generation, bumped by the new member
  EXPECT_EQ(c.member_epoch, 2);
  EXPECT_EQ(partition_count(c), 0u);  // everything is still held at generation 1
  EXPECT_EQ(all_partitions(*g), (std::set<int32_t>{0, 1, 2, 3}));
  // Written: the classic group's tombstone, the upgraded group (two members,
  // its epoch, two targets, the target's epoch, two current assignments),
  // then the new member's heartbeat.
  ASSERT_GE(h.log.size(), 9u);
  auto first = decode_record(h.log[0].key, std::nullopt);
  ASSERT_TRUE(first && std::holds_alternative<group_record>(*first));
  for (size_t i = 1; i < 9; ++i) {
    auto r = decode_record(h.log[i].key, h.log[i].value ? std::optional<std::span<const uint8_t>>(*h.log[i].value)
                                                       : std::nullopt);
    ASSERT_TRUE(r && std::holds_alternative<consumer::consumer_group_record>(*r)) << "record " << i;
  }

  // The classic members are told to rejoin; each gives up what its target
  // no longer holds (a v0 subscription owns nothing) and is given its share
  // once the others let it go. Every member settles.
  EXPECT_EQ(h.heartbeat("g", a.id, a.generation), code(error_code::rebalance_in_progress));
  std::map<std::string, std::pair<int32_t, std::set<int32_t>>> classic_side{{a.id, {a.generation, {0, 1}}},
                                                                             {b.id, {b.generation, {2, 3}}}};
  auto c_owned = c;
  for (int round = 0; round < 4; ++round) {
    for (auto& [id, state] : classic_side)
      if (h.heartbeat("g", id, state.first) == code(error_code::rebalance_in_progress)) state = rejoin_and_sync(h, id);
    auto next = h.beat(beat("c", c.member_epoch, c_owned));
    ASSERT_EQ(next.error_code, 0);
    c.member_epoch = next.member_epoch;
    if (next.assignment) c_owned = next;
  }
  std::set<int32_t> got_c;
  if (c_owned.assignment)
    for (const auto& tp : c_owned.assignment->topic_partitions) got_c.insert(tp.partitions.begin(), tp.partitions.end());
  const auto& [gen_a, got_a] = classic_side.at(a.id);
  const auto& [gen_b, got_b] = classic_side.at(b.id);
  EXPECT_EQ(gen_a, 2);
  EXPECT_EQ(gen_b, 2);
  EXPECT_EQ(got_a.size() + got_b.size() + got_c.size(), 4u);
  EXPECT_FALSE(got_a.empty() || got_b.empty() || got_c.empty());
  g = h.s().find_consumer_group("g");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->state(), consumer::consumer_group_state::stable);
  EXPECT_EQ(all_partitions(*g), (std::set<int32_t>{0, 1, 2, 3}));
  EXPECT_EQ(h.heartbeat("g", a.id, gen_a), 0);
  EXPECT_EQ(h.heartbeat("g", b.id, gen_b), 0);

  // A classic member of the consumer group commits under its generation.
  EXPECT_EQ(h.commit_as("g", a.id, gen_a, *got_a.begin(), 10), 0);

  // The last consumer-protocol member leaves: the group is a classic group
  // again, at the consumer group's epoch, rebalancing.
  const int32_t epoch = g->group_epoch();
  h.log.clear();
  EXPECT_EQ(h.beat(leave("c")).error_code, 0);
  EXPECT_EQ(h.s().find_consumer_group("g"), nullptr);
  const auto* classic = h.s().find_group("g");
  ASSERT_NE(classic, nullptr);
  EXPECT_EQ(classic->generation(), epoch);
  EXPECT_TRUE(classic->in(group_state::preparing_rebalance));
  EXPECT_EQ(classic->members().size(), 2u);
  EXPECT_EQ(classic->protocol_name(), std::optional<std::string>("range"));
  // Tombstones first, the classic group's record last.
  ASSERT_FALSE(h.log.empty());
  auto last = decode_record(h.log.back().key, std::optional<std::span<const uint8_t>>(*h.log.back().value));
  ASSERT_TRUE(last && std::holds_alternative<group_record>(*last));
  EXPECT_EQ(std::get<group_record>(*last).value->members.size(), 2u);
  // The classic members rebalance as a classic group, keeping their offsets.
  auto ta = h.join(classic_join_args(a.id));
  auto tb = h.join(classic_join_args(b.id));
  auto ja = h.take<msg::join_group_response>(ta);
  auto jb = h.take<msg::join_group_response>(tb);
  ASSERT_TRUE(ja && jb);
  EXPECT_EQ(ja->error_code, 0);
  EXPECT_EQ(ja->generation_id, epoch + 1);
  EXPECT_EQ(jb->generation_id, epoch + 1);
  EXPECT_FALSE(ja->leader.empty());
  EXPECT_EQ(h.fetch_as("g", std::nullopt, -1).topics.at(0).partitions.at(*got_a.begin()).committed_offset, 10);
}

TEST(ConsumerMigration, TheMigrationPolicyDecidesWhichWayAGroupMayGo) {
  {
    consumer_shard h(true, quick_start(), with_policy(migration_policy::disabled));
    stable_classic_group(h);
    auto refused = h.beat(join("c"));
    EXPECT_EQ(refused.error_code, code(error_code::group_id_not_found));
    EXPECT_EQ(refused.error_message,
              std::optional<std::string>(
                  "Cannot upgrade classic group g to consumer group because online upgrade is disabled."));
    EXPECT_NE(h.s().find_group("g"), nullptr);
    // Nor may a classic member join a consumer group.
    EXPECT_EQ(h.beat(join("x", "modern")).error_code, 0);
    auto a = classic_join_args("");
    a.group = "modern";
    auto j = h.take<msg::join_group_response>(h.join(a));
    ASSERT_TRUE(j);
    EXPECT_EQ(j->error_code, code(error_code::inconsistent_group_protocol));
  }
  {
    // Upgrade only: the group stays a consumer group when the consumer
    // member leaves.
    consumer_shard h(true, quick_start(), with_policy(migration_policy::upgrade));
    stable_classic_group(h);
    ASSERT_EQ(h.beat(join("c")).error_code, 0);
    EXPECT_EQ(h.beat(leave("c")).error_code, 0);
    ASSERT_NE(h.s().find_consumer_group("g"), nullptr);
    EXPECT_EQ(h.s().find_consumer_group("g")->members().size(), 2u);
    EXPECT_EQ(h.s().find_group("g"), nullptr);
  }
  {
    // Downgrade only: a classic group with members is not upgraded.
    consumer_shard h(true, quick_start(), with_policy(migration_policy::downgrade));
    stable_classic_group(h);
    EXPECT_EQ(h.beat(join("c")).error_code, code(error_code::group_id_not_found));
  }
}

TEST(ConsumerMigration, AGroupThatCannotBeUpgradedSaysWhy) {
  consumer_shard h(true, quick_start());
  // A custom assignor's user data would be lost.
  const std::string a = joined(h, "").member_id;
  auto t = h.join(classic_join_args(a));
  h.advance(1);
  auto j = h.take<msg::join_group_response>(t);
  ASSERT_TRUE(j);
  auto s = h.sync("g", a, j->generation_id, {{a, orders_assignment({0, 1, 2, 3}, std::vector<uint8_t>{1, 2})}});
  ASSERT_TRUE(h.take<msg::sync_group_response>(s));
  auto refused = h.beat(join("c"));
  EXPECT_EQ(refused.error_code, code(error_code::group_id_not_found));
  EXPECT_EQ(refused.error_message,
            std::optional<std::string>("Cannot upgrade classic group g to consumer group because an unsupported "
                                       "custom assignor is in use. Please refer to the documentation or switch to a "
                                       "default assignor before re-attempting the upgrade."));
  // A group of another protocol type (Connect's) is not the consumer protocol.
  join_args connect = classic_join_args("");
  connect.group = "workers";
  connect.protocol_type = "connect";
  const std::string w = h.take<msg::join_group_response>(h.join(connect))->member_id;
  connect.member_id = w;
  h.join(connect);
  h.advance(1);
  auto not_consumer = h.beat(join("c", "workers"));
  EXPECT_EQ(not_consumer.error_message,
            std::optional<std::string>("Cannot upgrade classic group workers to consumer group because the group "
                                       "does not use the consumer embedded protocol."));
  // Only a join upgrades; any other epoch is told the group is not a consumer group.
  EXPECT_EQ(h.beat(beat("c", 4, {}, "workers")).error_message,
            std::optional<std::string>("Group workers is not a consumer group."));
}

TEST(ConsumerMigration, ClassicMembersOfAConsumerGroupAreCheckedAndFencedAsKafkaDoes) {
  consumer_shard h(true, quick_start());
  auto [a, b] = stable_classic_group(h);
  auto c = h.beat(join("c"));
  ASSERT_EQ(c.error_code, 0);
  // Wrong generation, unknown member, a consumer-protocol member's id.
  EXPECT_EQ(h.heartbeat("g", a.id, 7), code(error_code::illegal_generation));
  EXPECT_EQ(h.heartbeat("g", "nobody", 1), code(error_code::unknown_member_id));
  EXPECT_EQ(h.heartbeat("g", "c", 2), code(error_code::unknown_member_id));
  auto wrong = h.take<msg::sync_group_response>(h.sync("g", a.id, 9));
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->error_code, code(error_code::illegal_generation));
  // A sync before rejoining, while a new target waits: rejoin first.
  auto early = h.take<msg::sync_group_response>(h.sync("g", a.id, a.generation));
  ASSERT_TRUE(early);
  EXPECT_EQ(early->error_code, code(error_code::rebalance_in_progress));
  // Another protocol's member cannot join.
  auto other = classic_join_args("");
  other.protocols = {{"roundrobin", subscription({"orders"})}};
  auto refused = h.take<msg::join_group_response>(h.join(other));
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->error_code, code(error_code::inconsistent_group_protocol));

  // b leaves with LeaveGroup: removed, its partitions go to the others.
  auto left = h.leave("g", b.id);
  EXPECT_EQ(left.error_code, 0);
  ASSERT_EQ(left.members.size(), 1u);
  EXPECT_EQ(left.members[0].error_code, 0);
  EXPECT_EQ(h.s().find_consumer_group("g")->members().size(), 2u);
  EXPECT_EQ(h.leave("g", b.id).members.at(0).error_code, code(error_code::unknown_member_id));

  // a was told to rejoin and does not: though it keeps heartbeating, its
  // rebalance timeout (30 s) fences it.
  EXPECT_EQ(h.heartbeat("g", a.id, a.generation), code(error_code::rebalance_in_progress));
  for (int i = 0; i < 4; ++i) {
    h.advance(8000);
    if (h.s().find_consumer_group("g")->member(a.id))
      EXPECT_EQ(h.heartbeat("g", a.id, a.generation), code(error_code::rebalance_in_progress));
  }
  ASSERT_NE(h.s().find_consumer_group("g"), nullptr);
  EXPECT_EQ(h.s().find_consumer_group("g")->member(a.id), nullptr);
  EXPECT_EQ(h.s().find_consumer_group("g")->members().size(), 1u);
}

TEST(ConsumerMigration, AClassicMemberThatJoinsAndNeverSyncsIsFenced) {
  consumer_shard h(true, quick_start());
  auto [a, b] = stable_classic_group(h);
  ASSERT_EQ(h.beat(join("c")).error_code, 0);
  auto j = joined(h, a.id);
  ASSERT_EQ(j.error_code, 0);
  // a keeps heartbeating but never syncs: its sync timeout (the rebalance
  // timeout of its JoinGroup, 30 s) fences it.
  for (int i = 0; i < 4; ++i) {
    h.advance(8000);
    h.heartbeat("g", b.id, b.generation);
    if (h.s().find_consumer_group("g")->member(a.id)) h.heartbeat("g", a.id, j.generation_id);
  }
  ASSERT_NE(h.s().find_consumer_group("g"), nullptr);
  EXPECT_EQ(h.s().find_consumer_group("g")->member(a.id), nullptr);
}

TEST(ConsumerMigration, TheLogRebuildsAConsumerGroupWithClassicMembers) {
  consumer_shard h(true, quick_start());
  auto [a, b] = stable_classic_group(h);
  ASSERT_EQ(h.beat(join("c")).error_code, 0);
  rejoin_and_sync(h, a.id);
  consumer_shard reloaded(false, quick_start());
  reloaded.load_from(h.log);
  const auto* g = reloaded.s().find_consumer_group("g");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(*g->member(a.id), *h.s().find_consumer_group("g")->member(a.id));
  ASSERT_TRUE(g->member(a.id)->subscription.classic);
  EXPECT_EQ(g->member(a.id)->subscription.classic->session_timeout_ms, 10000);
  EXPECT_EQ(g->member(a.id)->subscription.classic->protocols.at(0).name, "range");
  EXPECT_EQ(g->classic_member_count(), 2);
  // ConsumerGroupDescribe tells the classic members (type 0) from the other.
  auto described = reloaded.s().describe_consumer_groups({"g"});
  ASSERT_EQ(described.size(), 1u);
  int classic = 0;
  for (const auto& m : described[0].members) classic += m.member_type == 0 ? 1 : 0;
  EXPECT_EQ(classic, 2);
  EXPECT_EQ(described[0].members.size(), 3u);
}

TEST(ConsumerMigration, AFailedUpgradeWriteLeavesNoConsumerGroup) {
  consumer_shard h(true, quick_start());
  stable_classic_group(h);
  h.auto_ack = false;
  auto t = h.send(join("c"));
  ASSERT_FALSE(h.pending.empty());
  h.ack(error_code::not_leader_or_follower);
  auto failed = h.take<msg::consumer_group_heartbeat_response>(t);
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->error_code, code(error_code::not_coordinator));
  EXPECT_EQ(h.s().find_consumer_group("g"), nullptr);
}

}  // namespace
}  // namespace hw::broker::group::testing
