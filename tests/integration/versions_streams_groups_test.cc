// Version sweeps of the streams group protocol (KIP-1071):
// StreamsGroupHeartbeat and StreamsGroupDescribe. Each version runs a
// member's life on a group and topic of its own: a join with its topology,
// heartbeats until it holds every task (after the group's initial rebalance
// delay), a heartbeat at its epoch, a describe, and a leave.

#include "tests/integration/versions_support.h"

#include "tests/integration/streams_heartbeats.h"

#include "protocol/messages/streams_group_describe.h"
#include "protocol/messages/streams_group_heartbeat.h"

namespace hw::testing::versions {
namespace {

constexpr int16_t k_heartbeat88_v = 0, k_group_id_not_found = 69, k_fenced_member_epoch = 110;

std::string gname(const char* api, int16_t v) { return std::string(api) + "-v" + std::to_string(v); }

using heartbeat_reply = reply<msg::streams_group_heartbeat_response>;

// Joins, then heartbeats (owning what it was given) until the member holds
// tasks: the first target waits for the group's initial rebalance delay
// (3 s by default, on both brokers).
heartbeat_reply join_until_assigned(sweep_context& ctx, int16_t v, const msg::streams_group_heartbeat_request& join) {
  version_client& c = ctx.client;
  if (!wait_for_coordinator(c, join.group_id)) {
    ADD_FAILURE() << "no coordinator for " << join.group_id;
    return {};
  }
  auto resp = c.call<msg::streams_group_heartbeat_response>(88, v, join);
  streams_tasks held;
  const bool assigned = wait_until(
      [&] {
        if (!resp) return true;
        if (resp->error_code == 14 || resp->error_code == 15 || resp->error_code == 16) {
          resp = c.call<msg::streams_group_heartbeat_response>(88, v, join);
          return false;
        }
        if (resp->error_code != 0) return true;
        if (resp->active_tasks) held = *resp->active_tasks;
        if (!held.empty()) return true;
        resp = c.call<msg::streams_group_heartbeat_response>(
            88, v, streams_beat(join.group_id, join.member_id, resp->member_epoch, held));
        return false;
      },
      30s);
  EXPECT_TRUE(assigned) << "no tasks for " << join.member_id;
  return resp;
}

void streams_group_heartbeat_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = gname("sgh-topic", v);
  create_topic(c, topic, 2);
  const std::string group = gname("sgh", v);
  const std::string member_id = "streams-member-v" + std::to_string(v) + "-0123456789";
  auto joined = join_until_assigned(ctx, v, streams_join(group, member_id, "process-" + member_id, topic));
  ASSERT_TRUE(joined);
  ASSERT_EQ(joined->error_code, 0) << joined->error_message.value_or("");
  EXPECT_EQ(joined->throttle_time_ms, 0);
  EXPECT_EQ(joined->member_id, member_id);
  EXPECT_GE(joined->member_epoch, 2);
  EXPECT_EQ(joined->heartbeat_interval_ms, 5000);
  ASSERT_TRUE(joined->active_tasks.has_value());
  ASSERT_EQ(joined->active_tasks->size(), 1u);
  EXPECT_EQ((*joined->active_tasks)[0].subtopology_id, "0");
  EXPECT_EQ((*joined->active_tasks)[0].partitions, (std::vector<int32_t>{0, 1}));
  ASSERT_TRUE(joined->standby_tasks.has_value());
  EXPECT_TRUE(joined->standby_tasks->empty());
  ASSERT_TRUE(joined->status.has_value());

  // A heartbeat at its epoch, owning what it was given: nothing new to say.
  auto again = c.call<msg::streams_group_heartbeat_response>(
      88, v, streams_beat(group, member_id, joined->member_epoch, *joined->active_tasks));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->error_code, 0);
  EXPECT_EQ(again->member_epoch, joined->member_epoch);
  EXPECT_FALSE(again->active_tasks.has_value());
  ASSERT_TRUE(again->status.has_value());
  EXPECT_TRUE(again->status->empty());
  // An epoch from the future is fenced.
  auto fenced = c.call<msg::streams_group_heartbeat_response>(
      88, v, streams_beat(group, member_id, joined->member_epoch + 5, *joined->active_tasks));
  ASSERT_TRUE(fenced);
  EXPECT_EQ(fenced->error_code, k_fenced_member_epoch);
  EXPECT_TRUE(fenced->error_message.has_value());

