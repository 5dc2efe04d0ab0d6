// A StreamsGroupHeartbeat checked before its group is looked at, as Kafka
// 4.3.1's coordinator service checks it: what it does not support yet, then
// what is malformed, each with Kafka's error and message; and a joining
// member's topology taken as declared.
#include <gtest/gtest.h>

#include "broker/group/streams/heartbeat_request.h"

namespace hw::broker::group::streams {
namespace {

using protocol::error_code;
using request = protocol::msg::streams_group_heartbeat_request;

request joining() {
  request r;
  r.group_id = "app";
  r.member_id = "m-1";
  r.member_epoch = 0;
  r.rebalance_timeout_ms = 30000;
  r.process_id = "p";
  r.active_tasks.emplace();
  r.standby_tasks.emplace();
  r.warmup_tasks.emplace();
  r.topology.emplace();
  r.topology->epoch = 1;
  auto& s = r.topology->subtopologies.emplace_back();
  s.subtopology_id = "0";
  s.source_topics = {"in"};
  return r;
}

std::string refusal_of(const request& r, error_code expected = error_code::invalid_request) {
  auto refused = check_streams_heartbeat(r);
  EXPECT_TRUE(refused.has_value());
  if (!refused) return "";
  EXPECT_EQ(refused->code, expected);
  return refused->message;
}

TEST(StreamsHeartbeatRequest, AJoinWithItsTopologyPasses) {
  EXPECT_FALSE(check_streams_heartbeat(joining()).has_value());
  request beat;
  beat.group_id = "app";
  beat.member_id = "m-1";
  beat.member_epoch = 5;
  EXPECT_FALSE(check_streams_heartbeat(beat).has_value());
}

TEST(StreamsHeartbeatRequest, UnsupportedFeaturesAreRefusedFirst) {
  auto r = joining();
  r.instance_id = "";
  EXPECT_EQ(refusal_of(r), "Static membership is not yet supported.");
  r = joining();
  r.task_offsets.emplace();
  EXPECT_EQ(refusal_of(r), "TaskOffsets are not supported yet.");
  r = joining();
  r.warmup_tasks->push_back({"0", {1}, {}});
  EXPECT_EQ(refusal_of(r), "WarmupTasks are not supported yet.");
  r = joining();
  r.topology->subtopologies[0].source_topic_regex = {"in-.*"};
  EXPECT_EQ(refusal_of(r), "Regular expressions for source topics are not supported yet.");
}

TEST(StreamsHeartbeatRequest, MalformedRequestsGetKafkasMessages) {
  auto r = joining();
  r.member_id = "  ";
  EXPECT_EQ(refusal_of(r), "MemberId can't be empty.");
  r = joining();
  r.group_id = "";
  EXPECT_EQ(refusal_of(r), "GroupId can't be empty.");
  r = joining();
  r.rack_id = " ";
  EXPECT_EQ(refusal_of(r), "RackId can't be empty.");
  r = joining();
  r.rebalance_timeout_ms = -1;
  EXPECT_EQ(refusal_of(r), "RebalanceTimeoutMs must be provided in first request.");
  r = joining();
  r.active_tasks->push_back({"0", {0}, {}});
  EXPECT_EQ(refusal_of(r), "ActiveTasks must be empty when (re-)joining.");
  r = joining();
  r.standby_tasks.reset();
  EXPECT_EQ(refusal_of(r), "StandbyTasks must be empty when (re-)joining.");
  r = joining();
  r.topology.reset();
  EXPECT_EQ(refusal_of(r), "Topology must be non-null when (re-)joining.");
  r = joining();
  r.topology->subtopologies[0].state_changelog_topics.push_back({"app-store-changelog", 3, 0, {}, {}});
  EXPECT_EQ(refusal_of(r, error_code::streams_invalid_topology),
            "Changelog topic app-store-changelog must have an undefined partition count, but it is set to 3.");
  r = joining();
  r.member_epoch = -3;
  r.topology.reset();
  EXPECT_EQ(refusal_of(r), "MemberEpoch is -3, but must be greater than or equal to -2.");
  r = joining();
  r.member_epoch = 4;
  r.warmup_tasks.reset();
  r.topology.reset();
  EXPECT_EQ(refusal_of(r), "If one task-type is non-null, all must be non-null.");
  r = joining();
  r.member_epoch = 4;
  EXPECT_EQ(refusal_of(r), "Topology can only be provided when (re-)joining.");
}

TEST(StreamsHeartbeatRequest, TheTopologyIsTakenAsDeclared) {
  auto r = joining();
  auto& s = r.topology->subtopologies[0];
  s.repartition_sink_topics = {"app-rep"};
  s.state_changelog_topics.push_back({"app-store-changelog", 0, 3, {{"cleanup.policy", "compact", {}}}, {}});
  s.copartition_groups.push_back({{0}, {}, {}, {}});
  const auto t = topology_from(*r.topology);
  EXPECT_EQ(t.epoch, 1);
  ASSERT_EQ(t.subtopologies.size(), 1u);
  EXPECT_EQ(t.subtopologies[0].id, "0");
  EXPECT_EQ(t.subtopologies[0].repartition_sink_topics, (std::vector<std::string>{"app-rep"}));
  ASSERT_EQ(t.subtopologies[0].state_changelog_topics.size(), 1u);
  EXPECT_EQ(t.subtopologies[0].state_changelog_topics[0].replication_factor, 3);
  EXPECT_EQ(t.subtopologies[0].state_changelog_topics[0].configs,
            (std::vector<std::pair<std::string, std::string>>{{"cleanup.policy", "compact"}}));
  EXPECT_EQ(t.subtopologies[0].copartition_groups.size(), 1u);
}

}  // namespace
}  // namespace hw::broker::group::streams
