// Streams groups (KIP-1071) on both brokers: what StreamsGroupHeartbeat
// refuses before and inside the coordinator (Kafka's internal topics or
// invalid names in a topology, unknown members, epochs from the future, a
// changed topology), the statuses of a topology whose source topic is
// missing, group ids held by groups of other kinds (a consumer heartbeat, a
// classic JoinGroup, a streams heartbeat to a consumer group), DeleteGroups
// of a group with members, StreamsGroupDescribe of a group and of one that
// is not there, and a leave. Member ids are the test's own, so the answers
// compare whole.

#include <set>

#include "protocol/messages/consumer_group_heartbeat.h"
#include "protocol/messages/delete_groups.h"
#include "protocol/messages/join_group.h"
#include "protocol/messages/streams_group_describe.h"
#include "protocol/messages/streams_group_heartbeat.h"
#include "tests/integration/streams_heartbeats.h"
#include "twin.h"

namespace hw::testing::differential {
namespace {

namespace msg = protocol::msg;
using R = allowed::rule;

// A join whose one subtopology reads `sources`, at topology epoch `epoch`.
msg::streams_group_heartbeat_request streams_join(const std::string& group, const std::string& member_id,
                                                  const std::vector<std::string>& sources, int32_t epoch = 0) {
  auto req = hw::testing::streams_join(group, member_id, "process-" + member_id, "");
  req.topology->epoch = epoch;
  req.topology->subtopologies[0].source_topics = sources;
  return req;
}

msg::streams_group_heartbeat_request streams_beat(const std::string& group, const std::string& member_id,
                                                  int32_t epoch) {
  return hw::testing::streams_beat(group, member_id, epoch, {});
}

const allowlist& describe_allow() {
  static const allowlist k = {
      {"*client_host", R::same_emptiness, "each broker sees the test's connection from its own socket"},
  };
  return k;
}

TEST_F(DifferentialTest, StreamsGroupRefusalsAndStatuses) {
  const std::string group = fresh_name("sg-refusals");
  const std::string missing = fresh_name("sg-absent-topic");
  wait_for_coordinator(t(), group);

  // Checked before the coordinator sees it.
  expect_same(t().call("topology with an internal topic", 88, 0,
                       streams_join(group, "member-a-0123456789", {"__consumer_offsets"})));
  expect_same(t().call("topology with an invalid topic name", 88, 0,
                       streams_join(group, "member-a-0123456789", {"bad topic!"})));
  auto no_timeout = streams_join(group, "member-a-0123456789", {missing});
  no_timeout.rebalance_timeout_ms = -1;
  expect_same(t().call("join without a rebalance timeout", 88, 0, no_timeout));

  // A join whose source topic does not exist: the member is in, with no
  // tasks and the topology's status (after the initial rebalance delay's).
  auto joined = t().call("join, source topic missing", 88, 0, streams_join(group, "member-a-0123456789", {missing}));
  expect_same(joined);
  const auto kafka_join = joined.as<msg::streams_group_heartbeat_response>(side::kafka);
  const int32_t epoch = kafka_join.member_epoch;
  ASSERT_EQ(kafka_join.error_code, 0);
  ASSERT_TRUE(kafka_join.status.has_value());
  std::set<int8_t> statuses;
  for (const auto& s : *kafka_join.status) statuses.insert(s.status_code);
  EXPECT_TRUE(statuses.count(1)) << "MISSING_SOURCE_TOPICS";
  expect_same(t().call("heartbeat of an unknown member", 88, 0, streams_beat(group, "nobody-0123456789", epoch)));
  expect_same(t().call("heartbeat from a future epoch", 88, 0, streams_beat(group, "member-a-0123456789", epoch + 7)));
  expect_same(t().call("another topology at a newer epoch", 88, 0,
                       streams_join(group, "member-b-0123456789", {missing, "other"}, 1)));

  // The id is a streams group's now.
  msg::consumer_group_heartbeat_request consumer;
  consumer.group_id = group;
  consumer.member_id = "consumer-0123456789";
  consumer.member_epoch = 0;
  consumer.rebalance_timeout_ms = 30000;
  consumer.subscribed_topic_names = std::vector<std::string>{missing};
  consumer.topic_partitions.emplace();
  expect_same(t().call("ConsumerGroupHeartbeat to a streams group", 68, 1, consumer));
  msg::join_group_request classic;
  classic.group_id = group;
  classic.session_timeout_ms = 30000;
  classic.rebalance_timeout_ms = 30000;
  classic.protocol_type = "consumer";
  classic.protocols.push_back({"range", {}, {}});
  expect_same(t().call("JoinGroup to a streams group with members", 11, 9, classic), member_allow());
  msg::delete_groups_request del;
  del.groups_names = {group};
  expect_same(t().call("DeleteGroups of a streams group with members", 42, 2, del));

  msg::streams_group_describe_request describe;
  describe.group_ids = {group, fresh_name("sg-missing")};
  expect_same(t().call("StreamsGroupDescribe", 89, 0, describe), describe_allow());

  // A streams heartbeat to a consumer group.
  const std::string consumer_group = fresh_name("sg-consumer");
  wait_for_coordinator(t(), consumer_group);
  consumer.group_id = consumer_group;
  expect_same(t().call("ConsumerGroupHeartbeat join", 68, 1, consumer),
              {{"heartbeat_interval_ms", allowed::rule::any_value,
                "1 s by default here, 5 s in Kafka (README, Group protocols)"}});
  expect_same(t().call("StreamsGroupHeartbeat to a consumer group", 88, 0,
                       streams_join(consumer_group, "member-c-0123456789", {missing})));

  auto leave = streams_beat(group, "member-a-0123456789", -1);
  leave.active_tasks.reset();
  leave.standby_tasks.reset();
  leave.warmup_tasks.reset();
  expect_same(t().call("leave", 88, 0, leave));
}

}  // namespace
}  // namespace hw::testing::differential
