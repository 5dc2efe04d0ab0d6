// JoinGroup / SyncGroup / Heartbeat / LeaveGroup scenarios on a group_shard.
#include <gtest/gtest.h>

#include <set>

#include "protocol/wire/reader.h"
#include "tests/broker/group_test_support.h"

namespace hw::broker::group {
namespace {

using namespace testing;

std::vector<uint8_t> bytes(std::initializer_list<uint8_t> b) { return b; }

TEST(GroupMembership, OneMemberJoinsSyncsAndHeartbeats) {
  shard_harness h;
  auto [member, join] = h.join_dynamic(args());
  EXPECT_EQ(member.rfind("client-", 0), 0u);  // client.id + "-" + uuid
  EXPECT_EQ(member.size(), std::string("client-").size() + 36);
  EXPECT_FALSE(h.answered(join));  // new group: initial rebalance delay
  h.advance(2999);
  EXPECT_FALSE(h.answered(join));
  h.advance(1);
  auto j = h.take<msg::join_group_response>(join);
  ASSERT_TRUE(j.has_value());
  EXPECT_EQ(j->error_code, 0);
  EXPECT_EQ(j->generation_id, 1);
  EXPECT_EQ(j->leader, member);
  EXPECT_EQ(j->member_id, member);
  EXPECT_EQ(j->protocol_name, std::optional<std::string>("range"));
  ASSERT_EQ(j->members.size(), 1u);
  EXPECT_EQ(j->members[0].metadata, subscription({"t"}));
  EXPECT_EQ(h.shard.find_group("g")->state(), group_state::completing_rebalance);

  h.auto_ack = false;
  auto s = h.sync("g", member, 1, {{member, bytes({1, 2, 3})}});
  EXPECT_FALSE(h.answered(s));  // the assignment must be durable first
  ASSERT_EQ(h.pending.size(), 1u);
  h.ack(error_code::none);
  auto sr = h.take<msg::sync_group_response>(s);
  ASSERT_TRUE(sr.has_value());
  EXPECT_EQ(sr->error_code, 0);
  EXPECT_EQ(sr->assignment, bytes({1, 2, 3}));
  EXPECT_EQ(sr->protocol_name, std::optional<std::string>("range"));
  EXPECT_EQ(h.shard.find_group("g")->state(), group_state::stable);
  EXPECT_EQ(h.heartbeat("g", member, 1), 0);
  EXPECT_EQ(h.heartbeat("g", member, 0), code(error_code::illegal_generation));
  EXPECT_EQ(h.heartbeat("g", "nobody", 1), code(error_code::unknown_member_id));
}

// Three members join; the test plays the leader and assigns 6 partitions;
// one member leaves; the other two rebalance and the leader reassigns.
TEST(GroupMembership, ThreeMembersOneLeavesEveryPartitionAssignedOnce) {
  shard_harness h;
  std::vector<std::string> ids;
  std::vector<request_token> joins;
  for (int i = 0; i < 3; ++i) {
    auto [id, t] = h.join_dynamic(args());
    ids.push_back(id);
    joins.push_back(t);
    h.advance(1000);  // each arrival within the delay extends it
  }
  h.advance(3000);
  std::string leader;
  std::vector<std::string> roster;
  for (auto t : joins) {
    auto j = h.take<msg::join_group_response>(t);
    ASSERT_TRUE(j.has_value());
    EXPECT_EQ(j->generation_id, 1);
    leader = j->leader;
    if (!j->members.empty()) {
      EXPECT_EQ(j->member_id, leader);
      for (const auto& m : j->members) roster.push_back(m.member_id);
    }
  }
  ASSERT_EQ(roster.size(), 3u);

  auto play_leader = [&](const std::vector<std::string>& members, int32_t generation) {
    std::map<std::string, std::vector<uint8_t>> plan;
    for (uint8_t p = 0; p < 6; ++p) plan[members[p % members.size()]].push_back(p);
    std::map<std::string, request_token> syncs;
    for (const auto& m : members) {
      if (m != leader) syncs[m] = h.sync("g", m, generation);
    }
    syncs[leader] = h.sync("g", leader, generation, plan);
    std::multiset<uint8_t> seen;
    for (const auto& [m, t] : syncs) {
      auto r = h.take<msg::sync_group_response>(t);
      EXPECT_TRUE(r.has_value());
      if (!r) continue;
      EXPECT_EQ(r->error_code, 0);
      seen.insert(r->assignment.begin(), r->assignment.end());
    }
    EXPECT_EQ(seen, (std::multiset<uint8_t>{0, 1, 2, 3, 4, 5}));
  };
  play_leader(roster, 1);

  std::string leaving = ids[0] == leader ? ids[1] : ids[0];
  auto left = h.leave("g", leaving);
  EXPECT_EQ(left.members.at(0).error_code, 0);
  EXPECT_EQ(h.shard.find_group("g")->state(), group_state::preparing_rebalance);
  std::vector<std::string> rest;
  std::vector<request_token> rejoins;
  for (const auto& id : ids) {
    if (id == leaving) continue;
    EXPECT_EQ(h.heartbeat("g", id, 1), code(error_code::rebalance_in_progress));
    auto a = args();
    a.member_id = id;
    rejoins.push_back(h.join(a));
    rest.push_back(id);
  }
  for (auto t : rejoins) {
    auto j = h.take<msg::join_group_response>(t);
    ASSERT_TRUE(j.has_value());  // everyone rejoined: no waiting
    EXPECT_EQ(j->generation_id, 2);
    EXPECT_EQ(j->leader, leader);
  }
  play_leader(rest, 2);
  EXPECT_EQ(h.shard.find_group("g")->members().size(), 2u);
}

// A stable group of two with the given protocols; returns member ids.
std::vector<std::string> stable_pair(shard_harness& h, const std::string& group = "g",
                                     std::optional<std::string> instance_a = std::nullopt,
                                     std::optional<std::string> instance_b = std::nullopt) {
  std::vector<std::string> ids;
  std::vector<request_token> joins;
  for (auto instance : {instance_a, instance_b}) {
    auto a = args(group);
    a.instance_id = instance;
    if (instance) {
      joins.push_back(h.join(a));
    } else {
      auto [id, t] = h.join_dynamic(a);
      joins.push_back(t);
    }
  }
  // Each arrival during the initial delay extends it by another delay.
  for (int i = 0; i < 10 && !h.answered(joins.back()); ++i) h.advance(1000);
  std::string leader;
  for (auto t : joins) {
    auto j = h.take<msg::join_group_response>(t);
    EXPECT_TRUE(j.has_value());
    if (!j) return ids;
    ids.push_back(j->member_id);
    leader = j->leader;
  }
  std::map<std::string, std::vector<uint8_t>> plan{{ids[0], {0}}, {ids[1], {1}}};
  auto follower = ids[0] == leader ? ids[1] : ids[0];
  auto fs = h.sync(group, follower, 1);
  auto ls = h.sync(group, leader, 1, plan);
  EXPECT_TRUE(h.take<msg::sync_group_response>(fs).has_value());
  EXPECT_TRUE(h.take<msg::sync_group_response>(ls).has_value());
  EXPECT_EQ(h.shard.find_group(group)->state(), group_state::stable);
  return ids;
}

TEST(GroupMembership, SessionTimeoutEvictsSilentMember) {
  shard_harness h;
  auto ids = stable_pair(h);
  for (int i = 0; i < 3; ++i) {
    h.advance(3000);
    EXPECT_EQ(h.heartbeat("g", ids[0], 1), 0);
  }
  EXPECT_EQ(h.shard.find_group("g")->members().size(), 2u);
  h.advance(3000);
  // ids[1] has been silent for 12 s > 10 s session timeout.
  EXPECT_EQ(h.shard.find_group("g")->members().size(), 1u);
  EXPECT_EQ(h.heartbeat("g", ids[1], 1), code(error_code::unknown_member_id));
  EXPECT_EQ(h.heartbeat("g", ids[0], 1), code(error_code::rebalance_in_progress));
  auto a = args();
  a.member_id = ids[0];
  auto j = h.take<msg::join_group_response>(h.join(a));
  ASSERT_TRUE(j.has_value());
  EXPECT_EQ(j->generation_id, 2);
  EXPECT_EQ(j->members.size(), 1u);
}

TEST(GroupMembership, RebalanceTimeoutEvictsMembersThatDoNotRejoin) {
  shard_harness h;
  auto ids = stable_pair(h);
  auto a = args();
  a.member_id = ids[0];
  a.protocols = range_protocol({"t", "u"});  // changed metadata forces a rebalance
  auto t = h.join(a);
  EXPECT_FALSE(h.answered(t));
  // ids[1] keeps heartbeating but never rejoins.
  for (int i = 0; i < 10; ++i) {
    h.advance(2999);
    EXPECT_EQ(h.heartbeat("g", ids[1], 1), code(error_code::rebalance_in_progress));
  }
  EXPECT_FALSE(h.answered(t));
  h.advance(10);  // 30 s rebalance timeout reached
  auto j = h.take<msg::join_group_response>(t);
  ASSERT_TRUE(j.has_value());
  EXPECT_EQ(j->generation_id, 2);
  EXPECT_EQ(j->leader, ids[0]);
  ASSERT_EQ(j->members.size(), 1u);
  EXPECT_EQ(h.heartbeat("g", ids[1], 2), code(error_code::unknown_member_id));
}

TEST(GroupMembership, StaticMemberRestartKeepsAssignmentWithoutRebalance) {
  shard_harness h;
  auto ids = stable_pair(h, "g", "i-a", "i-b");
  const classic_group* g = h.shard.find_group("g");
  auto old_b = *g->members().static_member_id("i-b");
  ASSERT_NE(g->members().find(old_b), nullptr);
  auto assignment_b = g->members().find(old_b)->assignment;
  // The process behind i-b restarts: no member id, same protocols.
  auto a = args();
  a.instance_id = "i-b";
  h.auto_ack = false;
  auto t = h.join(a);
  EXPECT_FALSE(h.answered(t));  // waits for the record with the new id
  ASSERT_EQ(h.pending.size(), 1u);
  h.ack(error_code::none);
  auto j = h.take<msg::join_group_response>(t);
  ASSERT_TRUE(j.has_value());
  EXPECT_EQ(j->error_code, 0);
  EXPECT_EQ(j->generation_id, 1);
  EXPECT_NE(j->member_id, old_b);
  EXPECT_EQ(j->member_id.rfind("i-b-", 0), 0u);  // instance id + "-" + uuid
  g = h.shard.find_group("g");
  EXPECT_EQ(g->state(), group_state::stable);
  EXPECT_EQ(g->generation(), 1);
  auto s = h.take<msg::sync_group_response>(h.sync("g", j->member_id, 1, {}, "i-b"));
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->error_code, 0);
  EXPECT_EQ(s->assignment, assignment_b);
  // The old incarnation is fenced.
  EXPECT_EQ(h.heartbeat("g", old_b, 1, "i-b"), code(error_code::fenced_instance_id));
  EXPECT_EQ(h.heartbeat("g", j->member_id, 1, "i-b"), 0);
  // The other member did not notice anything.
  EXPECT_EQ(h.heartbeat("g", ids[0] == old_b ? ids[1] : ids[0], 1), 0);
}

TEST(GroupMembership, StaticLeaderRestartSkipsAssignmentOnV9AndHidesLeadershipBefore) {
  for (int16_t version : {int16_t{8}, int16_t{9}}) {
    shard_harness h;
    stable_pair(h, "g", "i-a", "i-b");
    const classic_group* g = h.shard.find_group("g");
    std::string old_leader = *g->leader_id();
    ASSERT_NE(g->members().find(old_leader), nullptr);
    std::string instance = g->members().find(old_leader)->group_instance_id.value();
    auto a = args();
    a.instance_id = instance;
    a.version = version;
    auto j = h.take<msg::join_group_response>(h.join(a));
    ASSERT_TRUE(j.has_value());
    EXPECT_EQ(j->error_code, 0);
    EXPECT_EQ(h.shard.find_group("g")->leader_id(), j->member_id);  // leadership moves to the new id
    if (version >= 9) {
      EXPECT_EQ(j->leader, j->member_id);
      EXPECT_TRUE(j->skip_assignment);
      EXPECT_EQ(j->members.size(), 2u);
    } else {
      EXPECT_EQ(j->leader, old_leader);  // so an old client does not run an assignment
      EXPECT_FALSE(j->skip_assignment);
      EXPECT_TRUE(j->members.empty());
    }
    EXPECT_EQ(h.shard.find_group("g")->state(), group_state::stable);
  }
}

TEST(GroupMembership, StaticRestartThatFailsToPersistRevertsToTheOldId) {
  shard_harness h;
  stable_pair(h, "g", "i-a", "i-b");
  auto old_b = *h.shard.find_group("g")->members().static_member_id("i-b");
  auto a = args();
  a.instance_id = "i-b";
  h.auto_ack = false;
  auto t = h.join(a);
  h.ack(error_code::not_leader_or_follower);
  auto j = h.take<msg::join_group_response>(t);
  ASSERT_TRUE(j.has_value());
  EXPECT_EQ(j->error_code, code(error_code::not_coordinator));
  EXPECT_EQ(j->member_id, "");
  EXPECT_EQ(h.shard.find_group("g")->members().static_member_id("i-b"), old_b);
  EXPECT_EQ(h.heartbeat("g", old_b, 1, "i-b"), 0);
}

TEST(GroupMembership, StaticMemberWithUnknownInstanceOrWrongIdIsRefused) {
  shard_harness h;
  stable_pair(h, "g", "i-a", "i-b");
  EXPECT_EQ(h.heartbeat("g", "someone", 1, "i-zzz"), code(error_code::unknown_member_id));
  auto id_a = *h.shard.find_group("g")->members().static_member_id("i-a");
  EXPECT_EQ(h.heartbeat("g", id_a, 1, "i-b"), code(error_code::fenced_instance_id));
  auto s = h.take<msg::sync_group_response>(h.sync("g", id_a, 1, {}, "i-b"));
  EXPECT_EQ(s->error_code, code(error_code::fenced_instance_id));
}

TEST(GroupMembership, FailedSyncAppendAnswersEveryWaitingMember) {
  shard_harness h;
  std::vector<std::string> ids;
  std::vector<request_token> joins;
  for (int i = 0; i < 2; ++i) {
    auto [id, t] = h.join_dynamic(args());
    joins.push_back(t);
  }
  h.advance(6000);
  std::string leader;
  for (auto t : joins) {
    auto j = h.take<msg::join_group_response>(t);
    ids.push_back(j->member_id);
    leader = j->leader;
  }
  auto follower = ids[0] == leader ? ids[1] : ids[0];
  h.auto_ack = false;
  auto fs = h.sync("g", follower, 1);
  auto ls = h.sync("g", leader, 1, {{leader, {1}}, {follower, {2}}});
  h.ack(error_code::request_timed_out);
  for (auto t : {fs, ls}) {
    auto r = h.take<msg::sync_group_response>(t);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->error_code, code(error_code::coordinator_not_available));
  }
  EXPECT_EQ(h.shard.find_group("g")->state(), group_state::preparing_rebalance);
}

