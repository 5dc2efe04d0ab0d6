#pragma once
// The effective, typed configuration of one topic: its overrides (the
// ConfigRecords of the TOPIC resource, as stored) over the broker's current
// values of each config's synonyms, over Kafka's LogConfig defaults. A value
// object, rebuilt when the topic's or the broker's configs change.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "config/topic_configs.h"
#include "config/topic_configs_layers.h"

namespace hw::config {

class topic_config_values {
 public:
  // Every topic config has a value (null only where Kafka's is null; none is).
  const config_value& get(std::string_view key) const;  // asserts the key is known
  int64_t get_int(std::string_view key) const;
  bool get_bool(std::string_view key) const;
  double get_double(std::string_view key) const;
  const std::string& get_string(std::string_view key) const;
  const std::vector<std::string>& get_list(std::string_view key) const;
  // Whether the value comes from a topic override.
  bool is_override(std::string_view key) const { return overridden_.count(key) != 0; }

 private:
  friend topic_config_values effective_topic_configs(const config_map&, const broker_config_layers&);
  std::map<std::string, config_value, std::less<>> values_;
  std::set<std::string, std::less<>> overridden_;
};

// The typed value a topic config takes from the broker: the first synonym
// with a current value (converted from minutes or hours; a negative
// retention is -1, as Kafka's log.retention.* resolution makes it), else
// LogConfig's default.
config_value broker_default_for(const topic_config_key& key, const broker_config_layers& broker);

// One topic config's value: its override when it validates, else the
// broker's (broker_default_for). The same rule as effective_topic_configs,
// without resolving the others.
config_value effective_topic_config(const topic_config_key& key, const config_map& overrides,
                                    const broker_config_layers& broker);

// Overrides that are unknown or do not validate are skipped (metadata
// written by a newer version must not stop the broker); the broker value
// stands in for them.
topic_config_values effective_topic_configs(const config_map& overrides, const broker_config_layers& broker);

// Checks of a whole set of topic overrides beyond each value on its own, as
// Kafka's controller does for CreateTopics and (Incremental)AlterConfigs:
// each key and value, then min.compaction.lag.ms <= max.compaction.lag.ms
// (with the broker's values standing in for unset ones), and tiered storage,
// which Highwater does not have. `overrides` is the topic's full set after the
// change. (A null value never gets here: Kafka refuses it before, with
// "Null value not supported for topic configs: k1,k2".)
std::optional<topic_config_error> validate_topic_configs(const config_map& overrides,
                                                         const broker_config_layers& broker);

}  // namespace hw::config
