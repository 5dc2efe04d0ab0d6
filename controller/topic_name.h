#pragma once
// Kafka's topic name rules (org.apache.kafka.common.internals.Topic): what a
// name may contain, and the '.'/'_' collision (metric names map both to '_').
// Pure functions.

#include <optional>
#include <string>
#include <string_view>

namespace hw::controller {

inline constexpr size_t max_topic_name_length = 249;

// Why the name is invalid, in Kafka's words ("Topic name is invalid: ..."),
// or nullopt when it is valid.
std::optional<std::string> invalid_topic_name(std::string_view name);

bool has_collision_chars(std::string_view name);
// The name with every '.' replaced by '_'.
std::string unify_collision_chars(std::string_view name);

bool is_internal_topic(std::string_view name);

}  // namespace hw::controller
