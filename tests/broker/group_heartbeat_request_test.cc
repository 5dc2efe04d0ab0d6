// ConsumerGroupHeartbeat's checks before the group is looked at, with
// Kafka 4.3.1's codes and messages.
#include "broker/group/consumer/heartbeat_request.h"

#include <gtest/gtest.h>

namespace hw::broker::group::consumer {
namespace {

using protocol::error_code;
using request = protocol::msg::consumer_group_heartbeat_request;

const std::vector<std::string> assignors = {"uniform", "range"};

request joining() {
  request r;
  r.group_id = "g";
  r.member_id = "m-1";
  r.member_epoch = 0;
  r.rebalance_timeout_ms = 300000;
  r.subscribed_topic_names = std::vector<std::string>{"orders"};
  r.topic_partitions.emplace();
  return r;
}

std::string refusal(const request& r, int16_t version = 1) {
  auto refused = check_heartbeat_request(r, version, assignors);
  if (!refused) return "accepted";
  return std::to_string(static_cast<int>(refused->code)) + " " + refused->message;
}

TEST(HeartbeatRequest, AGoodJoinAndItsVariants) {
  EXPECT_EQ(refusal(joining()), "accepted");
  auto regex = joining();
  regex.subscribed_topic_names.reset();
  regex.subscribed_topic_regex = "orders-.*";
  EXPECT_EQ(refusal(regex), "accepted");
  auto nothing = joining();
  nothing.subscribed_topic_names = std::vector<std::string>{};  // part of the group, subscribed to nothing
  EXPECT_EQ(refusal(nothing), "accepted");
  auto v0 = joining();
  v0.member_id = "";  // before v1 the coordinator names a joining member
  EXPECT_EQ(refusal(v0, 0), "accepted");
}

TEST(HeartbeatRequest, RefusedWithKafkasMessages) {
  const std::string invalid = std::to_string(static_cast<int>(error_code::invalid_request)) + " ";
  auto r = joining();
  r.member_id = " ";
  EXPECT_EQ(refusal(r), invalid + "MemberId can't be empty.");
  r = joining();
  r.member_id = "";
  r.member_epoch = 3;
  EXPECT_EQ(refusal(r, 0), invalid + "MemberId can't be empty.");  // only a join may leave it out at v0
  r = joining();
  r.group_id = "";
  EXPECT_EQ(refusal(r), invalid + "GroupId can't be empty.");
  r = joining();
  r.instance_id = "\t";
  EXPECT_EQ(refusal(r), invalid + "InstanceId can't be empty.");
  r = joining();
  r.rack_id = "";
  EXPECT_EQ(refusal(r), invalid + "RackId can't be empty.");
  r = joining();
  r.rebalance_timeout_ms = -1;
  EXPECT_EQ(refusal(r), invalid + "RebalanceTimeoutMs must be provided in first request.");
  r = joining();
  r.topic_partitions.reset();
  EXPECT_EQ(refusal(r), invalid + "TopicPartitions must be empty when (re-)joining.");
  r = joining();
  r.topic_partitions->emplace_back();
  EXPECT_EQ(refusal(r), invalid + "TopicPartitions must be empty when (re-)joining.");
  r = joining();
  r.subscribed_topic_names.reset();
  EXPECT_EQ(refusal(r),
            invalid + "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.");
  r = joining();
  r.member_epoch = -2;
  EXPECT_EQ(refusal(r), invalid + "InstanceId can't be null.");
  r.instance_id = "static-1";
  EXPECT_EQ(refusal(r), "accepted");
  r.member_epoch = -3;
  EXPECT_EQ(refusal(r), invalid + "MemberEpoch is invalid.");
  r = joining();
  r.server_assignor = "sticky";
  EXPECT_EQ(refusal(r), std::to_string(static_cast<int>(error_code::unsupported_assignor)) +
                            " ServerAssignor sticky is not supported. Supported assignors: uniform, range.");
}

}  // namespace
}  // namespace hw::broker::group::consumer