TEST(GroupMembership, JoinErrors) {
  group_config config;
  config.max_size = 2;
  shard_harness h(config);
  auto bad_session = args();
  bad_session.session_ms = 5999;
  EXPECT_EQ(h.take<msg::join_group_response>(h.join(bad_session))->error_code,
            code(error_code::invalid_session_timeout));
  bad_session.session_ms = 1800001;
  EXPECT_EQ(h.take<msg::join_group_response>(h.join(bad_session))->error_code,
            code(error_code::invalid_session_timeout));
  EXPECT_EQ(h.take<msg::join_group_response>(h.join(args("")))->error_code, code(error_code::invalid_group_id));
  auto unknown = args("new-group");
  unknown.member_id = "made-up";
  EXPECT_EQ(h.take<msg::join_group_response>(h.join(unknown))->error_code, code(error_code::unknown_member_id));
  auto no_protocols = args("np");
  no_protocols.protocols.clear();
  EXPECT_EQ(h.take<msg::join_group_response>(h.join(no_protocols))->error_code,
            code(error_code::inconsistent_group_protocol));

  auto ids = stable_pair(h);
  auto other_type = args();
  other_type.member_id = ids[0];
  other_type.protocol_type = "connect";
  EXPECT_EQ(h.take<msg::join_group_response>(h.join(other_type))->error_code,
            code(error_code::inconsistent_group_protocol));
  auto other_protocol = args();
  other_protocol.member_id = ids[0];
  other_protocol.protocols = {{"roundrobin", subscription({"t"})}};
  EXPECT_EQ(h.take<msg::join_group_response>(h.join(other_protocol))->error_code,
            code(error_code::inconsistent_group_protocol));
  auto third = h.take<msg::join_group_response>(h.join(args()));
  EXPECT_EQ(third->error_code, code(error_code::group_max_size_reached));
}

