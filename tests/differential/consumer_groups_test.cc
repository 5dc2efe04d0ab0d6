// Consumer groups (KIP-848) and the classic protocol side by side: classic
// JoinGroup, SyncGroup, Heartbeat and LeaveGroup sent to a consumer group
// (a classic member joining it, refusals of other protocols and unknown
// members, an administrator removing a consumer-protocol member with
// LeaveGroup), and a ConsumerGroupHeartbeat to a classic group that cannot
// be upgraded. Member ids are each broker's own.

#include "protocol/messages/consumer_group_heartbeat.h"
#include "protocol/messages/heartbeat.h"
#include "protocol/messages/join_group.h"
#include "protocol/messages/leave_group.h"
#include "protocol/messages/sync_group.h"
#include "twin.h"

namespace hw::testing::differential {
namespace {

namespace msg = protocol::msg;

// A ConsumerProtocolSubscription (v0) of one topic, as a classic client sends it.
std::vector<uint8_t> subscription_of(const std::string& topic) {
  std::vector<uint8_t> out = {0, 0, 0, 0, 0, 1, 0, static_cast<uint8_t>(topic.size())};
  out.insert(out.end(), topic.begin(), topic.end());
  for (int i = 0; i < 4; ++i) out.push_back(0xff);  // no user data
  return out;
}

msg::join_group_request classic_join(const std::string& group, const std::string& member_id,
                                     const std::string& protocol_type = "consumer") {
  msg::join_group_request req;
  req.group_id = group;
  req.session_timeout_ms = 30000;
  req.rebalance_timeout_ms = 30000;
  req.member_id = member_id;
  req.protocol_type = protocol_type;
  req.protocols.push_back({"range", subscription_of("cg-absent-topic"), {}});
  return req;
}

msg::consumer_group_heartbeat_request consumer_join(const std::string& group, const std::string& member_id) {
  msg::consumer_group_heartbeat_request req;
  req.group_id = group;
  req.member_id = member_id;
  req.member_epoch = 0;
  req.rebalance_timeout_ms = 30000;
  req.subscribed_topic_names = std::vector<std::string>{"cg-absent-topic"};
  req.topic_partitions.emplace();
  return req;
}

TEST_F(DifferentialTest, ClassicRequestsToAConsumerGroup) {
  const std::string group = fresh_name("cg-mixed");
  wait_for_coordinator(t(), group);
  const std::string own_id = "consumer-member-of-" + group;
  expect_same(t().call("ConsumerGroupHeartbeat join", 68, 1, consumer_join(group, own_id)),
              {{"heartbeat_interval_ms", allowed::rule::any_value,
                "1 s by default here, 5 s in Kafka (README, Group protocols)"}});

  // A classic member is asked for a member id first, as in a classic group.
  auto first = t().call("JoinGroup new member", 11, 9, classic_join(group, ""));
  expect_same(first, member_allow());
  // Another protocol type, and a session timeout out of bounds, are refused.
  expect_same(t().call("JoinGroup of another protocol type", 11, 9, classic_join(group, "", "connect")),
              member_allow());
  auto short_session = classic_join(group, "");
  short_session.session_timeout_ms = 1;
  expect_same(t().call("JoinGroup with too short a session", 11, 9, short_session), member_allow());

  // Unknown members, and a consumer-protocol member's id, are not classic members.
  msg::heartbeat_request beat;
  beat.group_id = group;
  beat.generation_id = 2;
  beat.member_id = "nobody";
  expect_same(t().call("Heartbeat of an unknown member", 12, 4, beat));
  beat.member_id = own_id;
  expect_same(t().call("Heartbeat with a consumer-protocol member's id", 12, 4, beat));
  msg::sync_group_request sync;
  sync.group_id = group;
  sync.generation_id = 2;
  sync.member_id = "nobody";
  expect_same(t().call("SyncGroup of an unknown member", 14, 5, sync));
  sync.member_id = own_id;
  expect_same(t().call("SyncGroup with a consumer-protocol member's id", 14, 5, sync));

  // LeaveGroup removes any member, the consumer-protocol one too.
  msg::leave_group_request leave;
  leave.group_id = group;
  leave.members.push_back({"nobody", std::nullopt, std::nullopt, {}});
  leave.members.push_back({own_id, std::nullopt, std::nullopt, {}});
  expect_same(t().call("LeaveGroup of an unknown and a consumer-protocol member", 13, 5, leave));
  auto gone = consumer_join(group, own_id);
  gone.member_epoch = 2;
  expect_same(t().call("ConsumerGroupHeartbeat of the removed member", 68, 1, gone));
}

TEST_F(DifferentialTest, AClassicGroupOfAnotherProtocolIsNotUpgraded) {
  const std::string group = fresh_name("cg-connect");
  wait_for_coordinator(t(), group);
  auto first = t().call("JoinGroup connect worker", 11, 9, classic_join(group, "", "connect"));
  expect_same(first, member_allow());
  std::array<std::string, 2> ids;
  for (side s : k_sides)
    if (first.of(s).error.empty()) ids[static_cast<int>(s)] = first.as<msg::join_group_response>(s).member_id;
  auto joined = t().call_each("JoinGroup connect worker with its id", 11, 9,
                              [&](side s) { return classic_join(group, ids[static_cast<int>(s)], "connect"); });
  expect_same(joined, member_allow());
  expect_same(t().call("ConsumerGroupHeartbeat join of a connect group", 68, 1, consumer_join(group, "m-" + group)));
  auto beat = consumer_join(group, "m-" + group);
  beat.member_epoch = 3;
  expect_same(t().call("ConsumerGroupHeartbeat of a connect group", 68, 1, beat));
}

}  // namespace
}  // namespace hw::testing::differential
