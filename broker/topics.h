#pragma once
// Small facts about topics that several handlers share: which are
// internal, the effective value of a topic config, the produce limits.

#include <optional>
#include <string>
#include <string_view>

#include "broker/replica/partition.h"
#include "controller/metadata/image.h"

namespace hw::config {
struct broker_config;
}

namespace hw::broker {

inline constexpr std::string_view consumer_offsets_topic = "__consumer_offsets";
inline constexpr std::string_view transaction_state_topic = "__transaction_state";

bool is_internal_topic(std::string_view name);

// Kafka's topic name rules (Topic.validate); the message Kafka gives, or
// nothing for a valid name.
std::optional<std::string> validate_topic_name(std::string_view name);

// The topic's override of key, if its configs set one.
std::optional<std::string> topic_override(const controller::metadata_image& image, std::string_view topic,
                                          std::string_view key);

produce_limits produce_limits_for(const controller::metadata_image& image, std::string_view topic,
                                  const config::broker_config& config);

}  // namespace hw::broker