TEST(GroupMembership, JoinV3WithoutMemberIdIsAddedAtOnce) {
  shard_harness h;
  auto a = args();
  a.version = 3;
  auto t = h.join(a);
  EXPECT_FALSE(h.answered(t));
  h.advance(3000);
  auto j = h.take<msg::join_group_response>(t);
  ASSERT_TRUE(j.has_value());
  EXPECT_EQ(j->error_code, 0);
  EXPECT_EQ(j->leader, j->member_id);
}

TEST(GroupMembership, PendingMemberThatNeverRejoinsExpires) {
  shard_harness h;
  auto r = h.take<msg::join_group_response>(h.join(args()));
  ASSERT_EQ(r->error_code, code(error_code::member_id_required));
  EXPECT_TRUE(h.shard.find_group("g")->members().is_pending(r->member_id));
  h.advance(10000);
  EXPECT_FALSE(h.shard.find_group("g")->members().is_pending(r->member_id));
  auto late = args();
  late.member_id = r->member_id;
  EXPECT_EQ(h.take<msg::join_group_response>(h.join(late))->error_code, code(error_code::unknown_member_id));
}

TEST(GroupMembership, SyncErrors) {
  shard_harness h;
  EXPECT_EQ(h.take<msg::sync_group_response>(h.sync("none", "m", 1))->error_code,
            code(error_code::unknown_member_id));
  auto ids = stable_pair(h);
  EXPECT_EQ(h.take<msg::sync_group_response>(h.sync("g", ids[0], 7))->error_code,
            code(error_code::illegal_generation));
  EXPECT_EQ(h.take<msg::sync_group_response>(h.sync("g", "stranger", 1))->error_code,
            code(error_code::unknown_member_id));
  EXPECT_EQ(h.take<msg::sync_group_response>(h.sync("", "m", 1))->error_code, code(error_code::invalid_group_id));
  h.leave("g", ids[0]);
  EXPECT_EQ(h.take<msg::sync_group_response>(h.sync("g", ids[1], 1))->error_code,
            code(error_code::rebalance_in_progress));
}

