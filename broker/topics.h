#pragma once
// Small facts about topics that several handlers share: which are
// internal, the effective value of a topic config, the produce limits.

#include <optional>
#include <string>
#include <string_view>

#include "broker/replica/partition.h"
#include "controller/metadata/image.h"
#include "controller/topic_name.h"

namespace hw::config {
struct broker_config;
}

namespace hw::broker {

inline constexpr std::string_view consumer_offsets_topic = "__consumer_offsets";
inline constexpr std::string_view transaction_state_topic = "__transaction_state";

// Topic-name rules are the controller's (controller/topic_name.h).
using controller::invalid_topic_name;
using controller::is_internal_topic;

// The topic's override of key, if its configs set one.
std::optional<std::string> topic_override(const controller::metadata_image& image, std::string_view topic,
                                          std::string_view key);

produce_limits produce_limits_for(const controller::metadata_image& image, std::string_view topic,
                                  const config::broker_config& config);

}  // namespace hw::broker
