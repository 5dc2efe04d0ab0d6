#pragma once
// A StreamsGroupHeartbeat's checks before its group is looked at (Kafka
// 4.3.1's coordinator service): what Kafka does not support yet (static
// members, task offsets, warm-up tasks, source topic regular expressions),
// blank ids, what a (re)join carries, the epochs a request may name, task
// lists given together, a topology only when joining, changelog topics
// without a partition count; INVALID_REQUEST or STREAMS_INVALID_TOPOLOGY
// with Kafka's messages. And the request's topology in the shape the group
// keeps. Pure; any thread.

#include <optional>
#include <string>

#include "broker/group/streams/topology.h"
#include "protocol/error_code.h"
#include "protocol/messages/streams_group_heartbeat.h"

namespace hw::broker::group::streams {

struct streams_refusal {
  protocol::error_code code;
  std::string message;
  bool operator==(const streams_refusal&) const = default;
};

std::optional<streams_refusal> check_streams_heartbeat(const protocol::msg::streams_group_heartbeat_request& request);

// The topology a joining member declares, as the group's record keeps it.
topology topology_from(const protocol::msg::streams_group_heartbeat_request::topology_data& t);

}  // namespace hw::broker::group::streams
