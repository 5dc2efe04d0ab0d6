// Version sweeps of the consumer group protocol (KIP-848):
// ConsumerGroupHeartbeat and ConsumerGroupDescribe. Each version runs a
// member's life on a group and topic of its own: a join that gets every
// partition, a heartbeat at its epoch, a describe, and a leave.

#include "tests/integration/versions_support.h"

#include "tests/integration/consumer_heartbeats.h"

#include "protocol/messages/consumer_group_describe.h"
#include "protocol/messages/consumer_group_heartbeat.h"

namespace hw::testing::versions {
namespace {

constexpr int16_t k_heartbeat68_v = 1, k_describe69_v = 1, k_group_id_not_found = 69;

std::string gname(const char* api, int16_t v) { return std::string(api) + "-v" + std::to_string(v); }

// Joins until the coordinator answers (Kafka may still be loading it).
reply<msg::consumer_group_heartbeat_response> join(sweep_context& ctx, int16_t v,
                                                   const msg::consumer_group_heartbeat_request& req) {
  version_client& c = ctx.client;
  if (!wait_for_coordinator(c, req.group_id)) {
    ADD_FAILURE() << "no coordinator for " << req.group_id;
    return {};
  }
  auto resp = c.call<msg::consumer_group_heartbeat_response>(68, v, req);
  ctx.settled([&] {
    if (!resp || (resp->error_code != 14 && resp->error_code != 15 && resp->error_code != 16)) return true;
    resp = c.call<msg::consumer_group_heartbeat_response>(68, v, req);
    return false;
  });
  return resp;
}

void consumer_group_heartbeat_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = gname("cgh-topic", v);
  const protocol::uuid topic_id = create_topic(c, topic, 3);
  // v0 lets the coordinator name the member; from v1 the member names itself.
  const std::string own_id = v >= 1 ? "member-of-v" + std::to_string(v) + "-0123456789" : "";
  auto joined = join(ctx, v, consumer_join(gname("cgh", v), own_id, {topic}));
  ASSERT_TRUE(joined);
  EXPECT_EQ(joined->error_code, 0) << joined->error_message.value_or("");
  // Kafka's coordinator may not see a topic just created yet: the member
  // joins with nothing and its next full heartbeat gets the partitions.
  ctx.settled([&] {
    if (!joined || joined->error_code != 0 || !joined->assignment || !joined->assignment->topic_partitions.empty())
      return true;
    auto full = consumer_join(gname("cgh", v), *joined->member_id, {topic});
    full.member_epoch = joined->member_epoch;
    joined = c.call<msg::consumer_group_heartbeat_response>(68, v, full);
    return false;
  });
  ASSERT_TRUE(joined);
  EXPECT_EQ(joined->throttle_time_ms, 0);
  ASSERT_TRUE(joined->member_id.has_value());
  if (v >= 1) { EXPECT_EQ(*joined->member_id, own_id); }
  else EXPECT_FALSE(joined->member_id->empty());
  // A new group is at epoch 1; its first member is given 2 (Kafka 4.3), or
  // 3 when Kafka's coordinator saw the topic only after the join.
  if (ctx.external) { EXPECT_GE(joined->member_epoch, 2); }
  else EXPECT_EQ(joined->member_epoch, 2);
  // 5 s in Kafka, 1 s here (a deliberate difference, README "Group protocols").
  EXPECT_EQ(joined->heartbeat_interval_ms, ctx.external ? 5000 : 1000);
  ASSERT_TRUE(joined->assignment.has_value());
  ASSERT_EQ(joined->assignment->topic_partitions.size(), 1u);
  EXPECT_EQ(joined->assignment->topic_partitions[0].topic_id, topic_id);
  EXPECT_EQ(joined->assignment->topic_partitions[0].partitions, (std::vector<int32_t>{0, 1, 2}));

  // A heartbeat at its epoch, owning what it was given: nothing new to say.
  msg::consumer_group_heartbeat_request beat;
  beat.group_id = gname("cgh", v);
  beat.member_id = *joined->member_id;
  beat.member_epoch = joined->member_epoch;
  beat.topic_partitions.emplace();
  beat.topic_partitions->push_back({topic_id, {0, 1, 2}, {}});
  auto again = c.call<msg::consumer_group_heartbeat_response>(68, v, beat);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->error_code, 0);
  EXPECT_EQ(again->member_epoch, joined->member_epoch);
  EXPECT_FALSE(again->assignment.has_value());
  // An epoch from the future is fenced.
  beat.member_epoch = joined->member_epoch + 5;
  auto fenced = c.call<msg::consumer_group_heartbeat_response>(68, v, beat);
  ASSERT_TRUE(fenced);
  EXPECT_EQ(fenced->error_code, 110);  // FENCED_MEMBER_EPOCH
  EXPECT_TRUE(fenced->error_message.has_value());

