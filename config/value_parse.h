#pragma once
// Turns the text of one configuration value into its typed form and checks
// its rule, with Kafka's wording for failures:
//   "Invalid value -5 for configuration socket.request.max.bytes: Value must be at least 1"

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "config/config_key.h"

namespace hw::config {

// Either the typed value or the complete error message.
using parse_result = std::variant<config_value, std::string>;

parse_result parse_value(const config_key& key, std::string_view text);

// Kafka's "Invalid value V for configuration K: why" (passwords shown hidden).
std::string invalid_value_message(const config_key& key, std::string_view value, std::string_view why);

// The value as it would be written back to a properties file.
std::string value_to_string(const config_value& v);

std::string_view trim(std::string_view s);
// Comma-separated items, trimmed, empty ones dropped (Kafka's Csv.parseCsvList).
std::vector<std::string_view> csv(std::string_view s);

// ASCII upper case (listener and security protocol names).
std::string upper(std::string_view s);
// ASCII lower case (the listener and mechanism in listener.name.<l>.<m>. keys).
std::string lower(std::string_view s);

}  // namespace hw::config
