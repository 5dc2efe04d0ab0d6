#pragma once
// DescribeConfigs answers for TOPIC and BROKER resources as Kafka 4.3 gives
// them: each entry's value, source, synonyms in precedence order,
// sensitivity, read-only flag, type and (when asked) documentation. Plain
// structs; the DescribeConfigs handler copies them into the response.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/topic_configs_layers.h"

namespace hw::config {

// Kafka's DescribeConfigsResponse.ConfigSource ids.
enum class config_source : int8_t {
  unknown = 0,
  topic_config = 1,
  dynamic_broker_config = 2,
  dynamic_default_broker_config = 3,
  static_broker_config = 4,
  default_config = 5,
  dynamic_broker_logger_config = 6,
  client_metrics_config = 7,
  group_config = 8,  // named DYNAMIC_GROUP_CONFIG by the admin client and kafka-configs.sh
};

// Kafka's DescribeConfigsResponse.ConfigType ids.
enum class described_type : int8_t {
  unknown = 0, boolean = 1, string = 2, int32 = 3, int16 = 4, int64 = 5, float64 = 6, list = 7,
  class_name = 8, password = 9,
};
described_type described_type_of(value_type t);

struct described_synonym {
  std::string name;
  std::optional<std::string> value;  // nullopt: null (or hidden, when sensitive)
  config_source source = config_source::unknown;
};

struct described_config {
  std::string name;
  std::optional<std::string> value;
  bool read_only = false;
  config_source source = config_source::default_config;
  bool is_sensitive = false;
  std::vector<described_synonym> synonyms;  // empty unless asked for
  described_type type = described_type::unknown;
  std::optional<std::string> documentation;  // only when asked for
};

struct describe_options {
  bool include_synonyms = false;
  bool include_documentation = false;
  std::vector<std::string> keys;  // empty: every config; unknown names are left out
};

// Kafka's configSynonyms for a broker key: every level's values of the key's
// synonyms, levels in precedence order and synonyms in their order within a
// level, then everything before the first entry named `name` dropped (so
// describing log.retention.hours does not list a dynamic log.retention.ms).
std::vector<described_synonym> broker_synonyms(std::string_view name, const broker_config_layers& broker,
                                               bool sensitive);

// Every topic config of a topic with these overrides (sorted by name). The
// caller answers UNKNOWN_TOPIC_OR_PARTITION for a topic that does not exist.
std::vector<described_config> describe_topic_configs(const config_map& overrides,
                                                     const broker_config_layers& broker,
                                                     const describe_options& options);

struct broker_describe_result {
  // Set for a resource name that is neither empty nor this broker's id:
  // Kafka's INVALID_REQUEST (42) with this message.
  std::optional<std::string> invalid_request;
  std::vector<described_config> configs;
};

// resource_name "" describes the cluster-wide dynamic defaults (only keys
// that have one); this broker's id describes every broker key.
broker_describe_result describe_broker_configs(std::string_view resource_name, const broker_config_layers& broker,
                                               const describe_options& options);

}  // namespace hw::config