  // It leaves: epoch -1 echoed.
  msg::consumer_group_heartbeat_request leave;
  leave.group_id = gname("cgh", v);
  leave.member_id = *joined->member_id;
  leave.member_epoch = -1;
  auto left = c.call<msg::consumer_group_heartbeat_response>(68, v, leave);
  ASSERT_TRUE(left);
  EXPECT_EQ(left->error_code, 0);
  EXPECT_EQ(left->member_epoch, -1);
  EXPECT_EQ(left->member_id, joined->member_id);
}

void consumer_group_describe_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = gname("cgd-topic", v);
  const protocol::uuid topic_id = create_topic(c, topic, 2);
  const std::string member_id = "describe-member-v" + std::to_string(v) + "-0123456789";
  auto joined = join(ctx, k_heartbeat68_v, consumer_join(gname("cgd", v), member_id, {topic}));
  ASSERT_TRUE(joined);
  ASSERT_EQ(joined->error_code, 0) << joined->error_message.value_or("");
  // As above: Kafka may take a second heartbeat to see the new topic.
  ctx.settled([&] {
    if (!joined || joined->error_code != 0 || !joined->assignment || !joined->assignment->topic_partitions.empty())
      return true;
    auto full = consumer_join(gname("cgd", v), member_id, {topic});
    full.member_epoch = joined->member_epoch;
    joined = c.call<msg::consumer_group_heartbeat_response>(68, k_heartbeat68_v, full);
    return false;
  });
  ASSERT_TRUE(joined);
  const int32_t epoch = joined->member_epoch;
  msg::consumer_group_describe_request req;
  req.group_ids = {gname("cgd", v), gname("cgd-missing", v)};
  req.include_authorized_operations = true;
  reply<msg::consumer_group_describe_response> resp;
  // Kafka describes what is committed; wait for the member to show.
  ctx.settled([&] {
    resp = c.call<msg::consumer_group_describe_response>(69, v, req);
    return resp && resp->groups.size() == 2 && resp->groups[0].members.size() == 1 &&
           resp->groups[0].members[0].member_epoch == epoch;
  });
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->throttle_time_ms, 0);
  ASSERT_EQ(resp->groups.size(), 2u);
  const auto& g = resp->groups[0];
  EXPECT_EQ(g.error_code, 0);
  EXPECT_FALSE(g.error_message.has_value());
  EXPECT_EQ(g.group_id, req.group_ids[0]);
  EXPECT_EQ(g.group_state, "Stable");
  EXPECT_EQ(g.group_epoch, epoch);
  EXPECT_EQ(g.assignment_epoch, epoch);
  EXPECT_EQ(g.assignor_name, "uniform");
  // Without an authorizer every group operation (what Kafka 4.3 answers).
  EXPECT_EQ(g.authorized_operations, 3400);
  ASSERT_EQ(g.members.size(), 1u);
  const auto& m = g.members[0];
  EXPECT_EQ(m.member_id, member_id);
  EXPECT_EQ(m.member_epoch, epoch);
  if (!ctx.external) { EXPECT_EQ(epoch, 2); }
  EXPECT_FALSE(m.instance_id.has_value());
  EXPECT_FALSE(m.rack_id.has_value());
  EXPECT_EQ(m.client_id, "it");
  EXPECT_FALSE(m.client_host.empty());
  EXPECT_EQ(m.subscribed_topic_names, (std::vector<std::string>{topic}));
  EXPECT_EQ(m.subscribed_topic_regex, std::optional<std::string>(""));
  ASSERT_EQ(m.assignment.topic_partitions.size(), 1u);
  EXPECT_EQ(m.assignment.topic_partitions[0].topic_id, topic_id);
  EXPECT_EQ(m.assignment.topic_partitions[0].topic_name, topic);
  EXPECT_EQ(m.assignment.topic_partitions[0].partitions, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(m.target_assignment, m.assignment);
  if (v >= 1) { EXPECT_EQ(m.member_type, 1); }  // the consumer protocol
  const auto& missing = resp->groups[1];
  EXPECT_EQ(missing.error_code, k_group_id_not_found);
  EXPECT_EQ(missing.error_message, std::optional<std::string>("Group " + missing.group_id + " not found."));
}

}  // namespace

std::vector<api_sweep> consumer_group_sweeps() {
  return {
      {68, "ConsumerGroupHeartbeat", &consumer_group_heartbeat_sweep},
      {69, "ConsumerGroupDescribe", &consumer_group_describe_sweep},
  };
}

}  // namespace hw::testing::versions
