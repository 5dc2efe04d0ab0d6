#include "broker/group/consumer/heartbeat_request.h"

#include <algorithm>

#include "broker/group/consumer/member_epoch.h"
#include "protocol/java_string.h"

namespace hw::broker::group::consumer {

namespace {

// From this version the client makes its member id (KIP-1082): a request
// without one is refused whatever its epoch.
constexpr int16_t client_member_id_version = 1;

bool blank(const std::optional<std::string>& value) {
  return value && protocol::java_trim(*value).empty();
}

heartbeat_refusal invalid(std::string message) {
  return {protocol::error_code::invalid_request, std::move(message)};
}

}  // namespace

std::optional<heartbeat_refusal> check_heartbeat_request(const protocol::msg::consumer_group_heartbeat_request& r,
                                                         int16_t version, const std::vector<std::string>& assignors) {
  const member_epoch epoch{r.member_epoch};
  if ((version >= client_member_id_version || epoch.value > 0 || epoch == leave_group_epoch) &&
      protocol::java_trim(r.member_id).empty())
    return invalid("MemberId can't be empty.");
  if (protocol::java_trim(r.group_id).empty()) return invalid("GroupId can't be empty.");
  if (blank(r.instance_id)) return invalid("InstanceId can't be empty.");
  if (blank(r.rack_id)) return invalid("RackId can't be empty.");
  if (epoch == joining_epoch) {
    if (r.rebalance_timeout_ms == -1) return invalid("RebalanceTimeoutMs must be provided in first request.");
    if (!r.topic_partitions || !r.topic_partitions->empty())
      return invalid("TopicPartitions must be empty when (re-)joining.");
    // No names and no expression at all; an empty list or expression joins
    // the group subscribed to nothing.
    if (!r.subscribed_topic_names && !r.subscribed_topic_regex)
      return invalid("Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.");
  } else if (epoch == leave_group_static_epoch) {
    if (!r.instance_id) return invalid("InstanceId can't be null.");
  } else if (epoch < leave_group_static_epoch) {
    return invalid("MemberEpoch is invalid.");
  }
  if (r.server_assignor && std::find(assignors.begin(), assignors.end(), *r.server_assignor) == assignors.end()) {
    std::string supported;
    for (const auto& a : assignors) supported += (supported.empty() ? "" : ", ") + a;
    return heartbeat_refusal{protocol::error_code::unsupported_assignor,
                             "ServerAssignor " + *r.server_assignor + " is not supported. Supported assignors: " +
                                 supported + "."};
  }
  return std::nullopt;
}

}  // namespace hw::broker::group::consumer
