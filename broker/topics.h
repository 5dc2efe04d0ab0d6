#pragma once
// Small facts about topics that several handlers share: the internal
// topics' names and the topic-name rules.

#include <string_view>

#include "controller/topic_name.h"

namespace hw::broker {

inline constexpr std::string_view consumer_offsets_topic = "__consumer_offsets";
inline constexpr std::string_view transaction_state_topic = "__transaction_state";

// Topic-name rules are the controller's (controller/topic_name.h).
using controller::invalid_topic_name;
using controller::is_internal_topic;

}  // namespace hw::broker