TEST(GroupMembership, LeaveErrorsAndAdministrativeRemoval) {
  shard_harness h;
  auto none = h.leave("nope", "m");
  ASSERT_EQ(none.members.size(), 1u);
  EXPECT_EQ(none.members[0].error_code, code(error_code::unknown_member_id));
  stable_pair(h, "g", "i-a", "i-b");
  EXPECT_EQ(h.leave("g", "stranger").members[0].error_code, code(error_code::unknown_member_id));
  // By instance id only, as kafka-consumer-groups --delete-members does.
  EXPECT_EQ(h.leave("g", "", "i-a").members[0].error_code, 0);
  EXPECT_FALSE(h.shard.find_group("g")->members().static_member_id("i-a").has_value());
  EXPECT_EQ(h.leave("g", "", "i-a").members[0].error_code, code(error_code::unknown_member_id));
}

TEST(GroupMembership, LoadingAndUnloadedShardRefuseRequests) {
  shard_harness h({}, 7, false);
  EXPECT_EQ(h.take<msg::join_group_response>(h.join(args()))->error_code, code(error_code::not_coordinator));
  h.shard.begin_load();
  EXPECT_EQ(h.take<msg::join_group_response>(h.join(args()))->error_code,
            code(error_code::coordinator_load_in_progress));
  EXPECT_EQ(h.heartbeat("g", "m", 1), 0);  // Kafka answers heartbeats blindly while loading
  EXPECT_EQ(h.take<msg::sync_group_response>(h.sync("g", "m", 1))->error_code,
            code(error_code::coordinator_load_in_progress));
  h.shard.end_load(h.now);
  auto [id, t] = h.join_dynamic(args());
  EXPECT_FALSE(h.answered(t));
  h.shard.unload();
  auto j = h.take<msg::join_group_response>(t);
  ASSERT_TRUE(j.has_value());
  EXPECT_EQ(j->error_code, code(error_code::not_coordinator));
  EXPECT_EQ(h.heartbeat("g", id, 0), code(error_code::not_coordinator));
  EXPECT_EQ(h.shard.group_count(), 0u);
}