  // It leaves: epoch -1 echoed.
  msg::streams_group_heartbeat_request leave;
  leave.group_id = group;
  leave.member_id = member_id;
  leave.member_epoch = -1;
  auto left = c.call<msg::streams_group_heartbeat_response>(88, v, leave);
  ASSERT_TRUE(left);
  EXPECT_EQ(left->error_code, 0);
  EXPECT_EQ(left->member_epoch, -1);
  EXPECT_EQ(left->member_id, member_id);
}

void streams_group_describe_sweep(sweep_context& ctx, int16_t v) {
  auto& c = ctx.client;
  const std::string topic = gname("sgd-topic", v);
  create_topic(c, topic, 2);
  const std::string group = gname("sgd", v);
  const std::string member_id = "streams-describe-v" + std::to_string(v) + "-0123456789";
  const std::string process_id = "process-" + member_id;
  auto joined = join_until_assigned(ctx, k_heartbeat88_v, streams_join(group, member_id, process_id, topic));
  ASSERT_TRUE(joined);
  ASSERT_EQ(joined->error_code, 0) << joined->error_message.value_or("");
  const int32_t epoch = joined->member_epoch;
  msg::streams_group_describe_request req;
  req.group_ids = {group, gname("sgd-missing", v)};
  req.include_authorized_operations = true;
  reply<msg::streams_group_describe_response> resp;
  // Kafka describes what is committed; wait for the member to show.
  ctx.settled([&] {
    resp = c.call<msg::streams_group_describe_response>(89, v, req);
    return resp && resp->groups.size() == 2 && resp->groups[0].members.size() == 1 &&
           resp->groups[0].members[0].member_epoch == epoch;
  });
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->throttle_time_ms, 0);
  ASSERT_EQ(resp->groups.size(), 2u);
  const auto& g = resp->groups[0];
  EXPECT_EQ(g.error_code, 0);
  EXPECT_FALSE(g.error_message.has_value());
  EXPECT_EQ(g.group_id, group);
  // Stable once the member acknowledged its tasks; Reconciling until then.
  EXPECT_TRUE(g.group_state == "Stable" || g.group_state == "Reconciling") << g.group_state;
  EXPECT_EQ(g.group_epoch, epoch);
  EXPECT_EQ(g.assignment_epoch, epoch);
  EXPECT_EQ(g.authorized_operations, 3400);
  ASSERT_TRUE(g.topology.has_value());
  EXPECT_EQ(g.topology->epoch, 0);
  ASSERT_TRUE(g.topology->subtopologies.has_value());
  ASSERT_EQ(g.topology->subtopologies->size(), 1u);
  EXPECT_EQ((*g.topology->subtopologies)[0].subtopology_id, "0");
  EXPECT_EQ((*g.topology->subtopologies)[0].source_topics, (std::vector<std::string>{topic}));
  ASSERT_EQ(g.members.size(), 1u);
  const auto& m = g.members[0];
  EXPECT_EQ(m.member_id, member_id);
  EXPECT_EQ(m.member_epoch, epoch);
  EXPECT_EQ(m.process_id, process_id);
  EXPECT_EQ(m.client_id, "it");
  EXPECT_FALSE(m.client_host.empty());
  EXPECT_EQ(m.topology_epoch, 0);
  ASSERT_EQ(m.assignment.active_tasks.size(), 1u);
  EXPECT_EQ(m.assignment.active_tasks[0].partitions, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(m.target_assignment, m.assignment);
  const auto& missing = resp->groups[1];
  EXPECT_EQ(missing.error_code, k_group_id_not_found);
  EXPECT_EQ(missing.error_message, std::optional<std::string>("Group " + missing.group_id + " not found."));
}

}  // namespace

std::vector<api_sweep> streams_group_sweeps() {
  return {
      {88, "StreamsGroupHeartbeat", &streams_group_heartbeat_sweep},
      {89, "StreamsGroupDescribe", &streams_group_describe_sweep},
  };
}

}  // namespace hw::testing::versions
