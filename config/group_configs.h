#pragma once
// Kafka 4.3's group-level configs (GroupConfig, the GROUP config resource of
// KIP-848): names, types, defaults, the broker key each one defaults from,
// and the validation of a group's whole set against the broker's bounds
// (group.consumer.min.session.timeout.ms, ...), with Kafka's wording. Plain
// constant data and pure functions; no state.

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "config/config_key.h"
#include "config/topic_configs.h"
#include "config/topic_configs_layers.h"

namespace hw::config {

struct group_config_key {
  std::string_view name;
  value_type type;
  std::string_view default_value;  // GroupConfig's own default
  rule check;                      // the ConfigDef validator (type range or choice)
  // The broker key whose current value is the group's default
  // (group.consumer.session.timeout.ms for consumer.session.timeout.ms);
  // empty for the share.* keys that have none.
  std::string_view broker_synonym;
  std::string_view doc;
};

// Every group config Kafka 4.3.1 accepts, in GroupConfig's definition order
// (the order Kafka parses, and so reports, a set's first bad value in).
std::span<const group_config_key> group_config_keys();
const group_config_key* find_group_key(std::string_view name);

// The 17 names in the order Kafka 4.3.1's DescribeConfigs lists a group's
// configs (its HashMap order, stable because the key set is fixed).
std::span<const std::string_view> group_config_describe_order();

// A key's typed value from its text: nullopt when the text does not parse
// or breaks the key's own rule.
std::optional<config_value> parse_group_value(const group_config_key& key, std::string_view text);

// The group's value of every key: its own configs over the broker's current
// value of the synonym over GroupConfig's default (Kafka's
// extractGroupConfigMap + GroupConfig.fromProps). Values that do not parse
// fall back as if unset.
std::optional<std::string> group_config_text(const group_config_key& key, const config_map& group,
                                            const broker_config_layers& broker);

// Kafka's GroupConfig.validate, run by the controller on a group's full set
// after a change: unknown names ("Unknown group config name: foo"), then
// each value's type and rule in definition order ("Invalid value 0 for
// configuration consumer.session.timeout.ms: Value must be at least 1"),
// then the broker's bounds ("consumer.session.timeout.ms must be less than
// or equal to group.consumer.max.session.timeout.ms") and session timeouts
// above heartbeat intervals. INVALID_CONFIG (40) for every one.
std::optional<topic_config_error> validate_group_configs(const config_map& group, const broker_config_layers& broker);

}  // namespace hw::config