TEST(GroupMembership, OldJoinVersionsNeverCarryANullProtocolName) {
  shard_harness h;
  stable_pair(h, "g");
  auto a = args("g");
  a.member_id = "stranger";
  a.version = 5;
  auto old_version = h.take<msg::join_group_response>(h.join(a));
  a.version = 7;
  auto new_version = h.take<msg::join_group_response>(h.join(a));
  ASSERT_TRUE(old_version && new_version);
  EXPECT_EQ(old_version->protocol_name, std::optional<std::string>(""));
  EXPECT_FALSE(new_version->protocol_name.has_value());
  // And the v5 answer survives its own encoding.
  std::vector<uint8_t> bytes;
  protocol::writer w(bytes);
  old_version->encode(w, 5);
  protocol::reader r(bytes);
  msg::join_group_response decoded;
  decoded.decode(r, 5);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(decoded.error_code, code(error_code::unknown_member_id));
}

TEST(GroupMembership, GroupLoadedOverMaxSizeRebalancesAndShrinks) {
  shard_harness big;
  stable_pair(big, "g");
  group_config config;
  config.max_size = 1;
  shard_harness h(config, 7, false);
  h.shard.begin_load();
  for (const auto& rec : big.log) {
    std::optional<std::span<const uint8_t>> value;
    if (rec.value) value = std::span<const uint8_t>(*rec.value);
    ASSERT_TRUE(h.shard.load({rec.key, value}));
  }
  h.shard.end_load(h.now);
  const classic_group* g = h.shard.find_group("g");
  ASSERT_EQ(g->members().size(), 2u);
  EXPECT_EQ(g->state(), group_state::preparing_rebalance);
  std::vector<std::string> ids;
  for (const auto& [id, _] : g->members()) ids.push_back(id);
  std::vector<request_token> joins;
  for (const auto& id : ids) {
    auto a = args("g");
    a.member_id = id;
    joins.push_back(h.join(a));
  }
  // The first to rejoin fits; the second is turned away (and removed),
  // and the barrier completes at the rebalance timeout.
  auto second = h.take<msg::join_group_response>(joins[1]);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->error_code, code(error_code::group_max_size_reached));
  EXPECT_FALSE(h.answered(joins[0]));
  h.advance(30000);
  auto first = h.take<msg::join_group_response>(joins[0]);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->error_code, 0);
  EXPECT_EQ(first->generation_id, 2);
  EXPECT_EQ(h.shard.find_group("g")->members().size(), 1u);
}

