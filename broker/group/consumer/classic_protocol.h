#pragma once
// The consumer protocol a classic member embeds in JoinGroup and SyncGroup
// (ConsumerProtocolSubscription, ConsumerProtocolAssignment: a version
// prefix, then the message), read and written as a consumer group needs
// them when classic members live in it (KIP-848's migration). A version
// above what is known is read and written as the highest known, one below
// 0 is malformed, as Kafka's ConsumerProtocol does. Pure; any thread.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "broker/group/consumer/target_assignment.h"
#include "broker/group/consumer/topic_partitions.h"

namespace hw::broker::group::consumer {

struct classic_subscription {
  int16_t version = 0;
  std::vector<std::string> topics;
  std::map<std::string, std::set<int32_t>> owned;  // v1+: what the member says it owns
  std::optional<std::string> rack_id;              // v3+
};

// nullopt: malformed (too short, a negative version, bad lengths).
std::optional<classic_subscription> decode_subscription(std::span<const uint8_t> metadata);

struct classic_assignment {
  std::map<std::string, std::set<int32_t>> partitions;
  bool has_user_data = false;  // a custom assignor's data, which a consumer group cannot keep
};
std::optional<classic_assignment> decode_assignment(std::span<const uint8_t> assignment);

// `partitions` named from the image (a topic it no longer has is left
// out), written at `version` (the member's subscription's).
std::vector<uint8_t> encode_assignment(const topic_partitions& partitions, const topic_image_view& topics,
                                       int16_t version);

// Named partitions to topic ids; topics the image does not have are left out.
topic_partitions by_topic_id(const std::map<std::string, std::set<int32_t>>& partitions,
                             const topic_image_view& topics);

}  // namespace hw::broker::group::consumer
