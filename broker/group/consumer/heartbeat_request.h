#pragma once
// The checks a ConsumerGroupHeartbeat passes before the coordinator looks
// at its group (Kafka's GroupCoordinatorService validation): ids that are
// blank, what a (re)join must carry, the epochs a request may name, and the
// server assignor asked for. A refusal is answered at once with Kafka's
// code and message, the group untouched. Pure; any thread.

#include <optional>
#include <string>
#include <vector>

#include "protocol/error_code.h"
#include "protocol/messages/consumer_group_heartbeat.h"

namespace hw::broker::group::consumer {

struct heartbeat_refusal {
  protocol::error_code code = protocol::error_code::none;
  std::string message;
  bool operator==(const heartbeat_refusal&) const = default;
};

// `assignors`: the names in group.consumer.assignors, in their order.
std::optional<heartbeat_refusal> check_heartbeat_request(const protocol::msg::consumer_group_heartbeat_request& request,
                                                         int16_t version, const std::vector<std::string>& assignors);

}  // namespace hw::broker::group::consumer
