#pragma once
// ConsumerGroupHeartbeat requests as a consumer-protocol member sends them,
// for the integration and version tests that drive KIP-848 groups over raw
// requests: the join (epoch 0, its subscription, owning nothing) and a
// heartbeat at an epoch owning what the last assignment gave it.

#include <optional>
#include <string>
#include <vector>

#include "protocol/messages/consumer_group_heartbeat.h"

namespace hw::testing {

inline protocol::msg::consumer_group_heartbeat_request consumer_join(const std::string& group,
                                                                     const std::string& member_id,
                                                                     const std::vector<std::string>& topics) {
  protocol::msg::consumer_group_heartbeat_request req;
  req.group_id = group;
  req.member_id = member_id;
  req.member_epoch = 0;
  req.rebalance_timeout_ms = 30000;
  req.subscribed_topic_names = topics;
  req.topic_partitions.emplace();
  return req;
}

inline protocol::msg::consumer_group_heartbeat_request consumer_beat(
    const std::string& group, const std::string& member_id, int32_t epoch,
    const std::optional<protocol::msg::consumer_group_heartbeat_response::assignment_data>& held) {
  protocol::msg::consumer_group_heartbeat_request req;
  req.group_id = group;
  req.member_id = member_id;
  req.member_epoch = epoch;
  req.topic_partitions.emplace();
  if (held)
    for (const auto& tp : held->topic_partitions) req.topic_partitions->push_back({tp.topic_id, tp.partitions, {}});
  return req;
}

}  // namespace hw::testing