TEST(GroupMembership, DescribeAndListGroups) {
  shard_harness h;
  stable_pair(h, "g");
  h.commit("simple", "", -1, "t", 0, 5);
  auto d = h.shard.describe_groups({"g", "missing"});
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].group_state, "Stable");
  EXPECT_EQ(d[0].protocol_type, "consumer");
  EXPECT_EQ(d[0].protocol_data, "range");
  ASSERT_EQ(d[0].members.size(), 2u);
  EXPECT_EQ(d[0].members[0].member_metadata, subscription({"t"}));
  EXPECT_EQ(d[0].members[0].client_host, "/127.0.0.1");
  EXPECT_EQ(d[1].group_state, "Dead");
  EXPECT_EQ(d[1].error_code, 0);

  std::vector<msg::list_groups_response::listed_group> all, stable, empty, none;
  EXPECT_EQ(h.shard.list_groups({}, {}, all), error_code::none);
  EXPECT_EQ(all.size(), 2u);
  h.shard.list_groups({" STABLE "}, {}, stable);
  ASSERT_EQ(stable.size(), 1u);
  EXPECT_EQ(stable[0].group_id, "g");
  h.shard.list_groups({"empty"}, {"Classic"}, empty);
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_EQ(empty[0].group_id, "simple");
  EXPECT_EQ(empty[0].protocol_type, "");
  EXPECT_EQ(empty[0].group_type, "classic");
  h.shard.list_groups({}, {"consumer"}, none);
  EXPECT_TRUE(none.empty());
}

}  // namespace
}  // namespace hw::broker::group
